"""CAAP's answer parser: action lines read from the end, one per index, in index order; malformed lines kept
as errors in their place; nothing usable is one clear UnparsableAnswer."""

from __future__ import annotations

import pytest

from latent_agent.agent.caap.answer import (
    CATALOGUE,
    FUNCTIONS,
    Malformed,
    ParsedAction,
    element_id,
    parse_answer,
    parse_arguments,
)
from latent_agent.agent.unparsable import UnparsableAnswer

FOUR_PARTS = """First, the Settings app was opened and "Network & internet" tapped, which led to this page.
Secondly, the screen lists (1) "Internet" (2) "SIMs" (3) "Airplane mode".
Thirdly, the plan: open SIMs, then turn roaming off. DEMO_1 did the same: Settings, Network, SIMs, Roaming.
Lastly, the next actions:
Action_4=(Action: functions.click_element, Argument: {element_id: element_8})
Action_5=(Action: functions.type_text, Argument: {element_id: element_2, text: "dns.google, fast"})
Action_6=(Action: functions.press_enter, Argument: {})
"""


def test_a_well_formed_four_part_answer_gives_its_actions_in_order() -> None:
    actions = parse_answer(FOUR_PARTS)
    assert [a.index for a in actions] == [4, 5, 6]
    assert all(isinstance(a, ParsedAction) for a in actions)
    first, second, third = actions
    assert isinstance(first, ParsedAction) and first.name == "click_element"
    assert first.args == {"element_id": "element_8"}
    assert isinstance(second, ParsedAction) and second.args == {"element_id": "element_2", "text": "dns.google, fast"}
    assert isinstance(third, ParsedAction) and third.name == "press_enter" and third.args == {}


def test_the_action_lines_alone_are_enough_and_the_four_parts_are_not_required() -> None:
    actions = parse_answer("Action_2=(Action: functions.open_app, Argument: {app_name: \"Settings\"})")
    assert [(a.index, a.name, a.args) for a in actions if isinstance(a, ParsedAction)] == \
        [(2, "open_app", {"app_name": "Settings"})]


def test_extra_text_around_and_between_the_lines_is_ignored_and_the_last_line_per_index_wins() -> None:
    text = """Action_3=(Action: functions.click_element, Argument: {element_id: element_1})
Some thoughts in between. I changed my mind.
  `Action_3=(Action: functions.click_element, Argument: {element_id: element_7})`\t
Action_2=(Action: functions.navigate_back, Argument: None)
That is all, thank you."""
    actions = parse_answer(text)
    assert [a.index for a in actions] == [2, 3]
    assert isinstance(actions[1], ParsedAction) and actions[1].args == {"element_id": "element_7"}
    assert isinstance(actions[0], ParsedAction) and actions[0].name == "navigate_back" and actions[0].args == {}


def test_json_arguments_and_single_quotes_are_read() -> None:
    actions = parse_answer('Action_2=(Action: functions.scroll, Argument: {"direction": "down", "element_id": 4})\n'
                           "Action_3=(Action: functions.status, Argument: {goal_status: 'complete'})")
    assert [a.args for a in actions if isinstance(a, ParsedAction)] == \
        [{"direction": "down", "element_id": "4"}, {"goal_status": "complete"}]


def test_a_malformed_line_is_kept_in_its_place_with_the_reason() -> None:
    text = ("Action_2=(Action: functions.click_element, Argument: {element_id: element_3})\n"
            "Action_3=(click the OK button)\n"
            "Action_4=(Action: functions.click_element, Argument: element_5)\n")
    actions = parse_answer(text)
    assert isinstance(actions[0], ParsedAction)
    assert isinstance(actions[1], Malformed) and "names no function" in actions[1].error
    assert isinstance(actions[2], Malformed) and "Argument" in actions[2].error
    unclosed = parse_answer("Action_2=(Action: functions.click_element, Argument: {element_id: element_3})\n"
                            "Action_3=(Action: functions.click_element")
    assert isinstance(unclosed[1], Malformed) and "is not 'Action_k=" in unclosed[1].error


@pytest.mark.parametrize("text", ["", "First, nothing. Secondly, nothing. Lastly, I do not know.",
                                  "Action: functions.click_element, Argument: {element_id: element_3}"])
def test_an_answer_without_action_lines_is_a_clear_error(text: str) -> None:
    with pytest.raises(UnparsableAnswer, match="no action line"):
        parse_answer(text)


def test_an_answer_whose_lines_are_all_unreadable_is_a_clear_error() -> None:
    with pytest.raises(UnparsableAnswer, match=r"can be read.*names no function"):
        parse_answer("Action_2=(tap OK)\nAction_3=(tap Cancel)")


def test_arguments_in_the_loose_form() -> None:
    assert parse_arguments('{element_id: element_3, text: "a \\"quoted\\" word"}') == \
        {"element_id": "element_3", "text": 'a "quoted" word'}
    assert parse_arguments("{}") == {} and parse_arguments("None") == {}
    with pytest.raises(ValueError):
        parse_arguments("element_id=3")


def test_element_ids_in_any_of_the_forms_models_write() -> None:
    assert element_id("3") == element_id("element_3") == element_id('"element_3"') == "element_3"


def test_the_catalogue_covers_the_android_action_space() -> None:
    assert {"click_element", "type_text", "press_enter", "scroll", "navigate_back", "navigate_home", "open_app",
            "wait", "status", "answer"} <= set(FUNCTIONS)
    assert len(FUNCTIONS) == len(CATALOGUE)
    assert [p.name for p in FUNCTIONS["type_text"].parameters] == ["element_id", "text"]
    assert not FUNCTIONS["scroll"].parameters[1].required
