"""Synapse's action syntax on a web page: the commands of a plan, read and turned into actions on the page.

Synapse's agent answers with a numbered plan, one command a line, its arguments marked by quotes::

    1. clickxpath //label[text()="kc"]/input
    2. type "Bob"
    3. press enter
    4. movemouse //span[@class="more"]
    5. clickoption //select[@id="options"]/option[text()="Kristi"]

The five commands are the paper's (v1, Appendix C): ``clickxpath`` clicks the element an XPath selects,
``type`` types into the focused element, ``press`` presses one key (enter, space, the arrow keys,
backspace, and the select-all, copy and paste chords the authors' code adds), ``movemouse`` moves the mouse
over an element, ``clickoption`` chooses an ``<option>`` of a list. As the paper's parser did, only the
numbered lines are read and the text around them is dropped; a line may end with a ``# comment`` (the
authors' exemplars explain their choices that way), which is dropped too.

A command is carried out without a grounding call (:func:`ground`): its XPath is evaluated on the task
area's HTML the agent was shown (:attr:`~latent_agent.accessibility.web_page.PageView.task_html`), where every
element carries its compact id (``data-wob_ref``), and the first selected element shown on the page is
acted on at the centre of its box (:func:`~latent_agent.grounder.page_ids.element_point`). An XPath is
evaluated on the HTML the model read rather than on the browser's DOM, so the attributes that HTML adds
(``data-color="red"``) can be named. An XPath that selects nothing, or nothing shown, is a recorded
grounding error, never a crash and never a click somewhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import lxml.html
from lxml import etree

from latent_agent.accessibility.web_page import PageView
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.device.web_page import WebKey
from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import Action, ChooseOption, Click, Hover, InputText, PressKey
from latent_agent.grounder.base import Grounding
from latent_agent.grounder.page_ids import element_point

#: The grounding source of a command carried out on the page (no model call, no grounder).
SOURCE = "page"
#: The longest XPath read: a longer one is a model running away, not a selector.
MAX_XPATH_CHARS = 1000
#: Most lines one plan may hold: far above the longest published plan (choose-date's, about 15 actions), a
#: guard against a model that runs away.
PLAN_LINE_CAP = 50
#: The commands, as the prompt lists them.
VERBS = ("clickxpath", "type", "press", "movemouse", "clickoption")
#: Synapse's keys (the paper's, then the chords its code adds), by the word a plan uses, as a page presses them.
KEYS: dict[str, WebKey] = {
    "enter": "enter", "space": "space", "backspace": "backspace",
    "arrowleft": "arrowleft", "arrowright": "arrowright", "arrowup": "arrowup", "arrowdown": "arrowdown",
    # The authors' code sends command+KEY as Control+KEY on Linux and Windows, where the pages run here.
    "command+a": "ctrl+a", "command+c": "ctrl+c", "command+v": "ctrl+v",
    "ctrl+a": "ctrl+a", "ctrl+c": "ctrl+c", "ctrl+v": "ctrl+v",
}
#: The argument words of the prompt's action list: an answer holding one copied the list, not a plan.
PLACEHOLDERS = frozenset({"XPATH", "TEXT", "KEY"})

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.*)$")
_VERB = re.compile(r"^([A-Za-z][A-Za-z_\-]*)\s*(.*)$", re.DOTALL)
_QUOTES = ('"', "'")


class CommandError(ValueError):
    """A plan line that is not one of Synapse's commands (the message says why, naming the line)."""


@dataclass(frozen=True, slots=True)
class ClickXPath:
    """Click the element ``xpath`` selects (an ``<option>`` is chosen in its list, as the authors' code did)."""

    xpath: str
    verb: Literal["clickxpath"] = "clickxpath"


@dataclass(frozen=True, slots=True)
class MoveMouse:
    """Move the mouse over the element ``xpath`` selects."""

    xpath: str
    verb: Literal["movemouse"] = "movemouse"


@dataclass(frozen=True, slots=True)
class ClickOption:
    """Choose the ``<option>`` ``xpath`` selects in its list."""

    xpath: str
    verb: Literal["clickoption"] = "clickoption"


@dataclass(frozen=True, slots=True)
class TypeText:
    """Type ``text`` into the focused element."""

    text: str
    verb: Literal["type"] = "type"


@dataclass(frozen=True, slots=True)
class Press:
    """Press ``key`` (a page's key name)."""

    key: WebKey
    verb: Literal["press"] = "press"


Command = ClickXPath | MoveMouse | ClickOption | TypeText | Press


def command_line(command: Command) -> str:
    """The command as a plan line writes it (without its number)."""
    match command:
        case TypeText(text=text):
            return f'type "{text}"'
        case Press(key=key):
            spoken = {"ctrl+a": "command+a", "ctrl+c": "command+c", "ctrl+v": "command+v"}
            return f"press {spoken.get(key, key)}"
        case ClickXPath(xpath=xpath) | MoveMouse(xpath=xpath) | ClickOption(xpath=xpath):
            return f"{command.verb} {xpath}"


def parse_plan(text: str) -> tuple[str, ...]:
    """The plan of an answer: its numbered lines, without their numbers (every other line is dropped, as the
    paper's parser dropped the text around a plan), at most :data:`PLAN_LINE_CAP` of them. The lines are read
    as commands when they are carried out (:func:`ground_line`), so one line that is no command costs only
    itself and what follows it.

    Raises:
        UnparsableAnswer: The answer has no numbered line (prose is not a plan).
    """
    lines = tuple(m.group(2).strip() for m in map(_NUMBERED.match, text.splitlines()) if m and m.group(2).strip())
    if not lines:
        raise UnparsableAnswer(f"the answer lists no numbered action: {text[:120]!r}")
    return lines[:PLAN_LINE_CAP]


def _without_comment(text: str) -> str:
    """``text`` without a trailing ``# comment`` (a ``#`` inside quotes or brackets is the argument's)."""
    quote: str | None = None
    depth = 0
    for i, char in enumerate(text):
        if quote is not None:
            quote = None if char == quote else quote
        elif char in _QUOTES:
            quote = char
        elif char in "[(":
            depth += 1
        elif char in "])":
            depth = max(0, depth - 1)
        elif char == "#" and depth == 0 and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text.rstrip()


def _unquoted(text: str) -> str:
    """``text`` without one pair of quotes around all of it."""
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0]:
        return text[1:-1]
    return text


def _xpath(argument: str, verb: str) -> str:
    xpath = _unquoted(argument.strip()).strip()
    if not xpath:
        raise CommandError(f"{verb} needs an XPath")
    if xpath in PLACEHOLDERS:
        raise CommandError(f"{verb} {xpath}: the placeholder of the action list, not an XPath")
    if len(xpath) > MAX_XPATH_CHARS:
        raise CommandError(f"{verb}: the XPath is longer than {MAX_XPATH_CHARS} characters")
    if not xpath.startswith(("/", "(", ".")):
        raise CommandError(f"{verb} {xpath!r}: an XPath of the page starts with / or (")
    # Words after the XPath ("//button[text()='OK'] to close the dialog") are dropped, as the published
    # parser dropped what follows an action: the longest start of the argument that is an XPath is kept.
    words = xpath.split(" ")
    for end in range(len(words), 0, -1):
        candidate = " ".join(words[:end]).rstrip()
        try:
            etree.XPath(candidate)
        except etree.XPathSyntaxError:
            continue
        return candidate
    raise CommandError(f"{verb} {xpath!r}: not a valid XPath")


def _typed(argument: str) -> str:
    text = argument.strip()
    if text[:1] in _QUOTES:
        end = text.rfind(text[0])
        # The text between the first quote and its last match; an unclosed quote keeps the rest.
        text = text[1:end] if end > 0 else text[1:]
    if not text:
        raise CommandError('type needs the text to type, in quotes (type "Bob")')
    if text in PLACEHOLDERS:
        raise CommandError(f"type {text}: the placeholder of the action list, not a text")
    return text


def _key(argument: str) -> WebKey:
    spoken = "".join(_unquoted(argument.strip()).lower().split()).replace("_", "").replace("cmd+", "command+")
    spoken = spoken.replace("control+", "ctrl+")
    key = KEYS.get(spoken)
    if key is None:
        raise CommandError(f"press {argument.strip()!r}: not a key the agent presses "
                           f"({', '.join(k for k in KEYS if not k.startswith('ctrl'))})")
    return key


def parse_command(line: str) -> Command:
    """The command of one plan line (its number already removed; a trailing ``# comment`` is dropped).

    Raises:
        CommandError: The line is not one of the five commands with a usable argument.
    """
    text = line.strip()
    match = _VERB.match(text)
    verb = match.group(1).lower().replace("_", "").replace("-", "") if match else ""
    if match is None or verb not in VERBS:
        raise CommandError(f"{text[:80]!r} is not an action of the list ({', '.join(VERBS)})")
    argument = match.group(2)
    if verb == "type":
        # A typed text may hold a '#': only what follows its closing quote can be a comment.
        return TypeText(_typed(_without_comment(argument)))
    argument = _without_comment(argument)
    if verb == "press":
        return Press(_key(argument))
    xpath = _xpath(argument, verb)
    if verb == "clickxpath":
        return ClickXPath(xpath)
    if verb == "movemouse":
        return MoveMouse(xpath)
    return ClickOption(xpath)


# -- carrying a command out on the page -----------------------------------------------------------------


def _selected(view: PageView, xpath: str) -> list[lxml.html.HtmlElement]:
    """The elements ``xpath`` selects in the task area's HTML, in document order (a selected text or
    attribute stands for the element holding it)."""
    if not view.task_html.strip():
        raise GroundingError("the page's task area has no HTML to select from")
    document = lxml.html.document_fromstring(view.task_html)
    try:
        found = document.xpath(xpath)
    except etree.XPathError as exc:
        raise GroundingError(f"{xpath!r} cannot be evaluated on the page ({exc})") from None
    elements: list[lxml.html.HtmlElement] = []
    for item in found if isinstance(found, list) else []:
        element = item if isinstance(item, lxml.html.HtmlElement) else getattr(item, "getparent", lambda: None)()
        if isinstance(element, lxml.html.HtmlElement) and element not in elements:
            elements.append(element)
    return elements


def _element_id(element: lxml.html.HtmlElement) -> int | None:
    ref = element.get("data-wob_ref")
    return int(ref) if ref is not None and ref.isdigit() else None


def _option_in_list(option: lxml.html.HtmlElement, view: PageView) -> ChooseOption:
    """Choosing ``option`` in the ``<select>`` holding it, at the list's point."""
    select = next((a for a in option.iterancestors() if a.tag == "select"), None)
    select_id = _element_id(select) if select is not None else None
    if select_id is None:
        raise GroundingError("the option is in no list of the page")
    x, y = element_point(view, select_id)
    return ChooseOption(x, y, " ".join(option.text_content().split()))


def _act_on(command: ClickXPath | MoveMouse | ClickOption, element: lxml.html.HtmlElement,
            view: PageView) -> Action:
    if element.tag == "option" and not isinstance(command, MoveMouse):
        return _option_in_list(element, view)
    if isinstance(command, ClickOption):
        raise GroundingError(f"clickoption needs an <option>; it selects a <{element.tag}>")
    element_id = _element_id(element)
    if element_id is None:
        raise GroundingError(f"the <{element.tag}> it selects has no id on the page")
    x, y = element_point(view, element_id)
    return Hover(x, y) if isinstance(command, MoveMouse) else Click(x, y)


def _pointed(command: ClickXPath | MoveMouse | ClickOption, view: PageView) -> Action:
    elements = _selected(view, command.xpath)
    if not elements:
        raise GroundingError(f"{command.xpath} selects no element of the page")
    problems: list[str] = []
    for element in elements:
        try:
            return _act_on(command, element, view)
        except GroundingError as exc:
            problems.append(str(exc))
    shown = "; ".join(dict.fromkeys(problems))
    raise GroundingError(f"{command.xpath} selects {len(elements)} element(s), none that can be acted on ({shown})")


def ground(command: Command, view: PageView | None) -> Grounding:
    """The action that carries ``command`` out on the page ``view``, or the grounding error saying why none does.

    Args:
        command: A parsed plan line.
        view: The page as observed for this step (None: the page's HTML was not observed, as with the
            screenshot observation source, so no XPath can be evaluated).
    """
    try:
        match command:
            case TypeText(text=text):
                action: Action = InputText(text)
            case Press(key=key):
                action = PressKey(key)
            case ClickXPath() | MoveMouse() | ClickOption():
                if view is None:
                    raise GroundingError("the page's HTML was not observed (an XPath needs it), so "
                                         f"{command.verb} cannot be carried out")
                action = _pointed(command, view)
    except GroundingError as exc:
        return Grounding(None, str(exc), SOURCE, 0)
    return Grounding(action, None, SOURCE, 0)


def ground_line(line: str, view: PageView | None) -> Grounding:
    """:func:`ground` for a plan line; a line that is no command is its grounding error."""
    try:
        command = parse_command(line)
    except CommandError as exc:
        return Grounding(None, str(exc), SOURCE, 0)
    return ground(command, view)
