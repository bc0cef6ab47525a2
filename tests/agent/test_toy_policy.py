"""A method defined in a test module, with its own call kind, output cap, resource file, option, demo player and report
section, runs through `run`, `show`, `sweep` and `report`.

Nothing outside this file knows the toy: it proves that a new method that makes its own LLM calls and reads its own
file is its package (this module) plus one registry line. The toy reads its plan from a file (``--toy-plan``, a
resource it declares), and before each step asks the model which step of the plan comes next (its call kind
``test_toy_pick``, capped at 24 tokens); the demo stand-in answers those calls with the player registered here, and
the sweep report gets the toy's own table. The hybrid grounder's rules ground the steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from latent_agent import api
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS, Family, Method, Variant, register, unregister
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, TrialEnd, Verdict
from latent_agent.agent.resources import MethodResources, Resource, declare_resource
from latent_agent.agent.trajectory import StopReason, StopRule, read_trajectory, state_kind
from latent_agent.benchmarks import report_sections
from latent_agent.benchmarks.metrics import compute_metrics
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.report_charts import chart_groups
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection, register_section
from latent_agent.benchmarks.report_tables import Table
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.cli import main
from latent_agent.demo import oracle
from latent_agent.demo.oracle_inputs import Inputs
from latent_agent.grounder.actions import NavigateHome, OpenApp
from latent_agent.purposes import call_kind
from tests.agent.policy_contract import PolicyContract

PLAN = ("Open the Settings app", "Go to the home screen")
GOAL = "Turn on dark theme"

# -- the toy's package: its call kind, its resource, its policy, its demo player and its report section ----------

#: The toy's own call kind: the next step of its plan, in words (or "done"), in at most 24 tokens.
PICK = call_kind("test_toy_pick", cap=24, summary="the toy: the next step of its plan, in words")
#: The toy's own file: its plan, one step a line.
PLAN_FILE = declare_resource(Resource("toy_plan", "--toy-plan", "FILE", "the toy's plan: one step a line"))


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
    def __init__(self, plan: Sequence[str]) -> None:
        self.plan = tuple(plan)
        self.done = 0

    async def decide(self, step: StepInput) -> Decision:
        step.phases.add("plan", 0.0)
        answer = await step.caller.ask(PICK, f"Plan: {'; '.join(self.plan)}. Steps done: {self.done}. Next step?",
                                       inputs={"plan": list(self.plan), "done": self.done})
        words = answer.text.strip()
        left = WalkState(max(0, len(self.plan) - self.done - 1), step.screen_changed)
        if words == "done":
            return Decision("done", state=replace(left, left=0),
                            stop=Verdict(StopReason.DONE, "the plan is walked", StopRule.DONE_EXACT))
        return Decision(words, state=left)

    def record(self, outcome: Outcome) -> None:
        self.done += 1


@dataclass(frozen=True)
class WalkPolicy:
    """Walks the plan its file holds (:data:`PLAN_FILE`), asking the model for each next step."""

    plan: tuple[str, ...] = ()

    @property
    def resources_used(self) -> frozenset[str]:
        return frozenset({PLAN_FILE.name})

    def configured(self, resources: MethodResources) -> WalkPolicy:
        path = resources.path(PLAN_FILE.name)
        return self if path is None else replace(self, plan=tuple(path.read_text(encoding="utf-8").splitlines()))

    def resources_notice(self, resources: MethodResources) -> str:
        return "" if resources.get(PLAN_FILE.name) is not None or self.plan else "no --toy-plan, so it walks nowhere"

    def begin(self, setup: EpisodeSetup) -> WalkRun:
        return WalkRun(self.plan)


def _pick(inputs: Inputs) -> str:
    """The demo stand-in's answer to the toy's call: the plan's next step, or done."""
    plan, done = inputs.get("plan"), inputs.get("done")
    assert isinstance(plan, list) and isinstance(done, int)
    return str(plan[done]) if done < len(plan) else "done"


def toy_players(find_task: Callable[[str], Task]) -> Mapping[str, Callable[[Inputs], str]]:
    return {PICK: _pick}


def _toy_section(data: ReportInput) -> list[Table]:
    walked = [r for r in data.records if r.method == "toy"]
    if not walked:
        return []
    return [Table("Toy walks", ("Episode", "Steps"), tuple((r.key, str(r.steps)) for r in walked),
                  note="the toy's own table")]


@pytest.fixture
def players(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo stand-in plays the toy's calls (for this test)."""
    monkeypatch.setattr(oracle, "_REGISTERED", [])
    oracle.register_players(toy_players)


@pytest.fixture
def toy(players: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    # The built-in sections are registered (the API imports the report); the toy's is taken away after the test.
    monkeypatch.setattr(report_sections, "_SECTIONS", dict(report_sections._SECTIONS))
    register_section(ReportSection("toy", 95, _toy_section))
    # The one registry line. Paired with zero-shot- without any +/- in its name: the pair comes from the registry.
    register(Method("toy", WalkPolicy(), "walks the plan of its file", Family("toy", "Toy"),
                    Variant("scripted walk", "(scripted walk)"), baseline="zero-shot-"))
    try:
        yield "toy"
    finally:
        unregister("toy")
    assert "toy" not in METHODS


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "inputs" / "plan.txt"
    path.parent.mkdir()
    path.write_text("\n".join(PLAN) + "\n", encoding="utf-8")
    return path


def test_run_then_show(toy: str, plan_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ep"
    code = main(["run", GOAL, "--device", "sim", "--llm", "demo", "--method", toy, "--toy-plan", str(plan_file),
                 "--grounder", "hybrid", "--no-screenshots", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    t = api.load_trajectory(out)
    assert t.header.method == toy and t.end is not None and t.end.stop_reason is StopReason.DONE
    assert [s.selected_step for s in t.steps] == [*PLAN, "done"]
    assert isinstance(t.steps[0].action, OpenApp) and isinstance(t.steps[1].action, NavigateHome)
    assert [s.state for s in t.steps] == [WalkState(1, True), WalkState(0, True), WalkState(0, True)]
    assert all(latent_of(s) is None and "plan" in s.timing.phases for s in t.steps[:2])
    # Its own call kind, asked under its own cap, answered by its own player through the stand-in.
    picks = [c for s in t.steps for c in s.calls if c.purpose == "test_toy_pick"]
    assert len(picks) == 3 and all(c.max_output_tokens == 24 for c in picks)
    assert [c.outputs[0].strip() for c in picks] == [*PLAN, "done"]
    assert main(["show", str(out)]) == 0
    page = (out / "episode.html").read_text(encoding="utf-8")
    assert "<dt>screen changed</dt><dd>True</dd>" in page and "<dt>left</dt><dd>1</dd>" in page
    assert "<dt>phases</dt><dd>observe " in page


def test_its_option_is_offered_and_refused_for_other_methods(toy: str, plan_file: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", GOAL, "--device", "sim", "--llm", "demo", "--method", "zero-shot+", "--toy-plan",
                 str(plan_file), "--out", str(tmp_path / "ep")]) == 2
    err = capsys.readouterr().err
    assert "--toy-plan is for the method(s) toy; none of zero-shot+ reads it" in err and err.count("\n") == 1


def test_sweep_and_report(toy: str, plan_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", "settings_dark_theme", "--methods", f"{toy},zero-shot-",
                 "--devices", "sim", "--llm", "demo", "--grounder", "hybrid", "--toy-plan", str(plan_file),
                 "--out", str(out), "--no-progress", "--no-screenshots"])
    assert code == 0, capsys.readouterr().err
    assert read_manifest(out).resources.to_json() == {"toy_plan": str(plan_file.resolve())}
    records = ResultsLog(out).load()
    assert sorted(r.method for r in records) == [toy, "zero-shot-"]
    assert all(r.status is EpisodeStatus.FINISHED for r in records)
    walked = next(r for r in records if r.method == toy)
    assert walked.steps == 3 and walked.success is False and walked.llm_calls == 4  # its 3 picks, the goal's 1

    metrics = compute_metrics(records, n_resamples=100)
    assert {(t.method, t.baseline, t.reasoning) for t in metrics.tests} == {(toy, "zero-shot-", "toy")}
    groups, series = chart_groups(metrics, "sim")
    assert groups == ["Zero-shot", "Toy"] and series["scripted walk"]["Toy"].method == toy

    assert main(["report", str(out)]) == 0
    md = (out / "report" / "report.md").read_text()
    assert "Toy (scripted walk)" in md and "Zero-shot (no latent state)" in md
    assert f"(episodes/settings_dark_theme__{toy}__s0.html)" in md
    assert "### Toy walks" in md and f"| settings_dark_theme__{toy}__s0 | 3 |" in md


class RetryingWalkRun(WalkRun):
    """Walks the plan, then once more from the reset phone (a stand-in for a method that reflects and retries)."""

    def __init__(self, plan: Sequence[str]) -> None:
        super().__init__(plan)
        self.ended: list[TrialEnd] = []

    async def again(self, ended: TrialEnd, caller: LLMCaller) -> bool:
        self.ended.append(ended)
        self.done = 0
        return ended.trial == 0


class RetryingWalkPolicy:
    def __init__(self) -> None:
        self.runs: list[RetryingWalkRun] = []

    def begin(self, setup: EpisodeSetup) -> RetryingWalkRun:
        self.runs.append(RetryingWalkRun(PLAN))
        return self.runs[-1]


def test_a_retrying_policy_runs_a_second_trial_from_the_reset_phone(players: None, tmp_path: Path) -> None:
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
    @pytest.fixture(autouse=True)
    def _players(self, players: None) -> None:
        """The contract's episodes ask the in-process demo stand-in, which plays the toy's calls."""

    def make_policy(self) -> WalkPolicy:
        return WalkPolicy(plan=PLAN)
