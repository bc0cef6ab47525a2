"""A web page's actions: their JSON, their checks, the id resolver, and their refusal by a phone.

Executing them on real pages is tests/device/miniwob/test_web_actions.py.
"""

from __future__ import annotations

import pytest

from latent_agent import codec
from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.accessibility.web_page import PageElement, PageView
from latent_agent.agent.execute import execute
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.web_page import web_page
from latent_agent.errors import ActionNotSupportedError, GroundingError
from latent_agent.grounder.actions import (
    ACTION_TYPES,
    WEB_ONLY,
    Action,
    ChooseOption,
    Click,
    ControlClick,
    Drag,
    HoldModifier,
    Hover,
    InputText,
    PointerDown,
    PointerMove,
    PointerUp,
    PressKey,
    action_from_json,
    action_to_json,
    parse_action,
    point_of,
)
from latent_agent.grounder.page_ids import element_point

WEB_ACTIONS: list[Action] = [PressKey("arrowdown", 3), PressKey("ctrl+a"), HoldModifier("control", True),
                             HoldModifier("shift", False), ControlClick(10, 20), Hover(30, 40), PointerDown(1, 2),
                             PointerMove(3, 4), PointerUp(), Drag(1, 2, 300, 400), ChooseOption(50, 60, "Zelda")]


@pytest.mark.parametrize("action", [*WEB_ACTIONS, InputText("x", 5, 6, clear=True)], ids=repr)
def test_each_action_reads_back_from_its_json_and_through_the_codec(action: Action) -> None:
    written = action_to_json(action)
    assert next(iter(written)) == "action_type"
    assert action_from_json(written) == action
    assert codec.decode(Action, written) == action  # type: ignore[arg-type]  # how trajectories read them


def test_every_kind_is_listed_and_web_only_ones_are_named() -> None:
    for kind in ("press_key", "hold_modifier", "control_click", "hover", "pointer_down", "pointer_move",
                 "pointer_up", "drag", "choose_option"):
        assert kind in ACTION_TYPES
    assert Drag not in WEB_ONLY and Click not in WEB_ONLY  # a drag is a swipe on a phone
    assert {cls.__name__ for cls in WEB_ONLY} == {"PressKey", "HoldModifier", "ControlClick", "Hover",
                                                   "PointerDown", "PointerMove", "PointerUp", "ChooseOption"}


def test_clear_stays_out_of_the_json_while_false_so_old_records_are_unchanged() -> None:
    assert action_to_json(InputText("hi", 1, 2)) == {"action_type": "input_text", "text": "hi", "x": 1, "y": 2}
    assert action_to_json(InputText("hi", clear=True)) == {"action_type": "input_text", "text": "hi", "clear": True}
    assert parse_action('{"action_type": "input_text", "text": "hi"}') == InputText("hi")
    assert parse_action('{"action_type": "press_key", "key": "ARROWUP"}') == PressKey("arrowup", 1)


@pytest.mark.parametrize(("answer", "problem"), [
    ('{"action_type": "press_key", "key": "f5"}', "'key' to be one of enter, tab"),
    ('{"action_type": "press_key", "key": "enter", "times": 0}', "times must be from 1 to 100, got 0"),
    ('{"action_type": "press_key", "key": "enter", "times": 1000}', "times must be from 1 to 100"),
    ('{"action_type": "hold_modifier", "modifier": "alt", "down": true}', "'modifier' to be one of control, shift"),
    ('{"action_type": "hold_modifier", "modifier": "control", "down": "yes"}', "true or false for 'down'"),
    ('{"action_type": "input_text", "text": "a", "clear": 1}', "true or false for 'clear'"),
    ('{"action_type": "drag", "x1": 1, "y1": 2, "x2": 3}', "needs an integer 'y2'"),
    ('{"action_type": "control_click", "x": 1}', "needs an integer 'y'"),
    ('{"action_type": "choose_option", "x": 1, "y": 2, "option": " "}', "needs a string 'option'"),
])
def test_bad_web_actions_are_one_line_grounding_errors(answer: str, problem: str) -> None:
    with pytest.raises(GroundingError, match=problem.replace("(", r"\(")) as caught:
        parse_action(answer)
    assert "\n" not in str(caught.value)


def test_pointed_actions_have_their_point() -> None:
    assert point_of(ControlClick(1, 2)) == (1, 2) and point_of(Hover(3, 4)) == (3, 4)
    assert point_of(PointerDown(5, 6)) == (5, 6) and point_of(PointerMove(7, 8)) == (7, 8)
    assert point_of(ChooseOption(9, 10, "a")) == (9, 10) and point_of(Drag(11, 12, 13, 14)) == (11, 12)
    assert point_of(PressKey("enter")) is None and point_of(PointerUp()) is None


def _view() -> PageView:
    def element(ref: int, box: Bounds, visible: bool) -> PageElement:
        return PageElement(ref, "button", box, visible=visible, leaf=True)

    return PageView((element(3, Bounds(30, 60, 90, 120), True), element(4, Bounds(0, 0, 0, 0), False)), "",
                    ScreenSize(480, 630))


def test_an_id_resolves_to_the_centre_of_its_shown_box_or_is_a_grounding_error() -> None:
    assert element_point(_view(), 3) == (60, 90)
    with pytest.raises(GroundingError, match=r"^no element id=7 on the page$"):
        element_point(_view(), 7)
    with pytest.raises(GroundingError, match=r"^element id=4 is not visible$"):
        element_point(_view(), 4)


@pytest.mark.parametrize("action", [a for a in WEB_ACTIONS if not isinstance(a, Drag)] + [InputText("a", clear=True)],
                         ids=repr)
def test_a_phone_refuses_a_web_pages_actions_in_one_line(action: Action) -> None:
    with SimDevice(seed=1) as phone:
        assert web_page(phone) is None
        before = phone.hierarchy().raw
        tree = phone.hierarchy().tree
        with pytest.raises(ActionNotSupportedError, match="needs a web page; this device \\(SimDevice\\) is a phone"):
            execute(action, phone, tree)
        assert phone.hierarchy().raw == before


def test_a_drag_on_a_phone_is_a_swipe() -> None:
    with SimDevice(seed=1) as phone:
        assert execute(Drag(540, 1800, 540, 600), phone, phone.hierarchy().tree) == "swipe(540, 1800, 540, 600, 600)"
