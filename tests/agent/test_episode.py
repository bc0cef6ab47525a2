"""The episode loop with the in-process scripted model: stop rules, concurrency, trajectories."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from latent_agent.agent.episode import MAX_GOAL_CHARS, NO_ACTION, EpisodeConfig, run_episode, run_episode_sync
from latent_agent.agent.latent_state.selection import UNKNOWN
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.trajectory import SCHEMA_VERSION, StopReason, StopRule, read_trajectory
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError, DeviceConnectionError, InputError, LLMRequestError, OutputPathError
from latent_agent.grounder.actions import Click
from latent_agent.llm.accounting import Accountant
from latent_agent.llm.budget import Budget
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

ROAMING = "Turn off data roaming"


def _oracle(**kwargs: object) -> ScriptedModel:
    return ScriptedModel(responder=DemoOracle(), **kwargs)  # type: ignore[arg-type]


def test_zero_shot_minus_completes_and_writes_every_step(tmp_path: Path) -> None:
    device = SimDevice()
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-"), device, _oracle(), tmp_path / "ep")
    assert result.stop_reason is StopReason.DONE
    assert device.state.settings.network.roaming is False
    t = read_trajectory(result.directory)
    assert t.end is not None and t.end.stop_reason is StopReason.DONE and len(t.steps) == result.steps == 5
    assert t.header.normalized_goal == result.normalized_goal == "Turn off data roaming."
    assert [c.purpose for c in t.header.setup_calls] == ["normalize_goal"]
    first = t.steps[0]
    assert (result.directory / first.screen_file).read_bytes().startswith(b"<?xml")
    assert first.screenshot_file is not None and (result.directory / first.screenshot_file).is_file()
    assert latent_of(first) is None and first.selected_step == "Open the Settings app"
    assert first.executed and first.executed_detail.startswith("open_app('Settings')")
    assert [c.purpose for c in first.calls] == ["select", "ground"]
    assert all(c.prompt and c.outputs and c.prompt_tokens > 0 for c in first.calls)
    assert first.timing.total_s >= first.timing.device_s > 0 and first.timing.llm_s > 0
    assert t.steps[-1].selected_step == "Be done." and not t.steps[-1].executed
    assert t.header.stop_rule == "paper" and t.end.stop_rule is StopRule.DONE_IN_ACTION
    assert result.usage.calls == 1 + sum(s.usage.calls for s in t.steps)


def test_plus_agent_runs_the_chain_in_order_and_overlaps_completion_with_grounding(tmp_path: Path) -> None:
    model = _oracle(latency_s=0.03)
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot+", screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    assert result.stop_reason is StopReason.COMPLETED
    t = read_trajectory(result.directory)
    assert t.end is not None and t.end.stop_rule is StopRule.COMPLETION_YES
    steps = t.steps
    # Progression and mistakes run on the first step too (there is no previous action to infer yet).
    assert [c.purpose for c in steps[0].calls][:4] == ["screen_summary", "progression", "mistakes", "select"]
    assert sorted(c.purpose for c in steps[0].calls[4:]) == ["completion", "ground"]
    later = steps[2].calls
    assert sorted(c.purpose for c in later) == sorted(
        ["previous_action", "screen_summary", "progression", "mistakes", "select", "completion", "ground"])
    by = {c.purpose: c for c in later}

    def overlap(a: str, b: str) -> bool:
        x, y = by[a], by[b]
        return x.started_s < y.started_s + y.latency_s and y.started_s < x.started_s + x.latency_s

    def after(a: str, b: str) -> bool:
        return by[a].started_s >= by[b].started_s + by[b].latency_s

    # Completion and grounding depend only on the selected step and run at once. The chain runs in the
    # method's order, each call after the one whose estimate it reads.
    assert overlap("completion", "ground")
    assert after("screen_summary", "previous_action") and after("progression", "screen_summary")
    assert after("mistakes", "progression") and after("select", "mistakes")
    assert after("completion", "select") and after("ground", "select")
    # Time with a call in flight is less than the calls' summed latencies: some ran at once.
    assert steps[2].timing.llm_s < sum(c.latency_s for c in later)
    latent = latent_of(steps[-1])
    assert latent is not None and latent.completion is not None and latent.completion.startswith("Yes")
    assert not steps[-1].executed
    # The numbered list of inferred previous actions is the agent's memory, kept in the trajectory.
    assert latent.inferred_actions == tuple(latent_of(s).previous_action for s in steps[1:] if latent_of(s))
    assert latent.commanded == steps[-2].selected_step


def test_cot_sc_asks_eight_samples_at_once(tmp_path: Path) -> None:
    model = _oracle()
    result = run_episode_sync(EpisodeConfig(ROAMING, "cot-sc-", screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    assert result.stop_reason is StopReason.DONE
    selects = [r for r in model.requests if r.purpose == "select"]
    assert selects and all(r.n == 8 and r.temperature == 0.5 for r in selects)
    step = read_trajectory(result.directory).steps[1]
    assert len(step.samples) == 8 and sum("Answer:" not in s for s in step.samples) == 2
    assert step.selected_step == 'Tap "Network & internet"'
    others = [r for r in model.requests if r not in selects]
    assert all(r.temperature == 0.0 and r.n == 1 for r in others)


def _fixed(answer: str, ground: str):  # type: ignore[no-untyped-def]
    def respond(request: GenerationRequest) -> str:
        if request.purpose == "ground":
            return ground
        if request.purpose == "normalize_goal":
            return "Turn off data roaming."
        return answer
    return respond


def _script(select: list[str], ground: str, other: str = "No."):  # type: ignore[no-untyped-def]
    """Answers each selector request with ``select`` in turn (then its last), the grounder with ``ground``."""
    selects = iter(select)
    last: list[object] = [None, select[0]]

    def respond(request: GenerationRequest) -> str:
        if request.purpose == "ground":
            return ground
        if request.purpose == "normalize_goal":
            return "Turn off data roaming."
        if request.purpose == "select":
            if last[0] is not request:  # every sample of one request gets the same answer
                last[:] = [request, next(selects, last[1])]
            return str(last[1])
        return other
    return respond


@pytest.mark.parametrize("method", ["zero-shot-", "cot-sc-"])
def test_a_minus_agent_answering_you_should_be_done_stops_at_that_step(method: str, tmp_path: Path) -> None:
    select = [" open the Settings app", "You should be done."]
    if method == "cot-sc-":
        select = [f"It is there.\nAnswer: {s.strip()}" for s in select]
    model = ScriptedModel(responder=_script(select, '{"action_type": "open_app", "app_name": "Settings"}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, method, grounder="llm", screenshots=False), SimDevice(),
                              model, tmp_path / "ep")
    t = read_trajectory(result.directory)
    assert result.stop_reason is StopReason.DONE and result.steps == 2, result.detail
    assert t.end is not None and t.end.stop_rule is StopRule.DONE_IN_ACTION
    assert not t.steps[1].executed and t.steps[1].action is None
    assert not any(c.purpose == "ground" for c in t.steps[1].calls)


def test_react_minus_stops_on_done_and_the_strict_rule_is_an_option(tmp_path: Path) -> None:
    react = ScriptedModel(responder=_script([" Settings first.\nAction: Open the Settings app",
                                             " Roaming is off now.\nAction: done."],
                                            '{"action_type": "open_app", "app_name": "Settings"}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, "react-", grounder="llm", screenshots=False), SimDevice(),
                              react, tmp_path / "react")
    assert result.stop_reason is StopReason.DONE and result.steps == 2
    # "Tap Done" stops under the method's substring rule, not under the strict one.
    for rule, stops in (("paper", True), ("strict", False)):
        model = ScriptedModel(responder=_script([' tap "Done"'], '{"action_type": "wait"}'))
        result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", grounder="llm", max_steps=2,
                                                screenshots=False, stop_rule=rule), SimDevice(), model,
                                  tmp_path / rule)
        assert (result.stop_reason is StopReason.DONE) is stops, rule
        t = read_trajectory(result.directory)
        assert t.header.stop_rule == rule and t.end is not None
        assert t.end.stop_rule is (StopRule.DONE_IN_ACTION if stops else None)
    with pytest.raises(ConfigError, match="stop rule"):
        EpisodeConfig(ROAMING, "react-", stop_rule="loose")


@pytest.mark.parametrize("method", ["zero-shot+", "react+"])
def test_a_step_that_could_not_be_grounded_is_still_judged_by_the_previous_action_call(
    method: str, tmp_path: Path
) -> None:
    step = 'Tap "Nowhere"' if method == "zero-shot+" else " It must be here.\nAction: Tap \"Nowhere\""
    model = ScriptedModel(responder=_script([step], '{"action_type": "click", "x": 5000, "y": 5000}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, method, grounder="llm", max_steps=2, screenshots=False),
                              SimDevice(), model, tmp_path / "ep")
    first, second = read_trajectory(result.directory).steps
    assert first.grounding_error is not None and not first.executed
    asked = [c for c in second.calls if c.purpose == "previous_action"]
    assert len(asked) == 1 and 'The action I say I performed: Tap "Nowhere"' in asked[0].prompt
    assert first.description in asked[0].prompt and second.description in asked[0].prompt
    assert latent_of(second) is not None and latent_of(second).commanded == 'Tap "Nowhere"'
    assert latent_of(second).previous_step_error == first.grounding_error
    # The model's own estimate goes on into the chain; no fixed text replaces it.
    assert latent_of(second).previous_action == "No." and latent_of(second).inferred_actions == ("No.",)
    assert not any("Nothing was done" in c.prompt for c in second.calls)


def test_the_minus_history_keeps_a_commanded_step_that_could_not_be_grounded(tmp_path: Path) -> None:
    model = ScriptedModel(responder=_script([' tap "Nowhere"'], '{"action_type": "click", "x": 5000, "y": 5000}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", grounder="llm", max_steps=2,
                                            screenshots=False), SimDevice(), model, tmp_path / "ep")
    second = read_trajectory(result.directory).steps[1]
    select = next(c for c in second.calls if c.purpose == "select")
    assert '1) Tap "Nowhere"\n\n' in select.prompt


def test_three_identical_actions_stop_the_episode(tmp_path: Path) -> None:
    model = ScriptedModel(responder=_fixed("Scroll down", '{"action_type": "scroll", "direction": "down"}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", grounder="llm", screenshots=False), SimDevice(),
                              model,
                              tmp_path / "ep")
    assert result.stop_reason is StopReason.REPEATED_ACTIONS and result.steps == 3


def test_max_steps_and_grounding_errors_are_recorded_not_tapped(tmp_path: Path) -> None:
    device = SimDevice()
    taps: list[tuple[int, int]] = []
    original = device.tap
    device.tap = lambda x, y: (taps.append((x, y)), original(x, y))[1]  # type: ignore[method-assign]
    model = ScriptedModel(responder=_fixed('Tap "Nowhere"', '{"action_type": "click", "x": 540, "y": 1000}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", grounder="llm", max_steps=2, screenshots=False),
                              device,
                              model, tmp_path / "ep")
    assert result.stop_reason is StopReason.MAX_STEPS and result.steps == 2
    step = read_trajectory(result.directory).steps[0]
    assert step.action is None and not step.executed and taps == []
    assert step.grounding_error is not None and "not on any element" in step.grounding_error
    assert [c.purpose for c in step.calls] == ["select", "ground", "ground"]


def test_budget_exhaustion_stops_with_its_reason(tmp_path: Path) -> None:
    budget = Budget(max_calls=8)
    accountant = Accountant()
    # The client applies the budget and the accountant; the episode attributes its calls.
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot+", screenshots=False), SimDevice(),
                              _oracle(budget=budget, accountant=accountant), tmp_path / "ep")
    assert result.stop_reason is StopReason.BUDGET_EXHAUSTED and "budget" in result.detail
    assert budget.state().calls == 8 and len(accountant.records()) == 8
    assert {r.episode for r in accountant.records()} == {"ep"}
    t = read_trajectory(result.directory)
    assert t.end is not None and t.end.stop_reason is StopReason.BUDGET_EXHAUSTED and len(t.steps) == 1


class _FlakyPhone(SimDevice):
    def __init__(self) -> None:
        super().__init__()
        self.hierarchies = 0

    def hierarchy(self):  # type: ignore[no-untyped-def]
        self.hierarchies += 1
        if self.hierarchies == 3:
            raise DeviceConnectionError("adb connection lost")
        return super().hierarchy()


def test_device_and_llm_failures_end_with_a_reason(tmp_path: Path) -> None:
    result = run_episode_sync(EpisodeConfig(ROAMING, "react-", screenshots=False), _FlakyPhone(), _oracle(),
                              tmp_path / "a")
    assert result.stop_reason is StopReason.DEVICE_ERROR and "adb connection lost" in result.detail
    assert result.steps == 2
    model = ScriptedModel(["Turn off data roaming.", LLMRequestError("prompt too long")])
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", screenshots=False), SimDevice(), model,
                              tmp_path / "b")
    assert result.stop_reason is StopReason.LLM_ERROR and "prompt too long" in result.detail
    failed = read_trajectory(tmp_path / "b")
    assert failed.end is not None and failed.steps == ()


def test_an_interrupted_run_keeps_its_finished_steps(tmp_path: Path) -> None:
    async def main() -> None:
        model = _oracle(latency_s=0.02)
        seen: list[int] = []
        task = asyncio.ensure_future(run_episode(
            EpisodeConfig(ROAMING, "zero-shot+", screenshots=False), SimDevice(), model, tmp_path / "ep",
            on_step=lambda s: seen.append(s.index)))
        while len(seen) < 2:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    t = read_trajectory(tmp_path / "ep")
    assert len(t.steps) >= 2 and t.end is not None and t.end.stop_reason is StopReason.INTERRUPTED
    # A crash (no end record, a torn last line) still reads back as unfinished with its steps.
    path = tmp_path / "ep" / "trajectory.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][:20])
    crashed = read_trajectory(tmp_path / "ep")
    assert crashed.end is None and len(crashed.steps) == len(t.steps)


def test_config_is_checked_and_episodes_are_never_overwritten(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown method .few-shot.; did you mean zero-shot- or zero-shot\+\?"):
        EpisodeConfig(ROAMING, "few-shot")
    with pytest.raises(ConfigError, match="grounder"):
        EpisodeConfig(ROAMING, "react+", grounder="magic")
    with pytest.raises(ConfigError, match="max_steps"):
        EpisodeConfig(ROAMING, "react+", max_steps=0)
    run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", screenshots=False), SimDevice(), _oracle(),
                     tmp_path / "ep")
    with pytest.raises(InputError, match="refusing to overwrite"):
        run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-"), SimDevice(), _oracle(), tmp_path / "ep")


def test_hybrid_grounder_saves_model_calls(tmp_path: Path) -> None:
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", grounder="hybrid", screenshots=False),
                              SimDevice(), _oracle(), tmp_path / "ep")
    assert result.stop_reason is StopReason.DONE
    steps = read_trajectory(result.directory).steps
    assert all(s.grounder == "rule" for s in steps if s.executed)
    assert not any(c.purpose == "ground" for s in steps for c in s.calls)
    assert steps[3].action == Click(297, 775)
    raw = json.loads((result.directory / "trajectory.jsonl").read_text().splitlines()[2])
    assert raw["schema_version"] == SCHEMA_VERSION and raw["grounder"] == "rule"



def test_an_existing_episode_is_refused_before_any_model_call(tmp_path: Path) -> None:
    run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-", max_steps=1, screenshots=False), SimDevice(), _oracle(),
                     tmp_path / "ep")
    before = (tmp_path / "ep" / "trajectory.jsonl").read_bytes()
    model = _oracle()
    with pytest.raises(OutputPathError, match="refusing to overwrite"):
        run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-"), SimDevice(), model, tmp_path / "ep")
    assert model.requests == () and (tmp_path / "ep" / "trajectory.jsonl").read_bytes() == before
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputPathError, match="cannot create the episode directory"):
        run_episode_sync(EpisodeConfig(ROAMING, "zero-shot-"), SimDevice(), model, tmp_path / "file")
    assert model.requests == ()


def test_a_goal_longer_than_the_limit_is_refused() -> None:
    EpisodeConfig("x" * MAX_GOAL_CHARS, "zero-shot-")
    with pytest.raises(ConfigError, match="10,000 characters long; at most 2,000"):
        EpisodeConfig("x" * 10_000, "zero-shot-")


class _BrokenTouch(SimDevice):
    def tap(self, x: int, y: int) -> None:
        raise DeviceConnectionError("adb connection lost during tap")


def test_a_device_failure_while_acting_is_recorded_with_its_step(tmp_path: Path) -> None:
    result = run_episode_sync(EpisodeConfig(ROAMING, "zero-shot+", screenshots=False), _BrokenTouch(), _oracle(),
                              tmp_path / "ep")
    assert result.stop_reason is StopReason.DEVICE_ERROR and "during tap" in result.detail
    t = read_trajectory(result.directory)
    last = t.steps[-1]
    assert last.selected_step == 'Tap "Network & internet"' and last.action is not None and not last.executed
    assert last.execution_error == "DeviceConnectionError: adb connection lost during tap"
    assert t.end is not None and t.end.usage.calls == 1 + sum(s.usage.calls for s in t.steps)


def test_an_interruption_counts_the_calls_of_the_step_in_progress(tmp_path: Path) -> None:
    model = _oracle(latency_s=0.02)

    async def main() -> None:
        steps: list[int] = []
        task = asyncio.ensure_future(run_episode(
            EpisodeConfig(ROAMING, "zero-shot+", screenshots=False), SimDevice(), model, tmp_path / "ep",
            on_step=lambda s: steps.append(len(model.requests))))
        while not steps:
            await asyncio.sleep(0.002)
        # Interrupt step 1 once its first two calls (previous action, screen summary) are answered.
        while len(model.requests) < steps[0] + 2:
            await asyncio.sleep(0.002)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    t = read_trajectory(tmp_path / "ep")
    assert t.end is not None and t.end.stop_reason is StopReason.INTERRUPTED and len(t.steps) == 1
    # Every answered call counts: goal normalization, step 0, and those of the unfinished step 1.
    assert t.end.usage.calls == len(model.requests) >= 1 + t.steps[0].usage.calls + 2


@pytest.mark.parametrize("method", ["react-", "react+"])
def test_an_answer_without_an_action_is_recorded_as_unknown_and_nothing_is_grounded(
        method: str, tmp_path: Path) -> None:
    model = ScriptedModel(responder=_script([" I am not sure what this screen is."], '{"action_type": "wait"}'))
    result = run_episode_sync(EpisodeConfig(ROAMING, method, max_steps=1, screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    (step,) = read_trajectory(result.directory).steps
    assert step.selected_step == UNKNOWN and step.grounding_error == NO_ACTION
    assert not step.executed and step.action is None
    assert "ground" not in [c.purpose for c in step.calls]
