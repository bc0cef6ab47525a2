"""CAAP's prompts: golden files (the main prompt at the start, with demos, history, an error and the previous
answer, and as the ablations render it; the system message; the rationale prompt) and their content: the
card's sections in order, the catalogue, the action-line format with the next indices, the guidelines.

Regenerate after a deliberate template change with ``UPDATE_GOLDEN=1 pytest tests/agent/test_caap_prompts.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from latent_agent.accessibility.tree import Bounds
from latent_agent.agent.caap.demos import Demo, DemoSet, ScriptAction, TaskInfo
from latent_agent.agent.caap.elements import UIElement
from latent_agent.agent.caap.policy import PLAN_TEMPLATE, SYSTEM_TEMPLATE, CaapPolicy, CaapRun
from latent_agent.agent.policy import EpisodeSetup
from latent_agent.agent.trajectory import StopRule
from latent_agent.benchmarks.demos import RATIONALE_TEMPLATE, RecordedAction, RecordedDemo, rationale_inputs
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE
from tests.agent.test_prompt_wording import reworded  # noqa: F401  (a fixture)

GOLDEN = Path(__file__).parent / "golden"
GOAL = "Turn off data roaming."
ELEMENTS = (
    UIElement("element_1", "icon", Bounds(0, 128, 154, 304), "Navigate up"),
    UIElement("element_2", "text", Bounds(198, 746, 396, 805), "Roaming"),
    UIElement("element_3", "checkbox", Bounds(908, 767, 1036, 841), "ON", subtype="switch", checked=True),
)
NETWORK = {"type": "text", "X": "440 [198-682]", "Y": "375 [346-405]", "text": "Network & internet"}
SIMS = {"type": "text", "X": "258 [198-318]", "Y": "775 [746-805]", "text": "SIMs"}
DEMO = Demo("settings_mobile_data_off", "Turn off mobile data", "network-toggle", (
    ScriptAction("start"),
    ScriptAction("open_app", params={"app_name": "Settings"}, reason="Mobile data is a setting."),
    ScriptAction("click_element", NETWORK, reason="The network page holds the SIM settings."),
))
DEMOS = DemoSet((DEMO,), (TaskInfo("settings_roaming_off", GOAL, "network-toggle"),
                          TaskInfo("settings_mobile_data_off", "Turn off mobile data", "network-toggle")))


def _run(policy: CaapPolicy, *, later: bool) -> CaapRun:
    run = CaapRun(policy, EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, 20, "settings_roaming_off"))
    if later:
        run.history += [ScriptAction("open_app", params={"app_name": "Settings"}),
                        ScriptAction("click_element", NETWORK), ScriptAction("click_element", SIMS)]
        run.previous_answer = "First, ...\nLastly:\nAction_4=(Action: functions.click_element, Argument: " \
                              "{element_id: element_8})"
    return run


def _plan(policy: CaapPolicy, *, later: bool = True, error: str = "", no_change: bool = False) -> str:
    run = _run(policy, later=later)
    run.last_error = error or None
    return render(PLAN_TEMPLATE, PHONE, **run.inputs(ELEMENTS, no_change))


def _rationale() -> str:
    before = ELEMENTS
    after = (ELEMENTS[0], ELEMENTS[1], UIElement("element_3", "checkbox", ELEMENTS[2].bounds, "OFF", subtype="switch",
                                                 checked=False))
    task = next(t for t in load_suite() if t.id == "settings_roaming_off")
    demo = RecordedDemo(task.id, task.goal, task.family, (
        RecordedAction(ScriptAction("open_app", params={"app_name": "Settings"}), (), before),
        RecordedAction(ScriptAction("click_element", ELEMENTS[1].attributes()), before, after)))
    return render(RATIONALE_TEMPLATE, PHONE, **rationale_inputs(demo, 3))


PROMPTS: dict[str, Callable[[], str]] = {
    "caap_plan_start": lambda: _plan(CaapPolicy(), later=False),
    "caap_plan": lambda: _plan(CaapPolicy(demos=DEMOS), error="element_9 is not in the element list of the "
                                                                "current screen"),
    "caap_plan_no_cot_actions_only": lambda: _plan(CaapPolicy(demos_mode="actions", cot=False, demos=DEMOS),
                                                   no_change=True),
    "caap_system": lambda: render(SYSTEM_TEMPLATE, PHONE),
    "caap_rationale": _rationale,
}


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_rendered_prompt_matches_golden(name: str) -> None:
    rendered = PROMPTS[name]()
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(rendered, encoding="utf-8")
    assert path.is_file(), f"missing golden file {path.name}; run with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text(encoding="utf-8")


@pytest.mark.usefixtures("reworded")
def test_every_golden_prompt_notices_the_rewording() -> None:
    for name, build in PROMPTS.items():
        assert build() != (GOLDEN / f"{name}.txt").read_text(encoding="utf-8"), name


def _order(text: str, *markers: str) -> list[int]:
    return [text.index(m) for m in markers]


def test_the_sections_come_in_the_cards_order() -> None:
    text = PROMPTS["caap_plan"]()
    at = _order(text, "A task on the phone is solved", "### Expert Demonstrations ###", "DEMO_1 = {",
                "similar to the ones demonstrated", "### Task Description ###", "### Action History ###",
                "### The UI Element List of the Current Screen That You Can Take Next Actions On ###",
                "### Available Functions ###", "### Instructions ###", "- MAKE SURE")
    assert at == sorted(at)


def test_the_demos_show_their_actions_with_reasons_by_element_attributes() -> None:
    text = PROMPTS["caap_plan"]()
    assert "TASK: Turn off mobile data" in text and "demo_action_1: {name: start}" in text
    assert ('demo_action_3: {name: click_element, arg: {type: text, X: 440 [198-682], Y: 375 [346-405], '
            'text: "Network & internet"}, reason: "The network page holds the SIM settings."}') in text
    bare = PROMPTS["caap_plan_no_cot_actions_only"]()
    assert "demo_action_3: {name: click_element" in bare and "reason:" not in bare


def test_the_history_the_error_and_the_previous_answer() -> None:
    text = PROMPTS["caap_plan"]()
    assert "action_1: {name: start}\naction_2: {name: open_app, app_name: \"Settings\"}" in text
    assert 'action_4: {name: click_element, arg: {type: text, X: 258 [198-318], Y: 775 [746-805], text: "SIMs"}}' \
        in text
    assert "The last action (action_4) failed: element_9 is not in the element list" in text
    assert 'The reasoning behind the last action was:\n"""\nFirst, ...' in text
    assert "no change on the screen" in PROMPTS["caap_plan_no_cot_actions_only"]()
    start = PROMPTS["caap_plan_start"]()
    assert "action_1: {name: start}\n\n###" in start and "reasoning behind" not in start and "failed" not in start


def test_the_element_list_the_catalogue_and_the_four_parts() -> None:
    text = PROMPTS["caap_plan"]()
    assert ('- ID: element_3, data: {type: checkbox, subtype: switch, X: 972 [908-1036], Y: 804 [767-841], '
            'text: "ON", checked: True}') in text
    for function in ("click_element(element_id)", "type_text(element_id, text)", "press_enter()",
                     "scroll(direction, element_id?)", "navigate_back()", "navigate_home()", "open_app(app_name)",
                     "wait()", "status(goal_status, reason?)", "answer(text)"):
        assert f"- {function}:" in text
    for part in ("First,", "Secondly,", "Thirdly,", "Lastly,"):
        assert part in text
    assert "starting with action_5" in text
    assert "Action_5=(Action: functions.click_element, Argument: {element_id: element_5})" in text
    assert "Action_7=(Action: functions.press_enter, Argument: {})" in text
    assert "OCR" in text and text.count("- MAKE SURE") == 5
    bare = PROMPTS["caap_plan_no_cot_actions_only"]()
    assert "Secondly," not in bare and "Action_5=(Action: functions.click_element" in bare


def test_the_rationale_prompt_frames_one_action_for_a_trainee() -> None:
    text = PROMPTS["caap_rationale"]()
    at = _order(text, "TASK: Turn off data roaming", "demo_action_3: {name: click_element", "trainee",
                "### The UI Element List Before demo_action_3 ###", "### The UI Element List After demo_action_3 ###",
                "one paragraph", "written after the fact")
    assert at == sorted(at)
    after = text[text.index("After demo_action_3 ###"):]
    assert 'text: "OFF", checked: False' in after
