"""Structured reflection's actions on a web page (the paper's P1): typed commands and their one parser.

The planner (and the reflection's fix) name elements by the compact ids of the page they were shown
(:meth:`~latent_agent.accessibility.web_page.PageView.compact_html`), one command a line::

    click id=12
    enter "Bob" to id=7          (the text always in double quotes; the field is cleared first)
    hold CTRL / release CTRL     (around clicks that add to a multiple selection; SHIFT too)
    press ARROWDOWN x 3          (a key N times; ``x N`` left out for once)
    press ENTER

:func:`parse_command` reads a line into a :class:`PageCommand`; :func:`ground_line` turns it into the
action the episode loop executes, with no grounding call (``Grounding(action, None, "page", 0)``). An id
the page does not show, a key the page has no name for, or a text not in double quotes is a recorded
grounding error (the paper's ``exception`` status), never a crash. A line that names no id and is no key
command (``click the Submit button``, ``scroll down``) is not in this syntax: :func:`ground_line` gives
None, and the loop's grounder grounds it in words, as the authors' code falls back to a grounding prompt.

The page's text and the model's answer are untrusted: an id is a number, a key one of
:data:`~latent_agent.device.web_page.WEB_KEYS`, a press count at most
:data:`~latent_agent.grounder.actions.MAX_PRESSES`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from latent_agent.accessibility.web_page import PageView
from latent_agent.device.web_page import WEB_KEYS, Modifier, WebKey
from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import MAX_PRESSES, Action, Click, HoldModifier, InputText, PressKey
from latent_agent.grounder.base import Grounding
from latent_agent.grounder.page_ids import element_point

#: The grounding source of an action read from the syntax (no grounder, no model call).
PAGE_SOURCE = "page"

#: Keys by the names a plan writes them: each key's own name in capitals (``ARROWDOWN``, ``CTRL+A``), and
#: the spellings the authors' executor also took (``DOWNARROW``, ``DOWN``, ``BACK SPACE``).
KEY_NAMES: dict[str, WebKey] = {
    **{key.upper(): key for key in WEB_KEYS},
    "DOWNARROW": "arrowdown", "UPARROW": "arrowup", "LEFTARROW": "arrowleft", "RIGHTARROW": "arrowright",
    "DOWN": "arrowdown", "UP": "arrowup", "LEFT": "arrowleft", "RIGHT": "arrowright",
    "RETURN": "enter", "ESC": "escape",
}
#: Modifiers by the names a plan writes them.
MODIFIER_NAMES: dict[str, Modifier] = {"CTRL": "control", "CONTROL": "control", "SHIFT": "shift"}


@dataclass(frozen=True, slots=True)
class ClickId:
    """``click id=N``: click the element whose compact id is ``element``."""

    element: int

    def __str__(self) -> str:
        return f"click id={self.element}"


@dataclass(frozen=True, slots=True)
class EnterText:
    """``enter "TEXT" to id=N``: click the field ``element``, empty it and type ``text``."""

    text: str
    element: int

    def __str__(self) -> str:
        return f'enter "{self.text}" to id={self.element}'


@dataclass(frozen=True, slots=True)
class HoldKey:
    """``hold CTRL`` (``down``) or ``release CTRL``: clicks while it is held are made with it."""

    modifier: Modifier
    down: bool

    def __str__(self) -> str:
        name = "CTRL" if self.modifier == "control" else self.modifier.upper()
        return f"{'hold' if self.down else 'release'} {name}"


@dataclass(frozen=True, slots=True)
class PressKeys:
    """``press KEY x N``: press ``key`` ``times`` times, into the focused element."""

    key: WebKey
    times: int = 1

    def __str__(self) -> str:
        return f"press {self.key.upper()}" + (f" x {self.times}" if self.times != 1 else "")


PageCommand = ClickId | EnterText | HoldKey | PressKeys

_ID = r"id\s*=\s*(?P<id>-?\d+)"
_CLICK = re.compile(rf"(?:click|tap)\b.*?\b{_ID}", re.IGNORECASE)
_ENTER = re.compile(rf"(?:enter|type)\b(?P<body>.*)\b(?:to|into|in)\s+(?:the\s+)?(?:field\s+)?{_ID}", re.IGNORECASE)
_QUOTED = re.compile(r'^\s*"(?P<text>[^"]*)"\s*$')
_PRESS = re.compile(r"press\s+(?P<key>.+?)(?:\s*[x×*]\s*(?P<times>\d+)(?:\s*times?)?)?$", re.IGNORECASE)
_HOLD = re.compile(r"(?P<verb>hold|release)\s+(?:the\s+)?(?P<key>\w+)(?:\s+key)?$", re.IGNORECASE)
#: What ends a line without being part of it (a model's full stop, a stray quote mark).
_TRAILING = " .,;`'"


def parse_command(line: str) -> PageCommand | None:
    """The command a plan line (or a reflection's fix) names, or None when it is not in this syntax.

    Case is ignored (``Click id=3``, ``press arrowdown x 2``). A line that names no id and is no key
    command is not in the syntax (None: the caller grounds it in words).

    Raises:
        GroundingError: A line of the syntax that cannot be carried out as written: text to enter not in
            double quotes, a key or modifier the page has no name for, or a press count below 1 or above
            :data:`~latent_agent.grounder.actions.MAX_PRESSES`.
    """
    text = line.strip().rstrip(_TRAILING).strip()
    if (entered := _ENTER.match(text)) is not None:
        quoted = _QUOTED.match(entered["body"])
        if quoted is None:
            raise GroundingError(f"the text to enter is not in double quotes: {line.strip()[:120]!r}")
        return EnterText(quoted["text"], int(entered["id"]))
    if (clicked := _CLICK.match(text)) is not None:
        return ClickId(int(clicked["id"]))
    if (held := _HOLD.match(text)) is not None:
        modifier = MODIFIER_NAMES.get(held["key"].upper())
        if modifier is None:
            raise GroundingError(f"no modifier {held['key']!r} to hold; hold CTRL or SHIFT")
        return HoldKey(modifier, held["verb"].lower() == "hold")
    if (pressed := _PRESS.match(text)) is not None:
        name = pressed["key"].strip().strip('"').upper()
        key = KEY_NAMES.get(name) or KEY_NAMES.get(name.replace(" ", "").replace("_", ""))
        if key is None:
            raise GroundingError(f"no key {pressed['key'].strip()[:40]!r} on a web page; the keys are "
                                 f"{', '.join(k.upper() for k in WEB_KEYS)}")
        times = int(pressed["times"]) if pressed["times"] else 1
        if not 1 <= times <= MAX_PRESSES:
            raise GroundingError(f"{times} presses of {key.upper()}: between 1 and {MAX_PRESSES} are allowed")
        return PressKeys(key, times)
    return None


def command_action(command: PageCommand, view: PageView) -> Action:
    """The action that carries out ``command`` on the page ``view`` shows.

    Raises:
        GroundingError: The command names an element the page does not show.
    """
    if isinstance(command, ClickId):
        return Click(*element_point(view, command.element))
    if isinstance(command, EnterText):
        # The authors' executor clicks the field, clears it and types: a field that holds text gets the new
        # text, not both.
        x, y = element_point(view, command.element)
        return InputText(command.text, x, y, clear=True)
    if isinstance(command, HoldKey):
        return HoldModifier(command.modifier, command.down)
    return PressKey(command.key, command.times)


def ground_line(line: str, view: PageView) -> Grounding | None:
    """``line`` grounded on the page ``view`` shows, without a model call; None when it is not in this syntax.

    Returns:
        The action (source :data:`PAGE_SOURCE`, no attempts), or a grounding error naming what was wrong (an
        id not on the page, a bad key, unquoted text); None for a line the loop's grounder is to ground.
    """
    try:
        command = parse_command(line)
        if command is None:
            return None
        return Grounding(command_action(command, view), None, PAGE_SOURCE, 0)
    except GroundingError as exc:
        return Grounding(None, str(exc), PAGE_SOURCE, 0)


def clicked_id(line: str) -> int | None:
    """The id a ``click id=N`` line clicks, else None (any other command, a line not in the syntax, or a
    malformed one)."""
    try:
        command = parse_command(line)
    except GroundingError:
        return None
    return command.element if isinstance(command, ClickId) else None


def is_key_command(line: str) -> bool:
    """Whether ``line`` presses or holds a key: what it did needs no paraphrase (the authors' code keeps
    presses as written), and holding a modifier is meant to leave the page as it was."""
    try:
        return isinstance(parse_command(line), PressKeys | HoldKey)
    except GroundingError:
        return False


def is_hold(line: str) -> bool:
    """Whether ``line`` holds or releases a modifier (which by design changes nothing on the page)."""
    try:
        return isinstance(parse_command(line), HoldKey)
    except GroundingError:
        return False


def without_ids(screen: str, ids: set[int] | frozenset[int]) -> str:
    """A compact screen with the ``id=N`` of each of ``ids`` taken out: those elements stay readable but can no
    longer be named (the paper's disabled clicks)."""
    if not ids:
        return screen
    wanted = "|".join(str(i) for i in sorted(ids))
    # Only the id right after a line's tag: a page's text that reads " id=4" is text, and stays.
    return re.sub(rf"^(<[\w-]+) id=(?:{wanted})(?=[ >])", r"\1", screen, flags=re.MULTILINE)
