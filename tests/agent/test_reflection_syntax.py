"""Structured reflection's commands on a web page (the paper's P1): the one parser and its actions, no browser."""

from __future__ import annotations

import pytest

from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.accessibility.web_page import PageElement, PageView
from latent_agent.agent.reflection.syntax import (
    PAGE_SOURCE,
    ClickId,
    EnterText,
    HoldKey,
    PressKeys,
    clicked_id,
    ground_line,
    is_hold,
    is_key_command,
    parse_command,
    without_ids,
)
from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import MAX_PRESSES, Click, HoldModifier, InputText, PressKey

SCREEN = ScreenSize(480, 630)
PAGE = PageView((
    PageElement(4, "input_text", Bounds(30, 60, 330, 90), visible=True, leaf=True, dom_id="tt"),
    PageElement(5, "button", Bounds(30, 120, 150, 160), visible=True, leaf=True, text="Submit"),
    PageElement(6, "span", Bounds(0, 0, 0, 0), visible=False, leaf=True, text="behind a tab"),
    PageElement(-1, "t", Bounds(30, 200, 90, 220), visible=True, leaf=True, text="words"),
), "<div></div>", SCREEN)


@pytest.mark.parametrize(("line", "command"), [
    ("click id=5", ClickId(5)),
    ("Click id = 12.", ClickId(12)),
    ("click on the Submit button (id=5)", ClickId(5)),
    ("click id=-1", ClickId(-1)),
    ('enter "Bob" to id=4', EnterText("Bob", 4)),
    ('Enter "go to id=9" into id=4.', EnterText("go to id=9", 4)),
    ('type "" to id=4', EnterText("", 4)),
    ("hold CTRL", HoldKey("control", True)),
    ("release ctrl", HoldKey("control", False)),
    ("hold SHIFT", HoldKey("shift", True)),
    ("press ENTER", PressKeys("enter")),
    ("press ARROWDOWN x 3", PressKeys("arrowdown", 3)),
    ("press arrowup x 2.", PressKeys("arrowup", 2)),
    ("press DOWNARROW x 4", PressKeys("arrowdown", 4)),
    ("press CTRL+A", PressKeys("ctrl+a")),
])
def test_each_command_is_read_in_the_papers_forms(line: str, command: object) -> None:
    assert parse_command(line) == command
    assert parse_command(str(command)) == command  # its own words read back the same


@pytest.mark.parametrize("line", ["click the Submit button", 'Tap "Submit"', "scroll down", 'enter "Bob"',
                                  "Go back", ""])
def test_a_line_naming_no_id_is_not_in_the_syntax(line: str) -> None:
    assert parse_command(line) is None
    assert ground_line(line, PAGE) is None  # the loop's grounder grounds it in words


@pytest.mark.parametrize(("line", "says"), [
    ("enter Bob to id=4", "not in double quotes"),
    ("press FLY", "no key 'FLY' on a web page"),
    ("press ENTER x 0", "0 presses of ENTER"),
    (f"press ARROWDOWN x {MAX_PRESSES + 1}", f"between 1 and {MAX_PRESSES}"),
    ("hold ALT", "no modifier 'ALT'"),
])
def test_a_malformed_command_is_a_grounding_error_naming_what_was_wrong(line: str, says: str) -> None:
    with pytest.raises(GroundingError, match=says):
        parse_command(line)
    grounded = ground_line(line, PAGE)
    assert grounded is not None and grounded.action is None and grounded.error is not None and says in grounded.error


def test_commands_become_the_seams_actions_with_no_model_call() -> None:
    click = ground_line("click id=5", PAGE)
    assert click is not None and click.action == Click(90, 140) and click.error is None
    assert click.source == PAGE_SOURCE and click.attempts == 0
    typed = ground_line('enter "Bob" to id=4', PAGE)
    assert typed is not None and typed.action == InputText("Bob", 180, 75, clear=True)  # cleared first
    held = ground_line("hold CTRL", PAGE)
    assert held is not None and held.action == HoldModifier("control", True)
    pressed = ground_line("press ARROWDOWN x 3", PAGE)
    assert pressed is not None and pressed.action == PressKey("arrowdown", 3)
    text = ground_line("click id=-1", PAGE)
    assert text is not None and text.action == Click(60, 210)


@pytest.mark.parametrize(("line", "says"), [("click id=99", "no element id=99 on the page"),
                                            ('enter "x" to id=6', "element id=6 is not visible")])
def test_an_id_not_shown_is_a_recorded_grounding_error(line: str, says: str) -> None:
    grounded = ground_line(line, PAGE)
    assert grounded is not None and grounded.action is None and grounded.error == says


def test_what_a_line_clicks_and_whether_it_is_a_key() -> None:
    assert clicked_id("click id=5") == 5 and clicked_id('enter "x" to id=4') is None
    assert clicked_id("press FLY") is None and clicked_id("Tap it") is None
    assert is_key_command("press ENTER") and is_key_command("release CTRL") and not is_key_command("click id=5")
    assert is_hold("hold CTRL") and not is_hold("press ENTER")


def test_disabled_ids_lose_their_id_and_stay_readable() -> None:
    screen = PAGE.compact_html() + '\n<span id=8 pos="top">reads id=5 here</span>'
    out = without_ids(screen, {5, -1})
    assert '<button pos="top left">Submit</button>' in out and '<t pos="left">words</t>' in out
    assert "<input_text id=4 " in out and "reads id=5 here" in out  # other ids, and a page's own text, stay
    assert without_ids(screen, set()) == screen
