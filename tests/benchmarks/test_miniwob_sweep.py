"""A small sweep of the miniwob-reflection suite on MiniWoB++ pages, with a scripted model, and its report.

The scripted model plays the reflection method the way a model that learns from one reflection would, in the
page's commands (``click id=N``): on a trial without a lesson it clicks a wrong element of the page, and the
reflection names the right one, forced in the next trial. With oracle feedback (the page's reward) every
episode therefore fails its first trial and succeeds in its second, so the report's measured T=1 is 0% and
T=3 and T=5 are 100%, beside the paper's Tables 10-12 (100% at every T for these tasks).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.episodes import EpisodeJob
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.benchmarks.report import build_report
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog, StopJudgement
from latent_agent.benchmarks.suite import load_named_suite
from latent_agent.benchmarks.sweep import SweepOptions, run_sweep
from latent_agent.device.spec import parse_device_spec
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytest.importorskip("miniwob", reason="the miniwob wheel is not installed (pip install 'latent-agent[miniwob]')")
from latent_agent.device.miniwob.browser import CHROMIUM  # imported once Playwright is known to be there

if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set LATENT_AGENT_CHROMIUM)",
                allow_module_level=True)

QUOTED = re.compile(r'"([^"]+)"')
METHOD = "reflection-check-t5"
TASKS = ("click-button", "click-link")


def _wanted(goal: str) -> str:
    found = QUOTED.search(goal)
    assert found is not None, goal
    return found.group(1)


def _id_of(elements: object, text: str, *, wanted: bool = True) -> int:
    """The id of the first element of the compact screen whose text is ``text`` (or, not ``wanted``, is another)."""
    assert isinstance(elements, list)
    return next(int(e["id"]) for e in elements if isinstance(e, dict) and e["text"]
                and (e["text"] == text) is wanted)


def play(request: GenerationRequest) -> str:
    """The scripted model's answer, from the call's purpose and the values its prompt was rendered from: the page's
    commands (click id=N), as structured reflection speaks on a web page."""
    inputs = dict(request.inputs)
    if request.purpose == "normalize_goal":
        return str(inputs["goal"])
    if request.purpose == "plan":
        if inputs["actions"]:
            return ""
        # Without a lesson it clicks an element other than the one the goal names; with one, that one.
        return f"click id={_id_of(inputs['elements'], _wanted(str(inputs['goal'])), wanted=bool(inputs['lessons']))}"
    if request.purpose == "reflect":
        blocks = inputs["blocks"]
        assert isinstance(blocks, list) and isinstance(blocks[0], dict)
        return f"For action index=1, you should click id={_id_of(blocks[0]['elements'], _wanted(str(inputs['goal'])))}."
    if request.purpose == "paraphrase":
        return f"Did {inputs['action']}."
    raise AssertionError(f"unexpected call {request.purpose!r}")


@contextmanager
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel(responder=play)
    try:
        yield model
    finally:
        model.close()


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("miniwob") / "sweep"
    suite = load_named_suite("miniwob-reflection").select(list(TASKS))
    plan = SweepPlan.build(suite.name, [(t.id, t.goal) for t in suite.tasks], [METHOD], 2, "scripted:play",
                           EpisodeSettings(max_steps=8), task_seeds={t.id: t.seeds for t in suite.tasks})
    summary = run_sweep(out, suite, plan, [parse_device_spec("miniwob")], client_factory=scripted,
                        options=SweepOptions(progress=False, screenshots=False))
    assert summary.ran == 4 and summary.errored == 0, [r.error for r in ResultsLog(out).load() if r.error]
    return out


def test_each_episode_ran_its_tasks_page_on_its_seed_and_carries_the_pages_reward(sweep: Path) -> None:
    records = sorted(ResultsLog(sweep).load(), key=lambda r: (r.task_id, r.seed))
    assert [(r.task_id, r.seed) for r in records] == [(t, s) for t in sorted(TASKS) for s in (1000, 1001)]
    for r in records:
        assert r.status is EpisodeStatus.FINISHED, r.error
        assert r.raw_reward == 1.0 and r.success is True  # solved in the second trial
        assert r.stop_judgement is StopJudgement.RIGHT_TIME  # the task's end ended the episode
        assert r.time_scaled_reward is not None and 0.0 < r.time_scaled_reward <= 1.0
        # The goal on the line is the page's utterance for the seed, not the plan's placeholder.
        assert re.fullmatch(r'Click on the (link )?"[^"]+"( button)?\.', r.goal), r.goal


def test_the_report_puts_success_at_each_t_beside_tables_10_to_12(sweep: Path) -> None:
    markdown = build_report(sweep, n_resamples=200, render_episodes=False).markdown.read_text(encoding="utf-8")
    block = markdown.split(f"### MiniWoB++ beside the paper: {METHOD} against Li et al., structured reflection",
                           1)[1].split("\n### ", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("| ")]
    # Cells as they read once rendered: report.md backslash-escapes Markdown's characters ("\\[", "\\>").
    header, *rows = [[re.sub(r"\\(.)", r"\1", c.strip()) for c in line.strip("|").split(" | ")] for line in lines]
    assert header == ["Group", "Task", "Episodes", "Marks",
                      f"Measured T=1: {METHOD}, check feedback, scripted:play, raw reward = 1.0 (95% interval)",
                      "Measured T=1: reward > 0 (95% interval)",
                      "Published T=1: FLAN-PaLM2 L, Tables 10-12, counted reward > 0",
                      f"Measured T=3: {METHOD}, check feedback, scripted:play, raw reward = 1.0 (95% interval)",
                      "Measured T=3: reward > 0 (95% interval)",
                      "Published T=3: FLAN-PaLM2 L, Tables 10-12, counted reward > 0",
                      f"Measured T=5: {METHOD}, check feedback, scripted:play, raw reward = 1.0 (95% interval)",
                      "Measured T=5: reward > 0 (95% interval)",
                      "Published T=5: FLAN-PaLM2 L, Tables 10-12, counted reward > 0"]
    failed, solved = "0.0% [0.0, 65.8] (0/2)", "100.0% [34.2, 100.0] (2/2)"
    # The first trial's wrong tap changed nothing and the trial was given up before the page ended: its reward
    # was 0, a failure under both criteria.
    for row, task in zip(rows, ("click-link", "click-button"), strict=False):
        assert row == ["1-screen-1-step", task, "2", "", failed, failed, "100.0%", solved, solved, "100.0%", solved,
                       solved, "100.0%"]
    assert rows[2][1] == "Average, 1-screen-1-step (2 of 10 tasks)"
    assert rows[2][4:] == ["0.0% (mean of 2 tasks)", "0.0% (mean of 2 tasks)", "100.0%", "100.0% (mean of 2 tasks)",
                           "100.0% (mean of 2 tasks)", "100.0%", "100.0% (mean of 2 tasks)",
                           "100.0% (mean of 2 tasks)", "100.0%"]
    assert rows[3][1] == "Average over the 2 tasks we ran (of the paper's 43)"
    assert len(rows) == 4
    assert "(a scripted stand-in, not a language model)" in markdown.split("### MiniWoB++ beside the paper", 1)[1]


def stop_at_once(job: EpisodeJob) -> Path:
    """A runner that fails before acting (the resume test needs planned episodes, not played ones)."""
    raise RuntimeError(f"not played: {job.planned.key}")


def test_a_sweep_of_the_train_split_resumes_on_its_train_seeds(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.benchmarks.plan import read_manifest
    from latent_agent.cli.main import main

    out = tmp_path / "train"
    common = ["--devices", "miniwob", "--llm", "scripted:echo", "--out", str(out), "--no-progress", "--no-preflight",
              "--no-screenshots", "--runner", f"{__name__}:stop_at_once"]
    main(["sweep", "--suite", "miniwob-reflection", "--tasks", "click-button", "--split", "train", "--seeds", "2",
          "--methods", "reflection-check-t5", *common])  # the page's reward judges its trials: not refused
    planned = read_manifest(out)
    assert [e.seed for e in planned.episodes] == [3000, 3001]
    capsys.readouterr()
    main(["sweep", "--resume", "--retry-errors", *common])
    err = capsys.readouterr().err
    assert "different sweep" not in err
    records = ResultsLog(out).load()
    assert [(r.seed, r.attempt) for r in records] == [(3000, 1), (3001, 1), (3000, 2), (3001, 2)]
    assert all("not played" in r.error and r.goal.startswith("Click on the") for r in records)
