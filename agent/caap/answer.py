"""CAAP's action catalogues (the functions the prompt offers, per surface) and the parser of its four-part answer.

On a phone the catalogue is the project's action space in the method's function form (the card's Android
adaptation, :data:`CATALOGUE`); on a web page it is the published MiniWoB++ table (:data:`WEB_CATALOGUE`):
clicks on an element or a point, a click with Control held, typing into the focused element, pointing at an
element, Control+A/C/V and the three steps of a drag. :func:`catalogue` gives the one for a surface.

The answer ends with action lines in the published form::

    Action_4=(Action: functions.click_element, Argument: {element_id: element_12})
    Action_5=(Action: functions.type_text, Argument: {element_id: element_3, text: "dns.google"})

:func:`parse_answer` reads them as the published code does: scanning the answer from its end for
``Action_<k>=(...)`` lines, keeping one line per index (the last one written) and sorting by index,
then reading the function after ``functions.`` and the arguments in braces. Arguments may be
written as JSON or in the looser ``{key: value, ...}`` form of the published examples; quotes
around a value are dropped.

A line that starts like an action line but cannot be read is kept as a :class:`Malformed` entry in
its place (executing it is an error the next query is told about, as in the published loop); an
answer with no action line at all, or only unreadable ones, raises
:class:`~latent_agent.agent.unparsable.UnparsableAnswer` (a fact about the answer, not a provider failure).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from latent_agent import codec
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.surfaces import Surface

#: What ``status`` may report.
GOAL_STATUSES = ("complete", "infeasible")


@dataclass(frozen=True, slots=True)
class Parameter:
    """One argument of a catalogue function."""

    name: str
    type: str
    description: str
    required: bool = True


@dataclass(frozen=True, slots=True)
class Function:
    """One function the prompt offers: its name, what it does and its arguments."""

    name: str
    description: str
    parameters: tuple[Parameter, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The shape the prompt lists (an OpenAI-style function schema, written into the prompt)."""
        out: dict[str, object] = codec.encode(self)
        return out


_ELEMENT = Parameter("element_id", "string", "the ID of an element of the current screen's list, e.g. element_3")

#: The catalogue: the project's action space in the method's function form.
CATALOGUE: tuple[Function, ...] = (
    Function("click_element", "Tap the centre of an element.", (_ELEMENT,)),
    Function("long_press_element", "Touch and hold the centre of an element.", (_ELEMENT,)),
    Function("type_text", "Tap an input field and type text into it.",
             (_ELEMENT, Parameter("text", "string", "the text to type"))),
    Function("press_enter", "Press the Enter key of the keyboard."),
    Function("scroll", "Scroll so that content further in a direction comes into view.",
             (Parameter("direction", "string", "one of up, down, left, right"),
              Parameter("element_id", "string", "the scrollable element to scroll (default: the screen)",
                        required=False))),
    Function("navigate_back", "Press the Back button."),
    Function("navigate_home", "Press the Home button."),
    Function("open_app", "Start an app by its name.", (Parameter("app_name", "string", "the app's name, e.g. Clock"),)),
    Function("open_quick_settings", "Pull down the quick settings panel."),
    Function("open_app_drawer", "Open the list of all apps."),
    Function("wait", "Wait a moment for the screen to settle."),
    Function("answer", "Give the user the information the task asks for; this ends the task.",
             (Parameter("text", "string", "the answer"),)),
    Function("status", "End the task: it is complete, or it cannot be done.",
             (Parameter("goal_status", "string", "complete or infeasible"),
              Parameter("reason", "string", "why it cannot be done (for infeasible)", required=False))),
)
FUNCTIONS: dict[str, Function] = {f.name: f for f in CATALOGUE}

_X = Parameter("x", "integer", "the horizontal position, in the pixels of the element list's X")
_Y = Parameter("y", "integer", "the vertical position, in the pixels of the element list's Y")

#: The published MiniWoB++ catalogue (Tables 5 and 6): mouse and keyboard operations on the screen. Positions
#: are in the element list's pixels; typing goes into the focused element, which a click focuses first.
WEB_CATALOGUE: tuple[Function, ...] = (
    Function("click_element", "Click the centre of an element.", (_ELEMENT,)),
    Function("click_new_point", "Click a position of the screen.", (_X, _Y)),
    Function("control_click_element", "Click the centre of an element with the Control key held (adds it to a "
             "multiple selection).", (_ELEMENT,)),
    Function("type_text", "Type text into the focused element (click the field first to focus it).",
             (Parameter("string_to_type", "string", "the text to type"),)),
    Function("point_element", "Move the mouse over an element without clicking (shows what appears on hover).",
             (_ELEMENT,)),
    Function("press_control_A", "Press Control+A: select everything in the focused element."),
    Function("press_control_C", "Press Control+C: copy the selection."),
    Function("press_control_V", "Press Control+V: paste what was copied."),
    Function("drag_mouse_hold_down", "Move the mouse to a position and hold its button down (starts a drag).",
             (_X, _Y)),
    Function("drag_mouse_move", "Move the mouse to a position with its button held (moves what is dragged).",
             (_X, _Y)),
    Function("drag_mouse_release", "Release the mouse button (ends a drag, dropping what is dragged)."),
)
WEB_FUNCTIONS: dict[str, Function] = {f.name: f for f in WEB_CATALOGUE}


def catalogue(surface: Surface) -> dict[str, Function]:
    """The functions offered on ``surface``, by name, in the prompt's order."""
    return WEB_FUNCTIONS if surface.web else FUNCTIONS


@dataclass(frozen=True, slots=True)
class ParsedAction:
    """A readable action line.

    Attributes:
        index: ``k`` of ``Action_k``.
        name: The function named.
        args: Its arguments, values as text.
        line: The line as written.
    """

    index: int
    name: str
    args: dict[str, str]
    line: str


@dataclass(frozen=True, slots=True)
class Malformed:
    """An action line that could not be read, and why."""

    index: int
    line: str
    error: str


AnswerAction = ParsedAction | Malformed

_LINE = re.compile(r"Action_(\d+)\s*=\s*\((.*)\)\s*$")
_START = re.compile(r"Action_(\d+)\s*=")
_FUNCTION = re.compile(r"Action:\s*(?:functions\.)?([A-Za-z_]\w*)")
_ARGUMENT = re.compile(r"Argument:\s*(\{.*\}|None|null|\(\)|)\s*$", re.DOTALL)
_PAIR = re.compile(r"""([A-Za-z_]\w*)\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,}]*)""")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        if value[0] == '"':
            try:
                loaded = json.loads(value)
                return loaded if isinstance(loaded, str) else value[1:-1]
            except json.JSONDecodeError:
                pass
        return value[1:-1]
    return value


def parse_arguments(text: str) -> dict[str, str]:
    """``{element_id: element_3, text: "a, b"}`` (or its JSON form) as a dict of texts.

    Raises:
        ValueError: Not a brace-enclosed list of ``key: value`` pairs.
    """
    text = text.strip()
    if text in ("", "None", "null", "()", "{}"):
        return {}
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError:
        loaded = None
    if isinstance(loaded, dict):
        return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in loaded.items()}
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"the arguments are not in braces: {text[:80]!r}")
    body = text[1:-1].strip()
    pairs = {m.group(1): _unquote(m.group(2)) for m in _PAIR.finditer(body)}
    if body and not pairs:
        raise ValueError(f"no 'key: value' pair in the arguments: {text[:80]!r}")
    return pairs


def _parse_line(index: int, line: str) -> AnswerAction:
    found = _LINE.search(line)
    if found is None:
        return Malformed(index, line, "the line is not 'Action_k=(Action: functions.NAME, Argument: {...})'")
    body = found.group(2)
    function = _FUNCTION.search(body)
    if function is None:
        return Malformed(index, line, "the line names no function ('Action: functions.NAME')")
    argument = _ARGUMENT.search(body, function.end())
    raw = argument.group(1) if argument is not None else ""
    if argument is None and body[function.end():].strip(" ,"):
        return Malformed(index, line, "the arguments are not written as 'Argument: {...}'")
    try:
        args = parse_arguments(raw)
    except ValueError as exc:
        return Malformed(index, line, str(exc))
    return ParsedAction(index, function.group(1), args, line)


def parse_answer(text: str) -> tuple[AnswerAction, ...]:
    """The action lines of an answer, one per index (the last written wins), in index order.

    Raises:
        UnparsableAnswer: No action line, or none that can be read.
    """
    found: dict[int, AnswerAction] = {}
    for raw in reversed(text.splitlines()):
        line = raw.strip().strip("`").strip()
        start = _START.search(line)
        if start is None:
            continue
        index = int(start.group(1))
        if index not in found:
            found[index] = _parse_line(index, line[start.start():])
    if not found:
        raise UnparsableAnswer(f"the answer has no action line 'Action_k=(Action: functions.NAME, Argument: "
                               f"{{...}})': {text[-160:]!r}")
    actions = tuple(found[k] for k in sorted(found))
    if all(isinstance(a, Malformed) for a in actions):
        first = actions[0]
        assert isinstance(first, Malformed)
        raise UnparsableAnswer(f"no action line of the answer can be read ({first.error}): {first.line[:160]!r}")
    return actions


def element_id(value: str) -> str:
    """An element id as the list writes it: ``3``, ``element_3`` and ``"element_3"`` are ``element_3``."""
    value = value.strip().strip("\"'").strip()
    return f"element_{value}" if value.isdigit() else value
