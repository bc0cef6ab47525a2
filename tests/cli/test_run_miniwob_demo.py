"""``run --device miniwob:TASK --llm demo``: every method family ends a MiniWoB++ task with the page's reward, offline.

The demo stand-in (a scripted oracle behind the local Gemini protocol stand-in, reached through google-genai)
reads the task's steps from the utterance and finds their targets in each call's inputs; the page's own
reward judges. Every method family plays click-button; click-checkboxes and enter-text are played by a few.
The exemplar memory and the CAAP demonstrations come from demo sweeps of click-button's train seeds (the
memory's of the exemplar method, whose commands its exemplars are), built by the real commands. Real
Chromium; skipped, naming why, only where no browser can be launched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import StopReason, Trajectory, read_trajectory, state_to_json
from tests.cli.helpers import cli, one_line
from tests.device.miniwob.conftest import open_device

#: click-button from seed 3 asks for its "no" button; the screenshot observer lists that screen's buttons
#: apart (on some seeds it reads buttons side by side as one element, and CAAP from screenshots cannot tap one).
SEED = "3"


@pytest.fixture(scope="module")
def browser() -> None:
    """Skips the module, naming why, when no browser can be launched here."""
    with open_device():
        pass


@pytest.fixture(scope="module")
def train_sweep(browser: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo sweep of click-button on two of its train seeds (3000-3999), every episode rewarded."""
    out = tmp_path_factory.mktemp("mw-train") / "sweep"
    done = cli("sweep", "--suite", "miniwob-synapse", "--split", "train", "--tasks", "click-button", "--seeds", "2",
               "--methods", "zero-shot-", "--devices", "miniwob*1", "--llm", "demo", "--max-steps", "3",
               "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    episodes = [r for r in lines if r.get("record") == "episode"]
    assert [(r["seed"], r["success"], r["raw_reward"]) for r in episodes] == [(3000, True, 1.0), (3001, True, 1.0)]
    return out


@pytest.fixture(scope="module")
def memory(browser: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An exemplar memory (``memory build``) harvested from a demo sweep of the exemplar method itself on click-button's
    train seeds: on a web page exemplars are Synapse's commands, which only that method speaks."""
    out = tmp_path_factory.mktemp("mw-exemplars")
    done = cli("sweep", "--suite", "miniwob-synapse", "--split", "train", "--tasks", "click-button", "--seeds", "2",
               "--methods", "exemplars", "--devices", "miniwob*1", "--llm", "demo", "--max-steps", "3",
               "--out", str(out / "sweep"), "--no-progress")
    assert done.returncode == 0, done.stderr
    done = cli("memory", "build", str(out / "sweep"), "--out", str(out / "memory"))
    assert done.returncode == 0, done.stderr
    assert "2 exemplar(s) of 1 family" in done.stdout
    return out / "memory"


@pytest.fixture(scope="module")
def demos(train_sweep: Path) -> Path:
    """CAAP demonstrations recorded from the train sweep (``demos build --from``), rationales by the demo."""
    out = train_sweep.parent / "demos"
    done = cli("demos", "build", "--from", str(train_sweep), "--llm", "demo", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "2 demonstration(s) of 1 task(s)" in done.stdout
    return out


def _run(tmp_path: Path, task: str, seed: str, method: str, *extra: str, max_steps: int = 3) -> tuple[str, Trajectory]:
    out = tmp_path / "ep"
    done = cli("run", "--device", f"miniwob:{task}", "--seed", seed, "--llm", "demo", "--method", method,
               "--max-steps", str(max_steps), "--out", str(out), *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout, read_trajectory(out)


def _rewarded(stdout: str, trajectory: Trajectory) -> None:
    """The episode ended because the task did, with raw reward 1.0 in the end record, and run said so."""
    end = trajectory.end
    assert end is not None and end.stop_reason is StopReason.TASK_ENDED, end
    assert end.reward is not None and end.reward.raw == 1.0 and end.reward.success, end.reward
    assert "raw 1, time-scaled" in stdout and "success" in stdout


@pytest.mark.parametrize("method", ["zero-shot+", "zero-shot-", "cot-sc+", "cot-sc-", "react+", "react-"])
def test_each_latent_state_selector_ends_click_button_rewarded(browser: None, tmp_path: Path, method: str) -> None:
    stdout, trajectory = _run(tmp_path, "click-button", SEED, method)
    _rewarded(stdout, trajectory)
    assert trajectory.header.goal == 'Click on the "no" button.' and trajectory.header.method == method


def test_reflection_judged_by_the_reward_ends_click_button_rewarded(browser: None, tmp_path: Path) -> None:
    stdout, trajectory = _run(tmp_path, "click-button", SEED, "reflection-check")
    _rewarded(stdout, trajectory)
    recorded = trajectory.steps[0].state
    assert recorded is not None
    # Its trials are judged by the task's check, which on a judged task is the page's reward.
    assert state_to_json(recorded)["feedback"] == "check"


def test_the_llm_grounder_too(browser: None, tmp_path: Path) -> None:
    stdout, trajectory = _run(tmp_path, "click-button", SEED, "zero-shot-", "--grounder", "llm")
    _rewarded(stdout, trajectory)
    assert trajectory.header.grounder == "llm"


@pytest.mark.parametrize("method", ["exemplars", "exemplars-task"])
def test_exemplars_from_a_train_seed_memory_end_click_button_rewarded(tmp_path: Path, memory: Path,
                                                                      method: str) -> None:
    stdout, trajectory = _run(tmp_path, "click-button", SEED, method, "--memory", str(memory))
    _rewarded(stdout, trajectory)
    recorded = trajectory.steps[0].state
    assert recorded is not None
    state = state_to_json(recorded)
    # The memory's click-button exemplars (its train seeds' episodes) were in the call, not an empty memory.
    assert state["family"] == "click-button"
    assert list(state["exemplars"]) == ["click-button__exemplars__s3000", "click-button__exemplars__s3001"]


@pytest.mark.parametrize("with_demos", [True, False], ids=["demos", "no-demos"])
def test_caap_from_screenshots_alone_ends_click_button_rewarded(tmp_path: Path, demos: Path, with_demos: bool) -> None:
    extra = ("--demos", str(demos)) if with_demos else ()
    stdout, trajectory = _run(tmp_path, "click-button", SEED, "caap", "--observation", "screen", *extra)
    _rewarded(stdout, trajectory)
    recorded = trajectory.steps[0].state
    assert recorded is not None
    state = state_to_json(recorded)
    assert state["kind"] == "caap"
    # Both of the task's recorded demonstrations are shown, as the published code shows all of a task's.
    assert list(state["demos"]) == (["click-button", "click-button"] if with_demos else [])
    assert trajectory.header.observation == "screen"


@pytest.mark.parametrize(("task", "seed", "method"), [
    ("click-checkboxes", "3", "zero-shot-"),  # four boxes to tick, then Submit
    ("click-checkboxes", "1000", "react-"),  # "Select nothing": Submit alone
    ("enter-text", "3", "cot-sc-"),  # tap the field, type, Submit
])
def test_click_checkboxes_and_enter_text_are_played_too(browser: None, tmp_path: Path, task: str, seed: str,
                                                        method: str) -> None:
    stdout, trajectory = _run(tmp_path, task, seed, method, max_steps=8)
    _rewarded(stdout, trajectory)


def test_a_task_the_demo_does_not_play_is_one_line(browser: None, tmp_path: Path) -> None:
    done = cli("run", "--device", "miniwob:choose-date", "--seed", SEED, "--llm", "demo", "--out",
               str(tmp_path / "ep"))
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "knows only the sim suite's goals" in line
    assert "MiniWoB++ tasks click-button, click-checkboxes, enter-text" in line and "is not one of them" in line
