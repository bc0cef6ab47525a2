"""A method defined and registered here, in a test module, runs through `run`, `sweep` and `report`.

Nothing outside this file knows the toy: it proves that a new method is its module plus one
registry entry. The toy walks a fixed plan (open Settings, go home), re-planning nothing, and says it is done;
it asks no model (the demo stand-in only rephrases the goal) and is grounded by the hybrid grounder's rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS, Family, Method, Variant, register, unregister
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, TrialEnd, Verdict
from latent_agent.agent.trajectory import StopReason, StopRule, read_trajectory, state_kind
from latent_agent.benchmarks.metrics import compute_metrics
from latent_agent.benchmarks.report_charts import chart_groups
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.cli import main
from latent_agent.grounder.actions import NavigateHome, OpenApp
from tests.agent.policy_contract import PolicyContract

PLAN = ("Open the Settings app", "Go to the home screen")
GOAL = "Turn on dark theme"


@state_kind
@dataclass(frozen=True, slots=True)
class WalkState:
    """How much of the plan is left after this step, and whether the screen had changed."""

    left: int
    screen_changed: bool

    KIND = "test-toy-walk"

    @property
    def kind(self) -> str:
        return self.KIND


class WalkRun:
    def __init__(self) -> None:
        self.done = 0

    async def decide(self, step: StepInput) -> Decision:
        if self.done >= len(PLAN):
            return Decision("done", state=WalkState(0, step.screen_changed),
                            stop=Verdict(StopReason.DONE, "the plan is walked", StopRule.DONE_EXACT))
        step.phases.add("plan", 0.0)
        return Decision(PLAN[self.done], state=WalkState(len(PLAN) - self.done - 1, step.screen_changed))

    def record(self, outcome: Outcome) -> None:
        self.done += 1


class WalkPolicy:
    def begin(self, setup: EpisodeSetup) -> WalkRun:
        return WalkRun()


@pytest.fixture
def toy() -> Iterator[str]:
    # Paired with zero-shot- without any +/- in its name: the pair comes from the registry.
    register(Method("toy", WalkPolicy(), "walks a fixed plan", Family("toy", "Toy"),
                    Variant("scripted walk", "(scripted walk)"), baseline="zero-shot-"))
    try:
        yield "toy"
    finally:
        unregister("toy")
    assert "toy" not in METHODS


def test_run_then_show(toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ep"
    code = main(["run", GOAL, "--device", "sim", "--llm", "demo", "--method", toy, "--grounder", "hybrid",
                 "--no-screenshots", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    t = read_trajectory(out)
    assert t.header.method == toy and t.end is not None and t.end.stop_reason is StopReason.DONE
    assert [s.selected_step for s in t.steps] == [*PLAN, "done"]
    assert isinstance(t.steps[0].action, OpenApp) and isinstance(t.steps[1].action, NavigateHome)
    assert [s.state for s in t.steps] == [WalkState(1, True), WalkState(0, True), WalkState(0, True)]
    assert all(latent_of(s) is None and "plan" in s.timing.phases for s in t.steps[:2])
    assert main(["show", str(out)]) == 0
    page = (out / "episode.html").read_text(encoding="utf-8")
    assert "<dt>screen changed</dt><dd>True</dd>" in page and "<dt>left</dt><dd>1</dd>" in page
    assert "<dt>phases</dt><dd>observe " in page


def test_sweep_and_report(toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", "settings_dark_theme", "--methods", f"{toy},zero-shot-",
                 "--devices", "sim", "--llm", "demo", "--grounder", "hybrid", "--out", str(out), "--no-progress",
                 "--no-screenshots"])
    assert code == 0, capsys.readouterr().err
    records = ResultsLog(out).load()
    assert sorted(r.method for r in records) == [toy, "zero-shot-"]
    assert all(r.status is EpisodeStatus.FINISHED for r in records)
    walked = next(r for r in records if r.method == toy)
    assert walked.steps == 3 and walked.success is False

    metrics = compute_metrics(records, n_resamples=100)
    assert {(t.method, t.baseline, t.reasoning) for t in metrics.tests} == {(toy, "zero-shot-", "toy")}
    groups, series = chart_groups(metrics, "sim")
    assert groups == ["Zero-shot", "Toy"] and series["scripted walk"]["Toy"].method == toy

    assert main(["report", str(out)]) == 0
    md = (out / "report" / "report.md").read_text()
    assert "Toy (scripted walk)" in md and "Zero-shot (no latent state)" in md
    assert f"(episodes/settings_dark_theme__{toy}__s0.html)" in md


class RetryingWalkRun(WalkRun):
    """Walks the plan, then once more from the reset phone (a stand-in for a method that reflects and retries)."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: list[TrialEnd] = []

    async def again(self, ended: TrialEnd, caller: LLMCaller) -> bool:
        self.ended.append(ended)
        self.done = 0
        return ended.trial == 0


class RetryingWalkPolicy:
    def __init__(self) -> None:
        self.runs: list[RetryingWalkRun] = []

    def begin(self, setup: EpisodeSetup) -> RetryingWalkRun:
        self.runs.append(RetryingWalkRun())
        return self.runs[-1]


def test_a_retrying_policy_runs_a_second_trial_from_the_reset_phone(tmp_path: Path) -> None:
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    policy = RetryingWalkPolicy()
    register(Method("toy-retry", policy, "walks a fixed plan twice", Family("toy", "Toy"), Variant("retry", "(retry)")))
    try:
        device = SimDevice()
        result = run_episode_sync(EpisodeConfig(GOAL, "toy-retry", grounder="hybrid", screenshots=False), device,
                                  ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    finally:
        unregister("toy-retry")
    assert result.stop_reason is StopReason.DONE and result.steps == 6
    t = read_trajectory(result.directory)
    assert [s.trial for s in t.steps] == [0, 0, 0, 1, 1, 1] and [s.index for s in t.steps] == list(range(6))
    assert [(r.trial, r.steps, r.stop_reason, r.again) for r in t.trials] == [
        (0, 3, StopReason.DONE, True), (1, 6, StopReason.DONE, False)]
    assert t.trials[0].reset and not t.trials[1].reset
    assert main(["show", str(result.directory)]) == 0
    assert "<h2>Step 3 (trial 2)</h2>" in (result.directory / "episode.html").read_text(encoding="utf-8")
    # The second trial starts from the phone's start state, so its first step sees the home screen again.
    assert t.steps[3].description == t.steps[0].description and isinstance(t.steps[3].action, OpenApp)
    [run] = policy.runs
    assert [(e.trial, e.steps, e.verdict.reason) for e in run.ended] == [(0, 3, StopReason.DONE),
                                                                       (1, 3, StopReason.DONE)]


class TestToyPolicy(PolicyContract):
    def make_policy(self) -> WalkPolicy:
        return WalkPolicy()
