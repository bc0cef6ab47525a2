"""The CAAP policy in the episode loop: the re-query rule (screen change, error, empty queue), the step cap,
termination, grounding element ids without a grounder call, demo selection, the contract, the demo playing it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from latent_agent.agent.caap.demos import Demo, DemoSet, ScriptAction, TaskInfo, load_demos
from latent_agent.agent.caap.policy import CaapPolicy, CaapState
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.methods import CAAP, METHODS, Method, Variant, policy_for, prepare, register, unregister
from latent_agent.agent.policy import Policy
from latent_agent.agent.resources import MethodResources
from latent_agent.agent.trajectory import StopReason, Trajectory, read_trajectory
from latent_agent.cli import main
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError
from latent_agent.grounder.actions import InputText
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest
from tests.agent.policy_contract import PolicyContract

GOAL = "Turn off data roaming"


def _line(k: int, function: str, args: str = "{}") -> str:
    return f"Action_{k}=(Action: functions.{function}, Argument: {args})"


class Script:
    """Answers the goal normalization with the goal and each CAAP call with the next answer; keeps the inputs."""

    def __init__(self, *answers: str | Callable[[dict[str, Any]], str]) -> None:
        self.answers = list(answers)
        self.inputs: list[dict[str, Any]] = []

    def __call__(self, request: GenerationRequest) -> str:
        if request.purpose == "normalize_goal":
            return GOAL
        assert request.purpose == "caap", request.purpose
        self.inputs.append(dict(request.inputs))
        answer = self.answers.pop(0)
        return answer(dict(request.inputs)) if callable(answer) else answer


@pytest.fixture
def method() -> Iterator[Callable[[Policy], str]]:
    names: list[str] = []

    def add(policy: Policy) -> str:
        name = f"test-caap-{len(names)}"
        register(Method(name, policy, "caap under test", CAAP, Variant(f"test {len(names)}", "(test)")))
        names.append(name)
        return name

    yield add
    for name in names:
        unregister(name)


def _run(name: str, script: Script, tmp_path: Path, max_steps: int = 10, task_id: str | None = None) -> Trajectory:
    result = run_episode_sync(EpisodeConfig(GOAL, name, max_steps=max_steps, screenshots=False, task_id=task_id),
                              SimDevice(), ScriptedModel(responder=script), tmp_path / "ep")
    return read_trajectory(result.directory)


def _states(t: Trajectory) -> list[CaapState]:
    states = [s.state for s in t.steps]
    assert all(isinstance(s, CaapState) for s in states)
    return states  # type: ignore[return-value]


def test_queued_actions_on_an_unchanged_screen_need_no_new_call(method: Callable[[Policy], str],
                                                                tmp_path: Path) -> None:
    script = Script("\n".join([_line(2, "wait"), _line(3, "navigate_home"), _line(4, "status",
                                                                                    "{goal_status: complete}")]))
    t = _run(method(CaapPolicy()), script, tmp_path)
    assert len(script.inputs) == 1
    assert [s.source for s in _states(t)] == ["query", "queue", "queue"]
    assert t.end is not None and t.end.stop_reason is StopReason.DONE and "complete" in t.end.detail
    assert [c.purpose for s in t.steps for c in s.calls] == ["caap"]  # no grounder call: ids are grounded here
    assert t.steps[0].grounder == "caap"


def test_a_changed_screen_asks_again_and_drops_the_rest_of_the_queue(method: Callable[[Policy], str],
                                                                     tmp_path: Path) -> None:
    script = Script("\n".join([_line(2, "open_app", '{app_name: "Settings"}'), _line(3, "wait"), _line(4, "wait")]),
                    _line(3, "status", "{goal_status: complete}"))
    t = _run(method(CaapPolicy()), script, tmp_path)
    states = _states(t)
    assert [s.query_reason for s in states] == ["first", "screen changed"]
    assert states[0].queued == (_line(3, "wait"), _line(4, "wait"))
    second = script.inputs[1]
    assert second["next_index"] == 3 and second["history_actions"][-1] == {"name": "open_app",
                                                                            "params": {"app_name": "Settings"}}
    assert "Action_2=(Action: functions.open_app" in second["previous_answer"]


def test_an_error_is_reported_to_the_next_call(method: Callable[[Policy], str], tmp_path: Path) -> None:
    script = Script(_line(2, "click_element", "{element_id: element_999}"),
                    "I am not sure what to do.",
                    _line(4, "status", "{goal_status: complete}"))
    t = _run(method(CaapPolicy()), script, tmp_path)
    assert t.steps[0].grounding_error == "element_999 is not in the element list of the current screen"
    assert not t.steps[0].executed and t.steps[1].grounding_error is not None
    assert "no action line" in t.steps[1].grounding_error
    assert [s.query_reason for s in _states(t)] == ["first", "error", "error"]
    assert script.inputs[1]["last_error"] == "element_999 is not in the element list of the current screen"
    assert "no action line" in script.inputs[2]["last_error"]
    prompt = t.steps[1].calls[0].prompt
    assert "failed: element_999 is not in the element list" in prompt


def test_an_empty_queue_asks_again_and_says_when_nothing_changed(method: Callable[[Policy], str],
                                                                 tmp_path: Path) -> None:
    script = Script(_line(2, "navigate_home"), _line(3, "wait"), _line(4, "status", "{goal_status: complete}"))
    t = _run(method(CaapPolicy()), script, tmp_path)
    assert [s.query_reason for s in _states(t)] == ["first", "queue empty", "queue empty"]
    assert [i["no_change"] for i in script.inputs] == [False, True, False]  # Home on the home screen; a wait is quiet
    assert "produced no change on the screen" in t.steps[1].calls[0].prompt


def test_the_step_cap_ends_the_episode(method: Callable[[Policy], str], tmp_path: Path) -> None:
    many = "\n".join(_line(k, "wait" if k % 2 else "navigate_home") for k in range(2, 9))
    t = _run(method(CaapPolicy(cap_floor=3, cap_limit=3)), Script(many), tmp_path)
    assert t.end is not None and t.end.stop_reason is StopReason.METHOD_CAP and "step cap (3)" in t.end.detail
    assert sum(s.executed for s in t.steps) == 3


@pytest.mark.parametrize(("line", "reason", "detail"), [
    # Infeasible gives the task up; an answer, like "complete", says it is done.
    (_line(2, "status", '{goal_status: infeasible, reason: "no roaming on this phone"}'), StopReason.GAVE_UP,
     "infeasible: no roaming on this phone"),
    (_line(2, "answer", '{text: "It is off"}'), StopReason.DONE, "answered: It is off"),
])
def test_infeasible_and_an_answer_end_the_episode_with_what_they_say(method: Callable[[Policy], str],
                                                                     tmp_path: Path, line: str, reason: StopReason,
                                                                     detail: str) -> None:
    t = _run(method(CaapPolicy()), Script(line), tmp_path)
    assert t.end is not None and t.end.stop_reason is reason and detail in t.end.detail


def test_the_task_is_given_in_its_own_words_not_the_loops_rephrasing(method: Callable[[Policy], str],
                                                                     tmp_path: Path) -> None:
    given = "turn off  data roaming"
    script = Script(_line(2, "status", "{goal_status: complete}"))
    result = run_episode_sync(EpisodeConfig(given, method(CaapPolicy()), screenshots=False), SimDevice(),
                              ScriptedModel(responder=script), tmp_path / "ep")
    assert result.normalized_goal == GOAL  # the loop's rephrasing, kept for the latent-state agents
    assert [i["goal"] for i in script.inputs] == ["turn off  data roaming"]


def test_an_element_id_is_a_tap_at_its_centre_and_typing_taps_the_field_first(method: Callable[[Policy], str],
                                                                              tmp_path: Path) -> None:
    def click_settings(inputs: dict[str, Any]) -> str:
        settings = next(e for e in inputs["elements"] if e["text"] == "Settings")
        search = next(e for e in inputs["elements"] if e["text"] == "Search")
        return "\n".join([_line(2, "type_text", f'{{element_id: {search["id"]}, text: "roaming"}}'),
                          _line(3, "click_element", f'{{element_id: {settings["id"]}}}')])

    script = Script(click_settings, _line(3, "status", "{goal_status: complete}"))
    t = _run(method(CaapPolicy()), script, tmp_path)
    search = next(e for e in script.inputs[0]["elements"] if e["text"] == "Search")
    centre = tuple(int(search[axis].split()[0]) for axis in ("X", "Y"))
    assert t.steps[0].action == InputText("roaming", *centre)
    assert t.steps[0].selected_step == f"type_text \"Search\" ({search['id']}) text='roaming'"


# -- demonstrations ------------------------------------------------------------------------


def _demo(task_id: str, goal: str, family: str | None, steps: int = 3) -> Demo:
    return Demo(task_id, goal, family, (ScriptAction("start"), *(
        ScriptAction("click_element", {"type": "text", "X": "1 [0-2]", "Y": "1 [0-2]", "text": f"step {i}"},
                     reason=f"because {i}") for i in range(steps))))


DEMOS = DemoSet(
    (_demo("roaming", "Turn off data roaming", "network-toggle"), _demo("mobile", "Turn off mobile data",
                                                                       "network-toggle", 7),
     _demo("alarm", "Set an alarm for 6 AM", "alarm", 2), _demo("dark", "Turn on dark theme", "display")),
    (TaskInfo("roaming", "Turn off data roaming", "network-toggle"), TaskInfo("mobile", "Turn off mobile data",
                                                                               "network-toggle"),
     TaskInfo("alarm", "Set an alarm for 6 AM", "alarm"), TaskInfo("dark", "Turn on dark theme", "display")),
)


def test_demos_of_the_same_family_are_chosen_never_the_tasks_own() -> None:
    assert [d.task_id for d in DEMOS.select("Turn off data roaming", "roaming")] == ["mobile"]
    assert [d.task_id for d in DEMOS.select("Turn off data roaming.")] == ["mobile"]  # by goal when no id


def test_every_demo_of_the_task_itself_on_other_instances_is_shown_never_the_instance_evaluated() -> None:
    # A MiniWoB++ task's demonstrations are its train seeds: more than MAX_DEMOS of them, all shown.
    own = tuple(_demo("click-link", f'Click on the link "word{i}".', "click-link") for i in range(5))
    demos = DemoSet((*own, _demo("click-button", 'Click on the "word1" button.', "click-button")))
    chosen = demos.select('Click on the link "word3".', "click-link", limit=3)
    assert [d.goal for d in chosen] == [d.goal for d in own if d.goal != 'Click on the link "word3".']


def test_a_goal_outside_the_suite_gets_the_most_alike_goals_above_the_floor() -> None:
    assert [d.task_id for d in DEMOS.select("Set an alarm for 7 AM")][:1] == ["alarm"]
    assert DEMOS.select("Order a pizza with extra cheese") == ()


def test_the_prompt_shows_demos_with_or_without_reasons_and_the_cap_follows_them(
        method: Callable[[Policy], str], tmp_path: Path) -> None:
    done = _line(2, "status", "{goal_status: complete}")
    full, bare, none = (method(CaapPolicy(demos=DEMOS)), method(CaapPolicy(demos_mode="actions", demos=DEMOS)),
                        method(CaapPolicy(demos_mode="none", demos=DEMOS)))
    prompts = []
    for i, name in enumerate((full, bare, none)):
        t = _run(name, Script(done), tmp_path / str(i), task_id="roaming")
        prompts.append(t.steps[0].calls[0].prompt)
        state = _states(t)[0]
        assert state.demos == ("mobile",) and state.cap == 14  # 2 x the 7 steps of the demo chosen
    assert "DEMO_1" in prompts[0] and 'reason: "because 0"' in prompts[0] and "Turn off mobile data" in prompts[0]
    assert "DEMO_1" in prompts[1] and "because 0" not in prompts[1]
    assert "DEMO_1" not in prompts[2] and "Expert Demonstrations" not in prompts[2]


def test_the_demos_resource_is_read_once_and_a_bad_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "demos.json"
    path.write_text(json.dumps(DEMOS.to_json("sim")), encoding="utf-8")
    caap, plus = METHODS["caap"], METHODS["zero-shot+"]
    given = MethodResources(demos=tmp_path)
    policy = policy_for(caap, given)
    assert isinstance(policy, CaapPolicy) and policy.demos is not None and len(policy.demos.demos) == 4
    assert policy_for(caap, given).demos is policy.demos  # read once per process
    assert load_demos(path).family_of("mobile", "") == "network-toggle"
    # The registry is left as registered: a later run in the same process without --demos shows none, and says so.
    assert isinstance(caap.policy, CaapPolicy) and caap.policy.demos is None
    bare = policy_for(caap, MethodResources())
    assert isinstance(bare, CaapPolicy) and bare.demos is None
    assert prepare([caap, plus], MethodResources()) == (
        "caap: no --demos, so no demonstrations are shown (build them with `latent-agent demos build`)",)
    assert prepare([METHODS["caap-no-demos"]], MethodResources()) == ()
    assert prepare([plus], MethodResources()) == ()
    with pytest.raises(ConfigError, match=r"--demos is for the method.*caap.*none of zero-shot"):
        prepare([plus], given)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "demos.json").write_text('{"schema_version": 99}', encoding="utf-8")
    with pytest.raises(ConfigError, match="schema_version 1"):
        prepare([caap], MethodResources(demos=bad))
    with pytest.raises(ConfigError, match=r"no demos\.json"):
        prepare([caap], MethodResources(demos=tmp_path / "missing"))


# -- the contract and the demo ---------------------------------------------------------------


class TestCaapContract(PolicyContract):
    def make_policy(self) -> Policy:
        return CaapPolicy()


@pytest.mark.parametrize("name", ["caap", "caap-no-cot", "caap-no-rationales", "caap-no-demos", "caap-neither"])
def test_the_demo_plays_every_variant_to_the_end(name: str, tmp_path: Path) -> None:
    out = tmp_path / "ep"
    assert main(["run", GOAL, "--device", "sim", "--llm", "demo", "--method", name, "--no-screenshots",
                 "--out", str(out)]) == 0
    t = read_trajectory(out)
    assert t.end is not None and t.end.stop_reason is StopReason.DONE, t.end
    assert [c.purpose for s in t.steps for c in s.calls] == ["caap"] * len(t.steps)
    answers = [c.outputs[0] for s in t.steps for c in s.calls]
    cot = name in ("caap", "caap-no-rationales", "caap-no-demos")
    assert all(a.startswith("First,") == cot for a in answers)
