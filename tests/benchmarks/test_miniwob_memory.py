"""Exemplar memories from MiniWoB++ train seeds, per task and multi-task, as Synapse built and used them.

A train-split sweep (the tasks on their train seeds 3000-3999) and an evaluation sweep (their own seeds) of
two tasks, played by the exemplar method (in Synapse's commands) with a scripted model that clicks what the goal
quotes: only the train-seed episodes become exemplars, each task is its own family keyed by its train
utterances and first states; ``exemplars-task`` then shows an episode its own task's exemplars (no retrieval) and
``exemplars`` retrieves the nearest task by the task and state. Another method's episodes (structured
reflection's, the same sweeps CAAP's demonstrations are recorded from) are not Synapse's syntax and give none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.exemplars.policy import ABSTRACT_PURPOSE, ACT_PURPOSE, ExemplarPolicy, ExemplarState
from latent_agent.agent.exemplars.retrieval import Retriever, page_key
from latent_agent.agent.methods import EXEMPLARS, Method, Variant, register, unregister
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.harvest import build_memory, harvest
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.benchmarks.suite import load_named_suite
from latent_agent.benchmarks.sweep import SweepOptions, run_sweep
from latent_agent.device.spec import parse_device_spec
from latent_agent.llm.embed.hashing import HashingEmbedder
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
if not Path("/usr/bin/chromium").exists():
    pytest.skip("no system chromium (apt-get install chromium)", allow_module_level=True)

QUOTED = re.compile(r'"([^"]+)"')
TASKS = ("click-button", "click-link")
SUITE = "miniwob-synapse"


def _wanted(goal: object) -> str:
    found = QUOTED.search(str(goal))
    assert found is not None, goal
    return found.group(1)


def play(request: GenerationRequest) -> str:
    """Taps what the goal quotes: the staged planner's one step, the grounder's click, the exemplar method's list."""
    inputs = dict(request.inputs)
    if request.purpose == "normalize_goal":
        return str(inputs["goal"])
    if request.purpose == "plan":
        return "DONE" if inputs["actions"] else f'Tap "{_wanted(inputs["goal"])}"'
    if request.purpose == ABSTRACT_PURPOSE:
        return f'The element "{_wanted(inputs["goal"])}" is on the screen.'
    if request.purpose == ACT_PURPOSE:  # Synapse's command on a web page
        return f'1. clickxpath //*[text()="{_wanted(inputs["goal"])}"]'
    if request.purpose == "ground":
        listed = next(iter(inputs["elements"].values()))
        element = next(e for e in listed if isinstance(e, dict) and e.get("text") == _wanted(inputs["goal"]))
        return "```json\n" + json.dumps({"action_type": "click", "x": element["center"][0],
                                         "y": element["center"][1]}) + "\n```"
    raise AssertionError(f"unexpected call {request.purpose!r}")


@contextmanager
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel(responder=play)
    try:
        yield model
    finally:
        model.close()


def _sweep(out: Path, split: str | None, method: str = "reflection-t1") -> Path:
    suite = load_named_suite(SUITE).select(list(TASKS))
    suite = suite.split([split]) if split is not None else suite
    plan = SweepPlan.build(suite.name, [(t.id, t.goal) for t in suite.tasks], [method], 2, "scripted:play",
                           EpisodeSettings(max_steps=6), task_seeds={t.id: t.seeds for t in suite.tasks})
    # Screenshots kept: CAAP's demonstrations read a web page's screens with the screen observer.
    summary = run_sweep(out, suite, plan, [parse_device_spec("miniwob")], client_factory=scripted,
                        options=SweepOptions(progress=False))
    assert summary.ran == 4 and summary.errored == 0
    return out


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("miniwob-memory")
    return _sweep(root / "train", "train"), _sweep(root / "eval", None)


@pytest.fixture(scope="module")
def exemplar_sweeps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("miniwob-exemplars")
    return _sweep(root / "train", "train", "exemplars"), _sweep(root / "eval", None, "exemplars")


def test_only_train_seed_episodes_become_exemplars_each_task_its_own_family(
        exemplar_sweeps: tuple[Path, Path]) -> None:
    train, evaluation = exemplar_sweeps
    found = harvest([train, evaluation])
    assert sorted((x.source.task, x.source.seed) for x in found.exemplars) == [
        (t, s) for t in sorted(TASKS) for s in (3000, 3001)]
    assert all(x.family == x.source.task and x.source.split == "train" for x in found.exemplars)
    assert found.skip_counts() == {"eval split": 4}  # the evaluation seeds 0 and 1 of both tasks
    # Keys: the utterances of the train seeds with their first states, each labelled with its task.
    assert {(k.family, k.text) for k in found.keys} == {
        (x.family, page_key(x.goal, x.pieces[0].screen)) for x in found.exemplars}
    assert all(step.words.startswith("clickxpath //*[text()=") for x in found.exemplars for step in x.steps)


def test_another_methods_episodes_are_not_synapses_syntax(sweeps: tuple[Path, Path]) -> None:
    train, _ = sweeps
    found = harvest([train])
    assert found.exemplars == () and found.skip_counts() == {"not in Synapse's action syntax": 4}


def test_a_held_out_tasks_train_seeds_are_not_harvested() -> None:
    from latent_agent.benchmarks.harvest import hosted_origin

    suite = load_named_suite(SUITE)
    held = {t.id for t in suite.tasks if t.split == "heldout"}
    assert held and "click-button" not in held  # Synapse's unseen tasks (e.g. click-checkboxes) are held out
    click = suite.task("click-button")
    assert hosted_origin(replace(click, split="heldout"), 3000).split == "heldout"
    assert hosted_origin(click, 3000).split == "train" and hosted_origin(click, 0).split == "eval"


@pytest.fixture
def own_and_multi(exemplar_sweeps: tuple[Path, Path]) -> Iterator[tuple[str, str]]:
    train, _ = exemplar_sweeps
    memory = build_memory(harvest([train]), HashingEmbedder())
    retriever = Retriever(memory, HashingEmbedder(), floor=-1.0)
    register(Method("test-exemplars-own", ExemplarPolicy(retriever=retriever, own_task=True), "own task", EXEMPLARS,
                    Variant("test own", "(test own)")))
    register(Method("test-exemplars-multi", ExemplarPolicy(retriever=retriever), "multi-task", EXEMPLARS,
                    Variant("test multi", "(test multi)")))
    try:
        yield "test-exemplars-own", "test-exemplars-multi"
    finally:
        unregister("test-exemplars-own")
        unregister("test-exemplars-multi")


def test_per_task_shows_the_tasks_own_exemplars_and_multi_task_retrieves_a_task(
        own_and_multi: tuple[str, str], tmp_path: Path) -> None:
    from latent_agent.device.miniwob.device import MiniWobDevice

    own, multi = own_and_multi
    shown: dict[str, ExemplarState] = {}
    with MiniWobDevice() as device, scripted() as model:
        for name in (own, multi):
            goal = device.load_task("click-link", 5)
            result = run_episode_sync(EpisodeConfig(goal, name, grounder="paper", screenshots=False, max_steps=4,
                                                    task_id="click-link", seed=5), device, model, tmp_path / name)
            assert result.stop_reason is StopReason.TASK_ENDED and device.task_reward().raw == 1.0, result.detail
            state = read_trajectory(result.directory).steps[0].state
            assert isinstance(state, ExemplarState)
            shown[name] = state
    # Per task: every exemplar of click-link's own train seeds, no retrieval.
    assert shown[own].family == "click-link" and shown[own].neighbours == ()
    assert len(shown[own].exemplars) == 2 and all("click-link" in x for x in shown[own].exemplars)
    # Multi-task: the task and state retrieve a task by its nearest keys, and all of that task's exemplars are shown.
    assert shown[multi].family in TASKS and len(shown[multi].neighbours) == 3 and len(shown[multi].exemplars) == 2


# -- CAAP's demonstrations from the same train-seed episodes ----------------------------------------


def test_caap_demos_are_the_successful_train_seed_episodes_and_an_episode_sees_all_of_its_tasks(
        sweeps: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.agent.caap.demos import load_demos
    from latent_agent.benchmarks.demos_episodes import demos_from_sweeps
    from latent_agent.cli.main import main

    train, evaluation = sweeps
    found = demos_from_sweeps([train, evaluation])
    assert sorted(d.task_id for d in found.demos) == sorted(TASKS * 2)
    assert found.skipped == {"not a train-split episode": 4}  # the evaluation seeds
    for demo in found.demos:
        # One click on what the goal quotes, on the element list the screen observer reads from the saved
        # screenshot, as CAAP sees the page (a link inside a sentence is read as part of its line of text).
        [tap] = demo.actions
        assert tap.action.name == "click_element" and _wanted(demo.goal) in str(tap.action.element["text"])
        assert tap.before and tap.after == () and demo.surface == "web_page"  # the task ended with it
    out = tmp_path / "demos"
    assert main(["demos", "build", "--from", str(train), str(evaluation), "--llm", "scripted:echo",
                 "--out", str(out)]) == 0
    assert "4 demonstration(s) of 2 task(s), 4 action(s): 4 rationale call(s)" in capsys.readouterr().out
    demos = load_demos(out)
    assert all(a.reason for d in demos.demos for a in d.actions[1:])
    # An evaluation episode of click-link is shown every demonstration of click-link (its train seeds), and
    # none of click-button; the instance evaluated is never among them.
    chosen = demos.select('Click on the link "nulla".', "click-link", limit=1)
    assert len(chosen) == 2 and {d.task_id for d in chosen} == {"click-link"}
    first = next(d for d in demos.demos if d.task_id == "click-link")
    assert first not in demos.select(first.goal, "click-link")
    # A task with no demonstrations of its own (no train-seed episode succeeded) is shown none, as in the paper, even
    # where another task's goals are alike.
    assert demos.by_task and demos.select('Click on the link "nulla" and then the "ok" button.', "click-link-2") == ()
