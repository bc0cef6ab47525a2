"""The documented memory recipe for MiniWoB++ (docs/memory.md), by the real commands with ``--llm demo``.

``sweep --split train --methods exemplars`` plays the tasks' train seeds (3000-3999) with no memory, the method
speaking Synapse's commands and filtering or reformulating where the paper does; ``memory build`` keeps the
rewarded episodes as exemplars in Synapse's syntax: click-tab-2's (a task the paper filters) carry their filtered
observations, use-spinner's (one it reformulates) their explicit tasks, click-button's (a simple task) neither;
each keyed by its utterance and first state. The memory then serves held-out tasks. Real Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.exemplars.memory import ExemplarMemory
from latent_agent.agent.exemplars.syntax import parse_command
from latent_agent.agent.trajectory import StopReason, read_trajectory, state_to_json
from tests.cli.helpers import cli
from tests.device.miniwob.conftest import open_device

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytest.importorskip("onnxruntime", reason="the memory's default embedder needs the embed extra")

TASKS = ("click-button", "click-tab-2", "use-spinner")


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with open_device():
        pass  # skips the module, naming why, where no browser can be launched
    root = tmp_path_factory.mktemp("mw-recipe")
    done = cli("sweep", "--suite", "miniwob-synapse", "--split", "train", "--tasks", ",".join(TASKS), "--seeds", "2",
               "--methods", "exemplars", "--devices", "miniwob*1", "--llm", "demo", "--max-steps", "15",
               "--out", str(root / "train"), "--no-progress")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (root / "train" / "results.jsonl").read_text().splitlines()]
    assert sorted((r["task_id"], r["seed"], r["success"]) for r in lines if r.get("record") == "episode") == [
        (t, s, True) for t in sorted(TASKS) for s in (3000, 3001)]
    done = cli("memory", "build", str(root / "train"), "--out", str(root / "memory"))
    assert done.returncode == 0, done.stderr
    assert "6 exemplar(s) of 3 families, 6 key(s)" in done.stdout
    return root / "memory"


def test_the_complex_tasks_exemplars_carry_their_filtered_observations_and_reformulations(memory: Path) -> None:
    built = ExemplarMemory.load(memory)
    assert built.families == tuple(sorted(TASKS))
    for exemplar in built.exemplars:
        [piece] = exemplar.pieces  # each task's whole solution is one plan
        assert piece.screen.startswith('<div id="wrap"')  # the raw state, not an accessibility description
        for step in piece.steps:
            parse_command(step.words)  # Synapse's commands, as carried out
        if exemplar.family == "click-tab-2":  # filtered by the paper: the observation the plan was made from
            assert piece.observation is not None and piece.observation.startswith('Click on the link "')
            assert piece.observation.split('"')[1] in exemplar.goal and piece.task is None
        elif exemplar.family == "use-spinner":  # reformulated by the paper: the explicit task
            assert piece.observation is None and piece.task is not None and "arrow" in piece.task
        else:  # a simple task: raw state straight to the plan
            assert piece.observation is None and piece.task is None
    for key in built.keys:
        exemplar = built.exemplar(key.exemplar or "")
        assert key.text == f"Task: {exemplar.goal}\nState:\n{exemplar.pieces[0].screen}"


@pytest.mark.parametrize(("method", "task", "family", "chosen_by"), [
    ("exemplars", "click-tab-2-hard", "click-tab-2", "retrieved"),  # held out of Synapse's memory
    ("exemplars-task", "click-tab-2-hard", "click-tab-2", "the published code's substitute"),
    ("exemplars-task", "choose-list", None, "nearest task (none of its own)"),
])
def test_held_out_tasks_are_given_exemplars_from_the_memory(memory: Path, tmp_path: Path, method: str, task: str,
                                                            family: str | None, chosen_by: str) -> None:
    out = tmp_path / "ep"
    done = cli("run", "--device", f"miniwob:{task}", "--seed", "7", "--llm", "demo", "--method", method,
               "--memory", str(memory), "--max-steps", "15", "--out", str(out))
    assert done.returncode == 0, done.stderr
    trajectory = read_trajectory(out)
    assert trajectory.end is not None and trajectory.end.stop_reason is StopReason.TASK_ENDED
    assert trajectory.end.reward is not None and trajectory.end.reward.raw == 1.0
    recorded = trajectory.steps[0].state
    assert recorded is not None
    state = state_to_json(recorded)
    assert state["chosen_by"] == chosen_by and len(state["exemplars"]) == 2
    assert state["family"] == family if family is not None else state["family"] in TASKS
