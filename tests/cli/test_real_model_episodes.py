"""A real language model drives the agent: one short episode of each method family.

The model is Qwen2.5-Coder-0.5B-Instruct, the GGUF packaged for the ``test`` extra, served by llama.cpp
through ``--llm llamacpp:...`` (xllamacpp, CPU). A 0.5B model mostly fails its tasks; what it can be
held to is what a user relies on whatever the model says: the run ends with an end record and one of
the agent's own stops (never a crash, an LLM error or a device error), every call's answer is either
used or recorded as unparsable with its raw text, the goal in use keeps the user's goal, and every call
and step is timed.

One sweep (started when the module is collected, so that it runs beside the rest of the suite: see
tests/prestart.py) runs one method of each family (the core method's three selectors, reflection, exemplars
with a memory, CAAP with demonstrations) for two steps on two simulated phones sharing one server with
two slots; ``run`` is tried once with the model's file path and a window of its own. Every answer is
held to ``--llm-max-output`` tokens: the model's runaways (CAAP's and the exemplars' answers run to their
caps of 1,024 and 320 tokens, two minutes each on one core) are what made this test slow, and a cut
answer is one of the forms under test. Skipped, with the reason, only where xllamacpp or the model's
slices are not installed.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from latent_agent.agent.goal_guard import rewrite_problem
from latent_agent.agent.trajectory import LLMCall, StopReason, Trajectory, read_trajectory
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog, latest
from tests.prestart import Prestart
from tests.real_model import packaged_model_or_skip

GOAL = "Turn off data roaming"
TASK = "settings_roaming_off"
#: One method of each family; the cheaper twin where the family has one, to keep the test to minutes.
METHODS = ("zero-shot+", "cot-sc-", "react-", "reflection", "exemplars", "caap")
#: How an agent may stop on its own (anything else is a failure of the infrastructure or a bug).
OWN_STOPS = {StopReason.COMPLETED, StopReason.DONE, StopReason.MAX_STEPS, StopReason.METHOD_CAP,
             StopReason.REPEATED_ACTIONS, StopReason.GAVE_UP}
#: The ceiling on every answer (tokens): a runaway then costs seconds, not minutes.
MAX_OUTPUT = "128"
#: Generous: a loaded two-core machine answers a long capped call slowly, and a timeout is not what is tested.
TIMEOUT = "300"




def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "latent_agent.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=1500, check=False)


def _calls(trajectory: Trajectory) -> list[LLMCall]:
    calls = [*trajectory.header.setup_calls]
    for step in trajectory.steps:
        calls.extend(step.calls)
    for trial in trajectory.trials:
        calls.extend(trial.calls)
    if trajectory.end is not None:
        calls.extend(trajectory.end.calls)
    return calls


def _assert_held(trajectory: Trajectory, where: str) -> None:
    """What a real model's episode is held to (see the module docstring)."""
    assert trajectory.end is not None, f"{where}: no end record"
    assert trajectory.end.stop_reason in OWN_STOPS, f"{where}: stopped {trajectory.end.stop_reason}"
    header = trajectory.header
    assert header.goal == GOAL
    # The goal in use is the user's, or a rewrite that keeps its content.
    assert header.normalized_goal == GOAL or rewrite_problem(GOAL, header.normalized_goal or GOAL) is None, (
        f"{where}: the goal in use {header.normalized_goal!r} lost the goal's content")
    calls = _calls(trajectory)
    assert calls, f"{where}: no LLM call recorded"
    for call in calls:
        what = f"{where}: {call.purpose} call"
        assert call.error is None, f"{what} failed: {call.error}"
        assert call.outputs, f"{what} has no answer"
        assert len(call.finish_reasons) == len(call.outputs), f"{what}: finish reasons not recorded per sample"
        assert call.latency_s > 0, f"{what}: not timed"
        assert call.max_output_tokens is not None, f"{what}: sent without an output cap"
        assert call.max_output_tokens <= int(MAX_OUTPUT), f"{what}: sent above --llm-max-output"
        # Used as it was, or recorded as unparsable with its raw text (kept in outputs).
        assert call.parse_error is None or call.parse_error.strip(), f"{what}: empty parse error"
    for step in trajectory.steps:
        assert step.timing.total_s > 0, f"{where}: step {step.index} not timed"


@pytest.fixture(scope="module")
def model() -> Path:
    return packaged_model_or_skip()


def _sweep(work: Path) -> list[subprocess.CompletedProcess[str]]:
    """Build the memory and the demonstrations, then sweep the model: each command's result, up to a failing one."""
    # The memory and the demonstrations come from the demo stand-in's training episodes (no model call).
    # One training task: every exemplar and demonstration of a family is shown, and a small model's prompts
    # stay short enough to answer in seconds.
    commands = [
        ("sweep", "--suite", "sim", "--split", "train", "--tasks", TASK, "--methods", "zero-shot+", "--devices", "sim",
         "--llm", "demo", "--out", "train", "--no-progress", "--no-preflight"),
        ("memory", "build", "train", "--out", "memory"),
        ("demos", "build", "--suite", "sim", "--tasks", TASK, "--llm", "demo", "--out", "demos"),
        ("sweep", "--suite", "sim", "--tasks", TASK, "--methods", ",".join(METHODS), "--devices", "sim*2",
         "--llm", "llamacpp:qwen2.5-coder-0.5b", "--llm-parallel", "2", "--llm-timeout", TIMEOUT,
         "--llm-max-output", MAX_OUTPUT, "--max-steps", "2", "--memory", "memory", "--demos", "demos",
         "--out", "eval", "--no-progress", "--max-consecutive-errors", "0"),
    ]
    done = []
    for command in commands:
        done.append(_cli(*command, cwd=work))
        if done[-1].returncode != 0:
            break
    return done


#: The sweep starts when the session collects this module (tests/prestart.py), beside the other tests.
SWEEP = Prestart("real-model-sweep", _sweep, ready=lambda: importlib.util.find_spec("xllamacpp") is not None)
PRESTART = (SWEEP,)


def test_one_short_episode_of_each_family(model: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    work, done = SWEEP.result(tmp_path_factory.getbasetemp())
    for result in done:
        assert result.returncode == 0, f"{' '.join(result.args[3:5])}: " + result.stdout[-3000:] + result.stderr[-3000:]
    assert len(done) == 4

    records = latest(ResultsLog(work / "eval").load())
    assert sorted(r.method for r in records.values()) == sorted(METHODS)
    for record in records.values():
        assert record.status is EpisodeStatus.FINISHED, f"{record.method}: {record.status} {record.error}"
        assert record.llm_calls > 0
        _assert_held(read_trajectory(work / "eval" / record.trajectory), record.method)


def test_run_with_the_model_file(model: Path, tmp_path: Path) -> None:
    """``run`` with the GGUF's path, for one step (zero-shot+ ran in the sweep; its cheaper twin here)."""
    result = _cli("run", GOAL, "--device", "sim", "--llm", f"llamacpp:{model}", "--method", "zero-shot-",
                  "--max-steps", "1", "--llm-ctx", "4096", "--llm-timeout", TIMEOUT,
                  "--llm-max-output", MAX_OUTPUT, "--out", "episode",
                  cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # The goal in use is shown before the first step, not only at the end.
    assert result.stdout.index("goal:") < result.stdout.index("step 0")
    trajectory = read_trajectory(tmp_path / "episode")
    _assert_held(trajectory, "run")
    header = json.loads((tmp_path / "episode" / "trajectory.jsonl").read_text().splitlines()[0])
    assert header["llm_server"]["context_window"] == 4096, header.get("llm_server")
