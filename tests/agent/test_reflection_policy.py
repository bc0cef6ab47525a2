"""Staged planning with structured reflection: its parsers, the demo playing it, and a failed trial recovered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.hidden_elements import ElementSignature
from latent_agent.agent.methods import Family, Method, Variant, register, unregister
from latent_agent.agent.reflection.policy import (
    CORRECT,
    INCOMPLETE,
    STAGE_CAP,
    ReflectionPolicy,
    ReflectionState,
    Suggestion,
    parse_plan,
    parse_reflection,
    target_of,
)
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.llm.types import GenerationRequest
from tests.agent.policy_contract import PolicyContract

GOAL = "Turn off data roaming"
SOLUTION = ["Open the Settings app", 'Tap "Network & internet"', 'Tap "SIMs"', 'Tap "Roaming"']


def test_every_plan_holds_at_most_the_stage_cap_one_ending_in_done_too() -> None:
    steps = [f'Tap "Box {i}"' for i in range(STAGE_CAP + 3)]
    assert parse_plan("\n".join(steps)) == tuple(steps[:STAGE_CAP])
    assert parse_plan("\n".join([*steps, "DONE"])) == tuple(steps[:STAGE_CAP])


def test_both_prompts_carry_the_goal_as_the_task_gave_it_and_the_tasks_name(tmp_path: Path) -> None:
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    register(Method("test-reflection-goal", ReflectionPolicy(trials=3), "goal under test",
                    Family("test-reflection", "Reflection"), Variant("goal", "(goal)")))
    given = "turn off data roaming"  # the loop's rephrasing is "Turn off data roaming."
    client = ScriptedModel(responder=_wrong_second_plan())
    try:
        result = run_episode_sync(EpisodeConfig(given, "test-reflection-goal", grounder="llm", screenshots=False,
                                                task_id="settings_roaming_off"), SimDevice(), client, tmp_path / "ep")
    finally:
        unregister("test-reflection-goal")
    assert result.normalized_goal == "Turn off data roaming."
    asked = [r for r in client.requests if r.purpose in ("plan", "reflect")]
    assert {r.purpose for r in asked} == {"plan", "reflect"}
    for request in asked:
        assert request.inputs["goal"] == given and request.inputs["task_name"] == "settings_roaming_off"
        assert f"task: {given}\n" in request.prompt.replace("task was:", "task:")
        assert '"settings_roaming_off"' in request.prompt and "Turn off data roaming." not in request.prompt


def test_a_plan_is_its_lines_without_bullets_numbers_or_blanks() -> None:
    assert parse_plan('1. Tap "Name"\n\n- Type "Bob"\n* Press enter\n') == ('Tap "Name"', 'Type "Bob"', "Press enter")
    assert parse_plan("DONE") == ("DONE",) and parse_plan(" done.\nTap \"x\"") == ("DONE",)
    assert parse_plan('Tap "A"\nDONE\nTap "B"') == ('Tap "A"',)
    assert parse_plan('Tap "A"\n[eod]\nTap "B"') == ('Tap "A"',)
    assert parse_plan("") == ()


def test_a_reflection_is_the_first_index_and_the_words_after_you_should() -> None:
    assert parse_reflection(' For action index=2, you should tap "Network & internet".\nMore.') == \
        Suggestion(1, 'tap "Network & internet"')
    assert parse_reflection("index=3 was wrong. For action index=5, you should go back.") == Suggestion(2, "go back")
    for bad in ("You should go back.", "For action index=0, you should go back.", "For action index=2, you should"):
        with pytest.raises(UnparsableAnswer):
            parse_reflection(bad)


def test_a_tap_is_keyed_by_its_label() -> None:
    assert target_of('Tap "Dark theme"') == "Dark theme" and target_of('Type "Bob"') is None
    assert target_of("Go back") is None


@pytest.fixture
def reflection() -> Iterator[str]:
    register(Method("test-reflection", ReflectionPolicy(trials=3), "staged planning, structured reflection",
                    Family("test-reflection", "Reflection"), Variant("three trials", "(T=3)")))
    try:
        yield "test-reflection"
    finally:
        unregister("test-reflection")


def _run(method: str, out: Path, responder: object | None = None) -> Path:
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    result = run_episode_sync(EpisodeConfig(GOAL, method, grounder="llm", screenshots=False, max_steps=12),
                              SimDevice(), ScriptedModel(responder=responder or DemoOracle()), out)
    assert result.stop_reason is StopReason.DONE, result.detail
    return result.directory


def test_the_demo_plays_it_in_one_trial(reflection: str, tmp_path: Path) -> None:
    t = read_trajectory(_run(reflection, tmp_path / "ep"))
    assert [s.selected_step for s in t.steps] == [*SOLUTION, "DONE"]
    states = [s.state for s in t.steps]
    assert all(isinstance(s, ReflectionState) for s in states)
    assert [s.status for s in states if isinstance(s, ReflectionState)] == [None] * 4 + [CORRECT]
    plans = [c for s in t.steps for c in s.calls if c.purpose == "plan"]
    assert len(plans) == 5 and not [c for s in t.steps for c in s.calls if c.purpose == "reflect"]
    assert [(r.trial, r.again) for r in t.trials] == [(0, False)]


class _DemoExceptPlan:
    """The demo, except that its call number ``which`` (1-based) of ``purpose`` is answered ``answer``."""

    def __init__(self, which: int, answer: str, purpose: str = "plan") -> None:
        from latent_agent.demo.oracle import DemoOracle

        self.oracle = DemoOracle()
        self.which, self.answer, self.purpose = which, answer, purpose
        self.plans = 0

    def __call__(self, request: GenerationRequest) -> object:
        if request.purpose == self.purpose:
            self.plans += 1
            if self.plans == self.which:
                return self.answer
        return self.oracle(request)


def _wrong_second_plan() -> _DemoExceptPlan:
    """The demo, except that its second plan goes to Display (a wrong screen) instead of the network settings."""
    return _DemoExceptPlan(2, 'Tap "Display"')


def test_a_failed_trial_is_reflected_on_and_the_next_replays_the_prefix_and_takes_the_fix(
        reflection: str, tmp_path: Path) -> None:
    t = read_trajectory(_run(reflection, tmp_path / "ep", _wrong_second_plan()))
    first = [s for s in t.steps if s.trial == 0]
    second = [s for s in t.steps if s.trial == 1]
    assert [s.selected_step for s in first] == ["Open the Settings app", 'Tap "Display"', "stop (incomplete)"]
    assert isinstance(first[-1].state, ReflectionState) and first[-1].state.status == INCOMPLETE
    # One reflection between the trials, naming the second step and the solution's step there.
    [trial0, trial1] = t.trials
    assert trial0.again and trial0.reset and not trial1.again
    [reflect] = [c for c in trial0.calls if c.purpose == "reflect"]
    assert reflect.outputs == ('For action index=2, you should tap "Network & internet".',)
    assert "The index=2 screen:" in reflect.prompt and 'Your index=2 action: Tap "Display"' in reflect.prompt
    # The next trial replays step 1, forces the fix without a planner call, then plans to the end.
    assert [s.selected_step for s in second] == [
        "Open the Settings app", 'tap "Network & internet"', 'Tap "SIMs"', 'Tap "Roaming"', "DONE"]
    sources = [s.state.source for s in second if isinstance(s.state, ReflectionState)]
    assert sources == ["replay", "lesson", "plan", "plan", "status"]
    assert not [c for s in second[:2] for c in s.calls if c.purpose == "plan"]
    assert isinstance(second[-1].state, ReflectionState) and second[-1].state.status == CORRECT
    assert all(s.executed for s in second[:4])
    # A first lesson at a step disables nothing there (the paper's Algorithm 1): the rejected Display row is
    # still on that step's screen, for the policy and for the grounder.
    assert all(not isinstance(s.state, ReflectionState) or not s.state.disabled for s in t.steps)
    assert second[0].description == first[0].description and second[1].description == first[1].description
    [fix_grounding] = [c for c in second[1].calls if c.purpose == "ground"]
    assert '"Display"' in fix_grounding.prompt


def test_a_second_reflection_on_the_same_step_disables_the_failed_fixs_tap(reflection: str, tmp_path: Path) -> None:
    # Trial 1 goes to Display at step 2; the first reflection's fix (Battery) fails there too; the second
    # reflection names step 2 again with another tap: only now is a tap disabled, the one the failed fix made.
    first_fix = _DemoExceptPlan(1, 'For action index=2, you should tap "Battery".', purpose="reflect")
    wrong_plan = _wrong_second_plan()

    def responder(request: GenerationRequest) -> object:
        if request.purpose == "reflect":
            return first_fix(request)
        return wrong_plan(request)

    t = read_trajectory(_run(reflection, tmp_path / "ep", responder))
    trials = [[s for s in t.steps if s.trial == n] for n in range(3)]
    assert [s.selected_step for s in trials[1]] == ["Open the Settings app", 'tap "Battery"', "stop (incomplete)"]
    assert [[c.outputs for c in r.calls if c.purpose == "reflect"] for r in t.trials[:2]] == [
        [('For action index=2, you should tap "Battery".',)],
        [('For action index=2, you should tap "Network & internet".',)]]
    assert [s.selected_step for s in trials[2]] == [
        "Open the Settings app", 'tap "Network & internet"', 'Tap "SIMs"', 'Tap "Roaming"', "DONE"]
    disabled = [s.state.disabled for s in t.steps if isinstance(s.state, ReflectionState)]
    # Disabled at that one step of the last trial, and nowhere else.
    assert [d for d in disabled if d] == [('LinearLayout "Battery"',)]
    fixed = trials[2][1].state
    assert isinstance(fixed, ReflectionState) and fixed.disabled == ('LinearLayout "Battery"',)
    # The failed fix's element (the Battery row) is gone from that step's screen in the last trial, for the
    # policy and for the grounder; the same screen showed it before. The Display row is not disabled.
    before, after = trials[1][1].description.splitlines(), trials[2][1].description.splitlines()
    assert [line for line in before if line not in after] == ['  a clickable group with the text "Battery"']
    assert len(before) == len(after) + 1
    assert any(line.startswith('  a clickable group with the texts "Display"') for line in after)
    [failed_grounding] = [c for c in trials[1][1].calls if c.purpose == "ground"]
    [fix_grounding] = [c for c in trials[2][1].calls if c.purpose == "ground"]
    assert '"Battery"' in failed_grounding.prompt and '"Battery"' not in fix_grounding.prompt
    # Every other step's screen is shown as observed.
    assert trials[2][0].description == trials[0][0].description


def test_one_trial_means_no_reflection(tmp_path: Path) -> None:
    register(Method("test-reflection-t1", ReflectionPolicy(trials=1), "one trial",
                    Family("test-reflection", "Reflection"), Variant("one trial", "(T=1)")))
    try:
        from latent_agent.device.sim.device import SimDevice
        from latent_agent.llm.scripted import ScriptedModel

        result = run_episode_sync(EpisodeConfig(GOAL, "test-reflection-t1", grounder="llm", screenshots=False),
                                  SimDevice(), ScriptedModel(responder=_wrong_second_plan()), tmp_path / "ep")
    finally:
        unregister("test-reflection-t1")
    t = read_trajectory(result.directory)
    assert {s.trial for s in t.steps} == {0} and t.steps[-1].selected_step == "stop (incomplete)"
    assert not [c for r in t.trials for c in r.calls if c.purpose == "reflect"]


class TestReflectionPolicy(PolicyContract):
    def make_policy(self) -> ReflectionPolicy:
        return ReflectionPolicy(trials=3)


@pytest.mark.parametrize("method", ["reflection", "reflection-t1", "reflection-t5"])
def test_run_with_the_demo_on_the_sim(method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli import main

    out = tmp_path / "ep"
    code = main(["run", GOAL, "--device", "sim", "--llm", "demo", "--method", method, "--no-screenshots",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    t = read_trajectory(out)
    assert t.header.method == method and t.end is not None and t.end.stop_reason is StopReason.DONE
    assert [s.selected_step for s in t.steps] == [*SOLUTION, "DONE"]
    assert main(["show", str(out)]) == 0
    assert "<dt>source</dt><dd>plan</dd>" in (out / "episode.html").read_text(encoding="utf-8")


def test_a_lesson_clears_later_ones_a_second_one_disables_the_failed_tap_and_a_repeated_fix_ends_the_retries(
        ) -> None:
    from latent_agent.agent.calls import LLMCaller
    from latent_agent.agent.observe import observe
    from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, TrialEnd, Verdict
    from latent_agent.agent.trajectory import StopRule
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    device = SimDevice()
    obs = observe(device, dict(device.launcher_apps()), screenshot=False)
    client = ScriptedModel(['For action index=3, you should tap "Brightness".',
                            'For action index=3, you should tap "Screen timeout".',
                            'For action index=3, you should go back.',
                            'For action index=2, you should tap "Network & internet".',
                            'For action index=2, you should tap "Network & internet".'])
    caller = LLMCaller(client, episode_id="unit")
    run = ReflectionPolicy(trials=6).begin(EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, 10))
    capped = Verdict(StopReason.MAX_STEPS, "reached the step limit")

    def trial(*steps: str) -> None:
        for step in steps:
            label = target_of(step)
            target = ElementSignature("android.widget.LinearLayout", "", label) if label is not None else None
            run.record(Outcome(obs, Decision(step), None, True, None, target))

    async def again(index: int) -> bool:
        return await run.again(TrialEnd(index, capped, 3), caller)

    def row(label: str) -> ElementSignature:
        return ElementSignature("android.widget.LinearLayout", "", label)

    trial("Open the Settings app", 'Tap "Display"', 'Tap "Dark theme"')
    assert client.run_sync(again(0))
    # A first lesson at step 2: the fix is forced there, and nothing is disabled (the paper's Algorithm 1).
    assert {j: lesson.fix for j, lesson in run.lessons.items()} == {2: 'tap "Brightness"'}
    assert run.disabled == {}
    assert run.replay == ("Open the Settings app", 'Tap "Display"')
    assert "You took too many steps" in client.requests[-1].prompt

    trial("Open the Settings app", 'Tap "Display"', 'tap "Brightness"', 'Tap "Adaptive brightness"')
    assert client.run_sync(again(1))
    # A second lesson at step 2 whose fix taps another element: the failed fix's tap is disabled there.
    assert {j: lesson.fix for j, lesson in run.lessons.items()} == {2: 'tap "Screen timeout"'}
    assert run.disabled == {2: {row("Brightness")}}

    trial("Open the Settings app", 'Tap "Display"', 'tap "Screen timeout"', 'Tap "30 seconds"')
    assert client.run_sync(again(2))
    # A third lesson at step 2 that is no tap disables nothing more (old and new must both be clicks).
    assert {j: lesson.fix for j, lesson in run.lessons.items()} == {2: "go back"}
    assert run.disabled == {2: {row("Brightness")}}

    trial("Open the Settings app", 'Tap "Display"', "go back", 'Tap "Apps"')
    assert client.run_sync(again(3))
    # The lesson for step 2 came from a trace that step 1 now changes: it and its disabled tap are gone, and
    # step 1's first lesson disables nothing.
    assert {j: lesson.fix for j, lesson in run.lessons.items()} == {1: 'tap "Network & internet"'}
    assert run.disabled == {}
    assert run.replay == ("Open the Settings app",)

    trial("Open the Settings app", 'tap "Network & internet"', 'Tap "Calls & SMS"')
    # The same fix again would force the trace that just failed: no further trial.
    assert not client.run_sync(again(4))
    assert [h.status for h in run.history] == ["step cap"] * 5


def test_the_replay_stops_where_the_reset_phone_shows_another_screen() -> None:
    from latent_agent.agent.calls import LLMCaller
    from latent_agent.agent.execute import execute
    from latent_agent.agent.observe import Observation, observe
    from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, Phases, StepInput, TrialEnd, Verdict
    from latent_agent.agent.trajectory import StopRule
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.grounder.actions import OpenApp
    from latent_agent.llm.scripted import ScriptedModel

    device = SimDevice()
    apps = dict(device.launcher_apps())
    home = observe(device, apps, screenshot=False)
    execute(OpenApp(app_name="Settings"), device, home.tree)
    settings = observe(device, apps, screenshot=False)
    client = ScriptedModel(['For action index=2, you should tap "Network & internet".'], responder=DemoOracle())
    caller = LLMCaller(client, episode_id="unit")
    run = ReflectionPolicy(trials=3).begin(EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, 10))
    run.record(Outcome(home, Decision("Open the Settings app"), None, True, None))
    run.record(Outcome(settings, Decision('Tap "Display"'), None, True, None))
    assert client.run_sync(run.again(TrialEnd(0, Verdict(StopReason.DONE, "stopped"), 2), caller))

    async def first_step(obs: Observation) -> Decision:
        return await run.decide(StepInput(0, obs, True, caller, Phases()))

    # The same start screen: the step is replayed without a call.
    replayed = client.run_sync(first_step(home))
    assert replayed.step == "Open the Settings app" and isinstance(replayed.state, ReflectionState)
    assert replayed.state.source == "replay" and client.requests[-1].purpose == "reflect"
    # Another start screen: the replay is dropped and the step is planned on that screen.
    planned = client.run_sync(first_step(settings))
    assert isinstance(planned.state, ReflectionState) and planned.state.source == "plan"
    assert client.requests[-1].purpose == "plan" and run.replay == ()


def test_the_demo_plans_the_solution_steps_of_this_screen_and_reflects_on_the_first_deviation() -> None:
    from latent_agent.demo.oracle import DemoOracle

    oracle = DemoOracle()

    def ask(purpose: str, **inputs: object) -> object:
        return oracle(GenerationRequest(prompt="", purpose=purpose, inputs=inputs))

    home = 'a group\n  a text "Settings"\n  a text "Chrome"'
    assert ask("plan", goal=GOAL, description=home, actions=[]) == "Open the Settings app"
    assert ask("plan", goal=GOAL, description=home, actions=SOLUTION) == "DONE"
    assert ask("plan", goal=GOAL, description=home, actions=["Open the Settings app", 'Tap "Display"']) == ""
    chrome = 'a group\n  a text box with the hint "Search or type URL"'
    assert ask("plan", goal="Open shop.example.com in Chrome", description=chrome,
               actions=["Open the Chrome app"]) == 'Tap "Search or type URL"\nType "shop.example.com"\nPress enter'
    assert ask("reflect", goal=GOAL, actions=["Open the Settings app", 'Tap "Display"', 'Tap "Dark theme"']) == \
        'For action index=2, you should tap "Network & internet".'
    assert ask("reflect", goal=GOAL, actions=SOLUTION[:2]) == 'For action index=3, you should tap "SIMs".'
    assert ask("reflect", goal=GOAL, actions=SOLUTION) == 'For action index=4, you should tap "Roaming".'


def _early_done() -> _DemoExceptPlan:
    """The demo, except that its fourth plan (on the SIM's page, before tapping Roaming) says DONE."""
    return _DemoExceptPlan(4, "DONE")


@pytest.mark.parametrize("feedback", ["self", "check"])
def test_the_task_check_as_feedback_catches_a_premature_done_that_the_agent_believes(
        feedback: str, tmp_path: Path) -> None:
    from latent_agent.benchmarks.sim_tasks import load_suite
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    task = next(t for t in load_suite() if t.id == "settings_roaming_off")
    device = SimDevice()
    checks: list[bool] = []

    def check(phone: object) -> bool:
        assert phone is device
        checks.append(task.succeeded(device.state))
        return checks[-1]

    name = f"test-reflection-{feedback}"
    register(Method(name, ReflectionPolicy(trials=3, feedback=feedback), "feedback under test",
                    Family("test-reflection", "Reflection"), Variant(feedback, f"({feedback})")))
    try:
        result = run_episode_sync(EpisodeConfig(GOAL, name, grounder="llm", screenshots=False, trial_check=check),
                                  device, ScriptedModel(responder=_early_done()), tmp_path / "ep")
    finally:
        unregister(name)
    t = read_trajectory(result.directory)
    reflections = [c for r in t.trials for c in r.calls if c.purpose == "reflect"]
    if feedback == "self":
        # The agent believes its DONE: one trial, no reflection, and the task is not done.
        assert checks == [False] and not reflections and {s.trial for s in t.steps} == {0}
        assert [r.checked for r in t.trials] == [False]
        return
    assert checks == [False, True] and [r.checked for r in t.trials] == [False, True]
    [reflect] = reflections
    assert "The task was not completed." in reflect.prompt  # the check's verdict, not the agent's DONE
    assert {s.state.feedback for s in t.steps if isinstance(s.state, ReflectionState)} == {"check"}
    assert reflect.outputs == ('For action index=4, you should tap "Roaming".',)
    assert [s.selected_step for s in t.steps if s.trial == 1] == [*SOLUTION[:3], 'tap "Roaming"', "DONE"]


def test_bad_options_are_refused() -> None:
    from latent_agent.errors import ConfigError

    with pytest.raises(ConfigError, match="trials must be >= 1"):
        ReflectionPolicy(trials=0)
    with pytest.raises(ConfigError, match="unknown feedback 'oracle'"):
        ReflectionPolicy(feedback="oracle")


@pytest.mark.parametrize(("last", "status"), [("Go to the home screen", None), ('Tap "Apps"', "cycle")])
def test_coming_back_to_a_screen_is_a_cycle_unless_the_step_went_home_or_back(last: str, status: str | None) -> None:
    from latent_agent.agent.calls import LLMCaller
    from latent_agent.agent.execute import execute
    from latent_agent.agent.observe import observe
    from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, Phases, StepInput
    from latent_agent.agent.trajectory import StopRule
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.grounder.actions import OpenApp
    from latent_agent.llm.scripted import ScriptedModel

    device = SimDevice()
    apps = dict(device.launcher_apps())
    home = observe(device, apps, screenshot=False)
    execute(OpenApp(app_name="Settings"), device, home.tree)
    settings = observe(device, apps, screenshot=False)
    client = ScriptedModel(['Tap "Network & internet"'])
    run = ReflectionPolicy(trials=3).begin(EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, 10))
    run.record(Outcome(home, Decision("Open the Settings app"), None, True, None))
    run.record(Outcome(settings, Decision(last), None, True, None))
    decision = client.run_sync(run.decide(StepInput(2, home, True, LLMCaller(client, episode_id="unit"), Phases())))
    assert isinstance(decision.state, ReflectionState) and decision.state.status == status
    assert (decision.stop is not None) == (status is not None)


def test_the_sweep_hands_the_sim_tasks_check_to_the_trials() -> None:
    from latent_agent.agent.methods import get_method
    from latent_agent.benchmarks.launch import trial_check
    from latent_agent.benchmarks.suite import load_named_suite
    from latent_agent.device.sim.device import SimDevice

    suite = load_named_suite("sim")
    task = suite.task("settings_roaming_off")
    device = SimDevice()
    check = trial_check(get_method("reflection-check"), device.capabilities, task.sim_task)
    assert check is not None and check(device) is False
    device.state.settings.network.roaming = False
    assert check(device) is True


@pytest.mark.parametrize(("goal", "device", "says"), [
    (GOAL, "adb:emulator-5554", "runs only on --device sim (not adb:emulator-5554)"),
    ("Order a pizza", "sim", "no sim task has the goal 'Order a pizza'"),
])
def test_run_refuses_task_check_feedback_where_the_check_cannot_run(
        goal: str, device: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli.main import main

    out = tmp_path / "ep"
    assert main(["run", goal, "--method", "reflection-check", "--device", device, "--llm", "scripted:echo",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err
    assert not out.exists()


@pytest.mark.parametrize("method", ["reflection-check-t1", "reflection-check", "reflection-check-t5"])
def test_run_hands_the_goals_sim_task_check_to_the_trials(method: str, tmp_path: Path) -> None:
    from latent_agent.cli.main import main

    out = tmp_path / "ep"
    assert main(["run", GOAL, "--method", method, "--device", "sim", "--llm", "demo",
                 "--no-screenshots", "--out", str(out)]) == 0
    t = read_trajectory(out)
    assert [r.checked for r in t.trials] == [True]
    assert {s.state.feedback for s in t.steps if isinstance(s.state, ReflectionState)} == {"check"}


def test_the_papers_oracle_feedback_is_registered_at_every_published_trial_budget() -> None:
    from latent_agent.agent.methods import METHODS

    checked = {m.policy.trials: name for name, m in METHODS.items()
               if isinstance(m.policy, ReflectionPolicy) and m.needs_task_check}
    assert checked == {1: "reflection-check-t1", 3: "reflection-check", 5: "reflection-check-t5"}
    assert len({METHODS[name].label for name in checked.values()}) == 3  # three rows of the report's T-table


@pytest.mark.parametrize(("suite", "devices", "says"), [
    ("sim", "sim,adb:emulator-5554", "runs only on sim devices (not adb)"),
    ("paper", "sim", "20 task(s) have none (e.g. aitw-paper-01"),
])
def test_sweep_refuses_task_check_feedback_where_the_check_cannot_run(
        suite: str, devices: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli.main import main

    out = tmp_path / "sweep"
    assert main(["sweep", "--suite", suite, "--methods", "reflection,reflection-check", "--devices", devices,
                 "--llm", "scripted:echo", "--out", str(out), "--no-progress", "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert says in err and "reflection-check" in err and err.count("\n") == 1, err
    assert not out.exists()


def test_sweeping_all_methods_leaves_task_check_feedback_out_where_the_check_cannot_run() -> None:
    from latent_agent.benchmarks.launch import checked_methods

    methods = ("zero-shot+", "reflection", "reflection-check")
    assert checked_methods(methods, False, ["sim", "sim"], []) == (methods, "")
    kept, note = checked_methods(methods, False, ["sim", "adb"], [])
    assert kept == ("zero-shot+", "reflection") and "reflection-check left out" in note and "(not adb)" in note
    kept, note = checked_methods(methods, False, ["sim"], ["aitw-paper-01"])
    assert kept == ("zero-shot+", "reflection") and "1 task(s) have none (e.g. aitw-paper-01)" in note


@pytest.mark.parametrize("redrawn", [True, False])
def test_a_trial_sunk_by_noise_meets_new_noise_in_the_next(redrawn: bool, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from latent_agent.benchmarks.sim_tasks import load_suite
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.device.sim.noise import NoiseConfig
    from latent_agent.llm.scripted import ScriptedModel

    task = next(t for t in load_suite() if t.id == "settings_roaming_off")
    if not redrawn:  # what the phone did before trials drew their own noise: replay the first trial's
        reset = SimDevice.reset
        monkeypatch.setattr(SimDevice, "reset", lambda self, **kw: reset(self, **{**kw, "trial": 0}))
    # With seed 0, some of the reference solution's actions are dropped in the first trial.
    device = SimDevice(seed=0, noise=NoiseConfig(dropped_actions=0.15))
    result = run_episode_sync(EpisodeConfig(task.goal, "reflection-check", grounder="llm", screenshots=False, seed=0,
                                            trial_check=lambda phone: task.succeeded(phone.state)),  # type: ignore[attr-defined]
                              device, ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    t = read_trajectory(result.directory)
    # The demo plays the task's reference solution, so only the noise can sink a trial.
    assert [r.checked for r in t.trials] == ([False, True] if redrawn else [False, False])
    assert ("trial 2's noise" in t.trials[0].reset) is redrawn
    assert task.succeeded(device.state) is redrawn


def test_a_step_that_changed_nothing_where_elements_were_hidden_is_no_change() -> None:
    from latent_agent.agent.calls import LLMCaller
    from latent_agent.agent.hidden_elements import hide_elements
    from latent_agent.agent.observe import observe
    from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, Phases, StepInput
    from latent_agent.agent.trajectory import StopRule
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    device = SimDevice()
    apps = dict(device.launcher_apps())
    home = observe(device, apps, screenshot=False)
    device.open_app("Settings")
    settings = observe(device, apps, screenshot=False)
    display = ElementSignature("android.widget.LinearLayout", "", "Display")
    client = ScriptedModel(['Tap "Apps"'])
    run = ReflectionPolicy(trials=3).begin(EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, 10))
    run.disabled = {1: {display}}
    run.record(Outcome(home, Decision("Open the Settings app"), None, True, None))
    assert run.hidden_elements() == frozenset({display})
    # Step 1 saw the list without the Display row; its tap changed nothing, so step 2 sees the same list whole.
    run.record(Outcome(hide_elements(settings, run.hidden_elements()), Decision('Tap "Battery"'), None, True, None))
    assert run.hidden_elements() == frozenset()
    decision = client.run_sync(run.decide(StepInput(2, settings, True, LLMCaller(client, episode_id="unit"), Phases())))
    assert isinstance(decision.state, ReflectionState) and decision.state.status == "no change"
