"""Synapse's action syntax on a web page (agent/exemplars/syntax.py) and the per-task choices of its paper and code
(agent/exemplars/task_setup.py): the plan parser, each command, and carrying a command out on a page view built
by hand (the real pages are in test_exemplars_web.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.accessibility.web_page import PageElement, PageView
from latent_agent.agent.exemplars.syntax import (
    PLAN_LINE_CAP,
    SOURCE,
    ClickOption,
    ClickXPath,
    CommandError,
    MoveMouse,
    Press,
    TypeText,
    command_line,
    ground,
    ground_line,
    parse_command,
    parse_plan,
)
from latent_agent.agent.exemplars.task_setup import synapse_tasks
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.grounder.actions import ChooseOption, Click, Hover, InputText, PressKey

# -- the plan -------------------------------------------------------------------------------------------------


def test_a_plan_is_its_numbered_lines_and_the_text_around_them_is_dropped() -> None:
    answer = ("Here is the plan:\n```\n1. clickxpath //label[text()=\"AU\"]/input\n2) type \"Bob\"\n"
              "3.   press enter\n```\nThat should finish the task.")
    assert parse_plan(answer) == ('clickxpath //label[text()="AU"]/input', 'type "Bob"', "press enter")


def test_prose_is_no_plan() -> None:
    with pytest.raises(UnparsableAnswer, match="no numbered action"):
        parse_plan("I would click the Submit button.")


def test_a_runaway_plan_is_cut_at_the_cap() -> None:
    answer = "\n".join(f"{i}. press space" for i in range(1, PLAN_LINE_CAP + 20))
    assert len(parse_plan(answer)) == PLAN_LINE_CAP


# -- one command ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "command"), [
    ('clickxpath //button[text()="Submit"]', ClickXPath('//button[text()="Submit"]')),
    # The authors' exemplars explain an action in a trailing comment; a '#' inside the XPath stays.
    ("clickxpath //*[@href='#tabs-2']  # Switch to Tab #2", ClickXPath("//*[@href='#tabs-2']")),
    ('click_xpath "//span[@class=\'more\']"', ClickXPath("//span[@class='more']")),
    # Words after the XPath are dropped, as the published parser dropped what follows an action.
    ('clickxpath //button[text()="OK"] to close the dialog', ClickXPath('//button[text()="OK"]')),
    ("movemouse //div[@data-result='0']//span[@class='more']",
     MoveMouse("//div[@data-result='0']//span[@class='more']")),
    ('clickoption //select[@id="options"]/option[text()="Sudan"]',
     ClickOption('//select[@id="options"]/option[text()="Sudan"]')),
    ('type "Hello # world"', TypeText("Hello # world")),
    ('type "a "quoted" word"', TypeText('a "quoted" word')),  # from the first quote to the last
    ("TYPE Philippe", TypeText("Philippe")),
    ("press enter", Press("enter")),
    ("press ArrowDown", Press("arrowdown")),
    ("press arrow left", Press("arrowleft")),
    # The code's chords, sent as Control on the Linux pages here.
    ("press command+a", Press("ctrl+a")),
    ("press Ctrl + V", Press("ctrl+v")),
])
def test_each_command_is_read(line: str, command: object) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize(("line", "why"), [
    ("click the Submit button", "not an action of the list"),
    ("clickxpath", "needs an XPath"),
    ("clickxpath XPATH", "placeholder"),
    ('type "TEXT"', "placeholder"),
    ("clickxpath button", "starts with / or ("),
    ("clickxpath //button[text()=", "not a valid XPath"),
    ("clickxpath /" + "a" * 1200, "longer than"),
    ("press tab", "not a key the agent presses"),
    ("press KEY", "not a key"),
    ('type ""', "needs the text"),
])
def test_a_line_that_is_no_command_says_why(line: str, why: str) -> None:
    with pytest.raises(CommandError, match=re.escape(why)):
        parse_command(line)


@pytest.mark.parametrize("command", [ClickXPath('//a[@href="#x"]'), MoveMouse("//span"), ClickOption("//option[1]"),
                                     TypeText("Bob"), Press("enter"), Press("ctrl+c")])
def test_a_command_line_reads_back_as_the_command(command: ClickXPath) -> None:
    assert parse_command(command_line(command)) == command


# -- carried out on a page ------------------------------------------------------------------------------------

SCREEN = ScreenSize(480, 630)
HTML = ('<div id="wrap" data-wob_ref="1"><div id="area" data-wob_ref="2">'
        '<label data-wob_ref="3"><input type="checkbox" id="ch0" data-wob_ref="4">AU</label>'
        '<select id="options" data-wob_ref="5"><option selected="">Ecuador</option><option>Sudan</option></select>'
        '<span class="hidden" data-wob_ref="6">later</span><span class="loose">no id</span>'
        '<div class="color" data-color="red" data-wob_ref="7"></div>'
        '<button id="subbtn" data-wob_ref="8">Submit</button></div></div>')


def _element(element_id: int, tag: str, box: tuple[int, int, int, int], *, visible: bool = True) -> PageElement:
    return PageElement(element_id, tag, Bounds(*box), visible, leaf=True)


VIEW = PageView((
    _element(1, "div", (0, 0, 480, 630)), _element(2, "div", (0, 0, 480, 630)),
    _element(3, "label", (0, 100, 200, 130)),
    _element(4, "input_checkbox", (10, 100, 40, 130)), _element(5, "select", (200, 200, 300, 240)),
    _element(6, "span", (0, 700, 50, 720), visible=False), _element(7, "div", (100, 300, 160, 360)),
    _element(8, "button", (100, 400, 200, 440)),
), HTML, SCREEN)


@pytest.mark.parametrize(("line", "action"), [
    ('clickxpath //label[text()="AU"]/input', Click(25, 115)),
    ('clickxpath //div[@data-color="red"]', Click(130, 330)),  # an attribute the cleaned HTML added
    ("clickxpath //*[@id='subbtn']/text()", Click(150, 420)),  # a selected text stands for its element
    ('movemouse //button[text()="Submit"]', Hover(150, 420)),
    ('clickoption //select[@id="options"]/option[text()="Sudan"]', ChooseOption(250, 220, "Sudan")),
    ('clickxpath //option[text()="Sudan"]', ChooseOption(250, 220, "Sudan")),  # as the authors' code did
    ('type "Bob"', InputText("Bob")),
    ("press backspace", PressKey("backspace")),
    # The first selected element that can be acted on: the hidden one is passed over.
    ("clickxpath //span[@class='hidden'] | //button", Click(150, 420)),
])
def test_a_command_is_carried_out_at_its_element_with_no_grounding_call(line: str, action: object) -> None:
    grounding = ground_line(line, VIEW)
    assert grounding.error is None and grounding.action == action
    assert grounding.source == SOURCE and grounding.attempts == 0


@pytest.mark.parametrize(("line", "why"), [
    ('clickxpath //button[text()="Cancel"]', "selects no element of the page"),
    ("clickxpath //span[@class='hidden']", "is not visible"),
    ("clickxpath //span[@class='loose']", "has no id on the page"),
    ('clickoption //button[text()="Submit"]', "clickoption needs an <option>"),
    ("clickxpath //button[text(", "not a valid XPath"),
    ("scroll down", "not an action of the list"),
])
def test_a_command_that_cannot_be_carried_out_is_a_grounding_error(line: str, why: str) -> None:
    grounding = ground_line(line, VIEW)
    assert grounding.action is None and grounding.error is not None and why in grounding.error
    assert grounding.source == SOURCE


def test_without_the_pages_html_an_xpath_is_a_grounding_error_and_keys_still_go() -> None:
    assert ground(ClickXPath("//button"), None).error == (
        "the page's HTML was not observed (an XPath needs it), so clickxpath cannot be carried out")
    assert ground(Press("enter"), None).action == PressKey("enter")


# -- the per-task choices -------------------------------------------------------------------------------------

CARD_FILTERED = {"book-flight", "click-collapsible-2", "click-menu", "click-pie", "click-shape", "click-tab-2",
                 "click-tab-2-hard", "count-shape", "email-inbox", "email-inbox-forward-nl",
                 "email-inbox-forward-nl-turk", "email-inbox-nl-turk", "find-word", "grid-coordinate",
                 "login-user-popup", "social-media", "social-media-some", "terminal", "tic-tac-toe", "use-autocomplete"}
CARD_REFORMULATED = {"choose-date", "click-checkboxes-soft", "email-inbox-forward-nl", "email-inbox-forward-nl-turk",
                     "email-inbox-nl-turk", "social-media", "use-spinner"}


def test_filtering_and_reformulation_run_on_the_papers_tasks_only() -> None:
    tasks = synapse_tasks()
    assert tasks.filtered == CARD_FILTERED and tasks.reformulated == CARD_REFORMULATED
    simple = tasks.of("click-checkboxes")
    assert not simple.filter and not simple.reformulate and simple.query_cap == 1
    assert simple.own_exemplars_from is None
    assert tasks.of(None) == simple  # a page that is no MiniWoB++ task is a simple one


def test_the_query_caps_and_substitutes_are_the_authors_codes() -> None:
    tasks = synapse_tasks()
    assert {t: tasks.of(t).query_cap for t in ("book-flight", "terminal", "use-autocomplete", "login-user",
                                               "login-user-popup", "guess-number", "tic-tac-toe", "enter-text")} == {
        "book-flight": 2, "terminal": 2, "use-autocomplete": 2, "login-user": 3, "login-user-popup": 3,
        "guess-number": 10, "tic-tac-toe": 10, "enter-text": 1}
    assert tasks.of("click-tab-2-hard").own_exemplars_from == "click-tab-2"
    assert {tasks.of(t).own_exemplars_from for t in ("email-inbox", "email-inbox-forward-nl",
                                                     "email-inbox-forward-nl-turk")} == {"email-inbox-nl-turk"}


def test_every_choice_is_given_with_its_reason_and_names_tasks_of_the_suite() -> None:
    from latent_agent.agent.exemplars import task_setup
    from latent_agent.benchmarks.suite import load_named_suite

    raw = json.loads((Path(task_setup.__file__).parent / task_setup.DATA_FILE).read_text(encoding="utf-8"))
    assert all(len(raw[section]["reason"]) > 80 for section in ("filter", "reformulate", "query_caps",
                                                                 "own_exemplars_from"))
    known = {t.id for t in load_named_suite("miniwob").tasks}
    tasks = synapse_tasks()
    named = tasks.filtered | tasks.reformulated | set(tasks.caps) | set(tasks.substitutes) | set(
        tasks.substitutes.values())
    assert named <= known, sorted(named - known)
