"""CAAP on a web page as published, without a browser: the paper's MiniWoB++ function table parsed by the one
parser and read as the web page's own actions (no grounding call), the mid-drag rule, the published caps, the
published re-query signature, the prompts speaking of a computer's screen (never a phone), the demonstrations'
script form of a web page's actions, and the demo stand-in answering in those functions from a call's inputs.
The same on real pages: tests/device/miniwob/test_caap_web.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.agent.caap.answer import CATALOGUE, WEB_CATALOGUE, catalogue, parse_answer
from latent_agent.agent.caap.demos import Demo, DemoSet, ScriptAction, TaskInfo
from latent_agent.agent.caap.elements import UIElement, screen_signature
from latent_agent.agent.caap.policy import MID_DRAG, PLAN_TEMPLATE, SYSTEM_TEMPLATE, CaapPolicy, CaapRun, translate
from latent_agent.agent.caap.scripts import NotAFunction, script_actions, web_script_actions
from latent_agent.agent.policy import EpisodeSetup
from latent_agent.agent.trajectory import StopRule
from latent_agent.benchmarks.demos import RATIONALE_TEMPLATE, RecordedAction, RecordedDemo, rationale_inputs
from latent_agent.benchmarks.demos_episodes import episode_surface
from latent_agent.demo.oracle import DemoOracle
from latent_agent.demo.oracle_caap_web import on_web
from latent_agent.demo.oracle_miniwob import ChooseFromList, DragItem, SortNumbers, SpinTo, miniwob_task, page_goal
from latent_agent.grounder.actions import (
    Click,
    ControlClick,
    Drag,
    Hover,
    InputText,
    KeyboardEnter,
    PointerDown,
    PointerMove,
    PointerUp,
    PressKey,
    Scroll,
    Wait,
)
from latent_agent.llm.types import GenerationRequest
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE, WEB_PAGE

SCREEN = ScreenSize(480, 630)
GOAL = "Drag Gerda to the 3rd position."
ROWS = (
    UIElement("element_1", "input_field", Bounds(30, 171, 432, 249), "Willa"),
    UIElement("element_2", "input_field", Bounds(30, 258, 432, 333), "+ Gerda"),
    UIElement("element_3", "input_field", Bounds(30, 342, 432, 420), "Alvera"),
    UIElement("element_4", "input_field", Bounds(30, 429, 432, 504), "Marcille"),
    UIElement("element_5", "input_field", Bounds(6, 519, 291, 612), "Submit"),
)
BY_ID = {e.id: e for e in ROWS}
#: Words no prompt on a web page may hold (the issue's acceptance: no phone, app, launcher, Home or Back words).
PHONE_WORDS = re.compile(r"\b(apps?|launcher|home screen|go(?:ing)? back|phones?|android)\b", re.IGNORECASE)


def _one(line: str, dragging: bool = False) -> Any:
    [parsed] = parse_answer(line)
    return translate(parsed, BY_ID, WEB_PAGE, screen=SCREEN, dragging=dragging)


# -- the function table --------------------------------------------------------------------------------------


def test_the_web_catalogue_is_the_papers_miniwob_table_and_offers_no_phone_function() -> None:
    assert [f.name for f in WEB_CATALOGUE] == [
        "click_element", "click_new_point", "control_click_element", "type_text", "point_element",
        "press_control_A", "press_control_C", "press_control_V", "drag_mouse_hold_down", "drag_mouse_move",
        "drag_mouse_release"]
    assert [p.name for p in catalogue(WEB_PAGE)["type_text"].parameters] == ["string_to_type"]
    assert [p.name for p in catalogue(WEB_PAGE)["drag_mouse_move"].parameters] == ["x", "y"]
    phone_only = {"open_app", "navigate_back", "navigate_home", "open_quick_settings", "open_app_drawer", "status",
                  "answer", "press_enter", "scroll", "long_press_element", "wait"}
    assert not phone_only & set(catalogue(WEB_PAGE)) and phone_only <= set(catalogue(PHONE))
    assert tuple(catalogue(PHONE).values()) == CATALOGUE  # the phone's is as it was


@pytest.mark.parametrize(("line", "action", "element"), [
    ("Action_2=(Action: functions.click_element, Argument: {element_id: element_2})", Click(231, 295), "element_2"),
    ("Action_2=(Action: functions.click_new_point, Argument: {x: 12, y: 600})", Click(12, 600), None),
    ('Action_2=(Action: functions.click_new_point, Argument: {"x": 12.4, "y": 600})', Click(12, 600), None),
    ("Action_2=(Action: functions.control_click_element, Argument: {element_id: 3})", ControlClick(231, 381),
     "element_3"),
    ('Action_2=(Action: functions.type_text, Argument: {string_to_type: "Gerda, then Willa"})',
     InputText("Gerda, then Willa"), None),
    ("Action_2=(Action: functions.point_element, Argument: {element_id: element_4})", Hover(231, 466), "element_4"),
    ("Action_2=(Action: functions.press_control_A, Argument: {})", PressKey("ctrl+a"), None),
    ("Action_2=(Action: functions.press_control_C, Argument: None)", PressKey("ctrl+c"), None),
    ("Action_2=(Action: functions.press_control_V, Argument: {})", PressKey("ctrl+v"), None),
    ("Action_2=(Action: functions.drag_mouse_hold_down, Argument: {x: 231, y: 295})", PointerDown(231, 295),
     "element_2"),
    ("Action_2=(Action: functions.drag_mouse_move, Argument: {x: 231, y: 400})", PointerMove(231, 400), "element_3"),
    ("Action_2=(Action: functions.drag_mouse_release, Argument: {})", PointerUp(), None),
])
def test_every_function_is_parsed_into_the_web_pages_own_action(line: str, action: object,
                                                                element: str | None) -> None:
    done = _one(line, dragging=line.count("drag_mouse_") == 1 and "hold_down" not in line)
    assert done.error is None and done.action == action
    assert (done.element.id if done.element is not None else None) == element
    # Typing goes into the focused element: no point, so nothing is clicked first (the published type_text).
    if isinstance(action, InputText):
        assert (done.action.x, done.action.y) == (None, None)
        assert done.script == ScriptAction("type_text", params={"string_to_type": "Gerda, then Willa"})


@pytest.mark.parametrize(("line", "error"), [
    ("Action_2=(Action: functions.click_element, Argument: {element_id: element_9})",
     "element_9 is not in the element list of the current screen"),
    ("Action_2=(Action: functions.open_app, Argument: {app_name: Chrome})", "'open_app' is not one of the functions"),
    ("Action_2=(Action: functions.status, Argument: {goal_status: complete})", "'status' is not one of the functions"),
    ("Action_2=(Action: functions.type_text, Argument: {element_id: element_1, text: hi})",
     "type_text needs the argument string_to_type"),
    ("Action_2=(Action: functions.click_new_point, Argument: {x: left, y: 3})",
     "click_new_point: x must be a number of pixels, got 'left'"),
    ("Action_2=(Action: functions.drag_mouse_hold_down, Argument: {x: 480, y: 3})",
     "drag_mouse_hold_down: (480, 3) is off the screen (480x630)"),
])
def test_what_cannot_be_done_on_this_screen_is_an_error_naming_why(line: str, error: str) -> None:
    done = _one(line)
    assert done.action is None and done.error is not None and error in done.error


def test_while_the_button_is_held_only_a_move_or_a_release_is_taken() -> None:
    held = _one("Action_5=(Action: functions.click_element, Argument: {element_id: element_5})", dragging=True)
    assert held.action is None and held.error == MID_DRAG
    assert _one("Action_5=(Action: functions.drag_mouse_hold_down, Argument: {x: 1, y: 1})",
                dragging=True).error == MID_DRAG
    assert _one("Action_5=(Action: functions.drag_mouse_release, Argument: {})", dragging=True).action == PointerUp()


def test_the_cap_is_the_published_one_on_a_web_page_and_the_adaptations_on_a_phone() -> None:
    def cap(surface: Any, task: str | None) -> int:
        return CaapRun(CaapPolicy(), EpisodeSetup("x", StopRule.DONE_IN_ACTION, 25, task, surface=surface)).cap

    assert cap(WEB_PAGE, "drag-items") == 17 and cap(WEB_PAGE, "guess-number") == 50 and cap(WEB_PAGE, None) == 17
    assert cap(PHONE, None) == 25  # without demonstrations: the episode's step limit, at most 30


def test_the_signature_counts_focus_and_the_top_of_a_page_but_not_of_a_phone() -> None:
    focused = (UIElement("element_1", "input_field", Bounds(51, 192, 435, 255), "", focused=True),)
    plain = (UIElement("element_1", "input_field", Bounds(51, 192, 435, 255), ""),)
    assert screen_signature(focused, SCREEN, WEB_PAGE) != screen_signature(plain, SCREEN, WEB_PAGE)
    assert screen_signature(focused, SCREEN, PHONE) == screen_signature(plain, SCREEN, PHONE)
    top = (*plain, UIElement("element_2", "text", Bounds(10, 2, 90, 20), "12:30"))
    assert screen_signature(top, SCREEN, WEB_PAGE) != screen_signature(plain, SCREEN, WEB_PAGE)
    assert screen_signature(top, SCREEN, PHONE) == screen_signature(plain, SCREEN, PHONE)


# -- the prompts -----------------------------------------------------------------------------------------------


def _web_run(policy: CaapPolicy) -> CaapRun:
    demo = Demo("drag-items", "Drag Willa to the bottom.", "drag-items", (
        ScriptAction("start"),
        ScriptAction("drag_mouse_hold_down", ROWS[0].attributes(), {"x": 231, "y": 210}, "Willa is the first row."),
        ScriptAction("drag_mouse_move", ROWS[3].attributes(), {"x": 231, "y": 485}, "Past the last row's middle."),
        ScriptAction("drag_mouse_release", reason="Dropped there, the page scores it.")))
    demos = DemoSet((demo,), (TaskInfo("drag-items", GOAL, "drag-items"),), by_task=True)
    run = CaapRun(policy.with_demos(demos), EpisodeSetup(GOAL, StopRule.DONE_IN_ACTION, 20, "drag-items",
                                                          surface=WEB_PAGE))
    run.history.append(ScriptAction("drag_mouse_hold_down", ROWS[1].attributes(), {"x": 231, "y": 295}))
    run.last_error = "drag_mouse_hold_down: (480, 3) is off the screen (480x630)"
    run.previous_answer = "First, ...\nAction_2=(Action: functions.drag_mouse_hold_down, Argument: {x: 231, y: 295})"
    return run


@pytest.mark.parametrize("policy", [CaapPolicy(), CaapPolicy(cot=False), CaapPolicy(demos_mode="actions"),
                                    CaapPolicy(demos_mode="none"), CaapPolicy(demos_mode="none", cot=False)],
                         ids=["caap", "no-cot", "no-rationales", "no-demos", "neither"])
def test_every_caap_prompt_on_a_web_page_speaks_of_a_computers_screen_never_a_phone(policy: CaapPolicy) -> None:
    run = _web_run(policy)
    plan = render(PLAN_TEMPLATE, WEB_PAGE, **run.inputs(ROWS, no_change=False))
    system = render(SYSTEM_TEMPLATE, WEB_PAGE)
    recorded = RecordedDemo("drag-items", GOAL, "drag-items", (
        RecordedAction(ScriptAction("drag_mouse_hold_down", ROWS[1].attributes(), {"x": 231, "y": 295}), ROWS, ROWS),
        RecordedAction(ScriptAction("drag_mouse_release"), ROWS, ())), "web_page")
    rationale = render(RATIONALE_TEMPLATE, WEB_PAGE, **rationale_inputs(recorded, 2))
    for text in (plan, system, rationale):
        assert PHONE_WORDS.search(text) is None, PHONE_WORDS.search(text)
        assert "computer" in text or "screen" in text
    assert "web page shown on the screen of a computer" in system
    assert "MAKE SURE to click the Submit button once the conditions of the task are met" in plan
    assert ("MAKE SURE that while the mouse button is held down in a drag, the next action is only "
            "drag_mouse_move or drag_mouse_release.") in plan
    assert "- drag_mouse_hold_down(x, y):" in plan and "- open_app" not in plan and "goal_status" not in plan
    # The published history review, not the Android adaptation's softened one.
    assert ("Assume that the earlier actions were right." in plan) == policy.cot
    assert 'functions.type_text, Argument: {string_to_type: "hello"}' in plan
    assert ("Dropped there, the page scores it." in plan) == (policy.demos_mode == "rationales")
    # The phone's prompts stay the adaptation's (their golden files are unchanged: tests/agent/test_caap_prompts.py).
    assert "Android phone" in render(SYSTEM_TEMPLATE, PHONE)


# -- demonstrations of a web page's actions ------------------------------------------------------------------


def test_a_web_pages_actions_are_written_as_the_published_functions() -> None:
    [click] = web_script_actions(Click(231, 295), ROWS)
    assert click == ScriptAction("click_element", ROWS[1].attributes())
    assert web_script_actions(Click(470, 5), ROWS) == (ScriptAction("click_new_point", params={"x": 470, "y": 5}),)
    # Typing at a point is a click, then typing into the focused field; emptying it first is Control+A.
    assert [a.name for a in web_script_actions(InputText("x", 231, 210, clear=True), ROWS)] == [
        "click_element", "press_control_A", "type_text"]
    hold, move, release = web_script_actions(Drag(231, 295, 231, 400), ROWS)
    assert (hold.name, hold.element["text"], hold.params) == ("drag_mouse_hold_down", "+ Gerda", {"x": 231, "y": 295})
    assert (move.name, move.params, release.name) == ("drag_mouse_move", {"x": 231, "y": 400}, "drag_mouse_release")
    assert web_script_actions(PressKey("ctrl+c", times=2), ROWS) == (ScriptAction("press_control_C"),) * 2
    assert web_script_actions(Wait(), ROWS) == ()
    for outside in (KeyboardEnter(), Scroll("down"), PressKey("enter")):
        with pytest.raises(NotAFunction, match="the published MiniWoB\\+\\+ functions have none"):
            web_script_actions(outside, ROWS)
    assert script_actions(KeyboardEnter(), ROWS, PHONE) == (ScriptAction("press_enter"),)


@pytest.mark.parametrize(("device", "kind"), [("miniwob#2", "web_page"), ("miniwob@cdp://10.0.0.5:9222#3", "web_page"),
                                              ("miniwob:click-button", "web_page"), ("sim#1", "phone"),
                                              ("adb:emulator-5554", "phone")])
def test_an_episodes_surface_is_its_devices_declared_one(device: str, kind: str) -> None:
    assert episode_surface(device).kind == kind


# -- the demo stand-in ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("utterance", "goal"), [
    ("Drag Gerda to the 3rd position.", DragItem("Gerda", "position", 3)),
    ("Drag Sara-Ann to the top.", DragItem("Sara-Ann", "top")),
    ("Drag Tom down by one position.", DragItem("Tom", "down")),
    ("Sort the numbers in increasing order, starting with the lowest number at the top of the list.", SortNumbers()),
    ("Select United States from the list and click Submit.", ChooseFromList("United States")),
    ("Select -7 with the spinner and hit Submit.", SpinTo(-7)),
])
def test_the_utterances_of_tasks_that_depend_on_the_page_are_read(utterance: str, goal: object) -> None:
    assert page_goal(utterance) == goal
    assert miniwob_task(utterance) is None  # choose-list's is no longer read as a list of boxes to tick


def _ask(goal: str, elements: tuple[UIElement, ...], history: list[dict[str, Any]], surface: Any = WEB_PAGE) -> str:
    run = CaapRun(CaapPolicy(cot=False), EpisodeSetup(goal, StopRule.DONE_IN_ACTION, 20, surface=surface))
    inputs = {**run.inputs(elements, no_change=False), "history_actions": [{"name": "start"}, *history]}
    answer = DemoOracle()(GenerationRequest(prompt="(unread)", purpose="caap", inputs=inputs))
    assert isinstance(answer, str)
    return answer


def test_the_stand_in_drags_in_the_published_functions_from_the_element_list() -> None:
    assert _ask(GOAL, ROWS[:4], []).splitlines() == [
        "Action_2=(Action: functions.drag_mouse_hold_down, Argument: {x: 231, y: 295})",
        # Past the middle of the target row, on its far side, so the sortable list puts the item there.
        "Action_3=(Action: functions.drag_mouse_move, Argument: {x: 231, y: 400})",
        "Action_4=(Action: functions.drag_mouse_release, Argument: {})"]
    moved = [{"name": "drag_mouse_hold_down", "params": {"x": 231, "y": 295}},
             {"name": "drag_mouse_move", "params": {"x": 231, "y": 400}}]
    assert _ask(GOAL, ROWS[:4], moved) == "Action_2=(Action: functions.drag_mouse_release, Argument: {})"


def test_the_stand_in_types_into_the_focused_field_after_clicking_it() -> None:
    goal = 'Enter "Myron" into the text field and press Submit.'
    fields = (UIElement("element_1", "input_field", Bounds(51, 192, 435, 255), ""),
              UIElement("element_2", "input_field", Bounds(51, 312, 336, 405), "Submit"))
    assert _ask(goal, fields, []).splitlines() == [
        "Action_2=(Action: functions.click_element, Argument: {element_id: element_1})",
        'Action_3=(Action: functions.type_text, Argument: {string_to_type: "Myron"})',
        "Action_4=(Action: functions.click_element, Argument: {element_id: element_2})"]
    # The same call on a phone is answered in the phone's functions.
    assert 'type_text, Argument: {element_id: element_1, text: "Myron"}' in _ask(goal, fields, [], PHONE)


def test_a_call_is_a_web_pages_by_the_catalogue_it_offers() -> None:
    assert on_web({"catalogue": [f.to_json() for f in WEB_CATALOGUE]})
    assert not on_web({"catalogue": [f.to_json() for f in CATALOGUE]}) and not on_web({})
