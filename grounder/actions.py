"""The device actions the grounder can produce: a union of small frozen types.

LLM output is turned into an :data:`Action` in exactly one place,
:func:`parse_action`; everything downstream (execution, trajectories,
annotation forms) works with the typed values and their JSON form
(:func:`action_to_json` / :func:`action_from_json`).

The JSON shape is the one the method's grounder prompt asks for, e.g.
``{"action_type": "click", "x": 540, "y": 1200}``.

Some actions exist only on a web page (:class:`~latent_agent.device.web_page.WebPage`): keys pressed N times,
a modifier held around clicks, a click with Control held, hovering, the mouse button pressed, moved and
released, and an option chosen in a ``<select>`` (:data:`WEB_ONLY`). A device without that surface refuses
them (``ActionNotSupportedError``); a drag is a swipe on a phone.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Literal, get_args

from latent_agent import codec
from latent_agent.device.base import DIRECTIONS, SYSTEM_ACTIVITIES, Direction, SystemActivity
from latent_agent.device.web_page import MODIFIERS, WEB_KEYS, Modifier, WebKey
from latent_agent.errors import GroundingError

#: An action's JSON object, as the grounder prompt shows it: its ``action_type`` first, unset coordinates left out.
_SHAPE = codec.shape(omit_none=True, leading=("action_type",))
#: Most presses of one key an action may ask for (``press ARROWDOWN x N``): more is a model's runaway number.
MAX_PRESSES = 100


@_SHAPE
@dataclass(frozen=True, slots=True)
class Click:
    """Tap at pixel ``(x, y)``."""

    x: int
    y: int
    action_type: Literal["click"] = "click"


@_SHAPE
@dataclass(frozen=True, slots=True)
class LongPress:
    """Touch and hold at pixel ``(x, y)``."""

    x: int
    y: int
    action_type: Literal["long_press"] = "long_press"


@codec.shape(omit_none=True, leading=("action_type",), omit_default=("clear",))
@dataclass(frozen=True, slots=True)
class InputText:
    """Type ``text`` into the focused field (optionally tapping ``(x, y)`` first to focus it).

    ``clear`` empties the field first (select all, delete), as the web papers' executors did before typing;
    it needs a web page's keys. Left out of the JSON while False, so older records read and write unchanged.
    """

    text: str
    x: int | None = None
    y: int | None = None
    clear: bool = False
    action_type: Literal["input_text"] = "input_text"


@_SHAPE
@dataclass(frozen=True, slots=True)
class KeyboardEnter:
    """Press the Enter key."""

    action_type: Literal["keyboard_enter"] = "keyboard_enter"


@_SHAPE
@dataclass(frozen=True, slots=True)
class NavigateHome:
    """Press Home."""

    action_type: Literal["navigate_home"] = "navigate_home"


@_SHAPE
@dataclass(frozen=True, slots=True)
class NavigateBack:
    """Press Back."""

    action_type: Literal["navigate_back"] = "navigate_back"


@_SHAPE
@dataclass(frozen=True, slots=True)
class Scroll:
    """Scroll to reveal content in ``direction`` (``down`` shows what is below).

    ``x``/``y``, when given, pick the scrollable element under that point.
    """

    direction: Direction
    x: int | None = None
    y: int | None = None
    action_type: Literal["scroll"] = "scroll"


@_SHAPE
@dataclass(frozen=True, slots=True)
class OpenApp:
    """Start an app by its human name ("Clock", "chrome")."""

    app_name: str
    action_type: Literal["open_app"] = "open_app"


@_SHAPE
@dataclass(frozen=True, slots=True)
class LaunchAdbActivity:
    """Open a system surface: the app drawer or the quick-settings shade."""

    activity: SystemActivity
    action_type: Literal["launch_adb_activity"] = "launch_adb_activity"


@_SHAPE
@dataclass(frozen=True, slots=True)
class Wait:
    """Do nothing for ``seconds`` so a slow screen can settle."""

    seconds: float = 1.0
    action_type: Literal["wait"] = "wait"


@_SHAPE
@dataclass(frozen=True, slots=True)
class PressKey:
    """Press a key of a web page ``times`` times (``press ARROWDOWN x 3``; ``ctrl+a`` selects all)."""

    key: WebKey
    times: int = 1
    action_type: Literal["press_key"] = "press_key"


@_SHAPE
@dataclass(frozen=True, slots=True)
class HoldModifier:
    """Hold a modifier down (``down``) or release it; clicks while it is held are made with it."""

    modifier: Modifier
    down: bool
    action_type: Literal["hold_modifier"] = "hold_modifier"


@_SHAPE
@dataclass(frozen=True, slots=True)
class ControlClick:
    """Click at pixel ``(x, y)`` with Control held (adds to a multiple selection)."""

    x: int
    y: int
    action_type: Literal["control_click"] = "control_click"


@_SHAPE
@dataclass(frozen=True, slots=True)
class Hover:
    """Move the mouse over pixel ``(x, y)`` without pressing."""

    x: int
    y: int
    action_type: Literal["hover"] = "hover"


@_SHAPE
@dataclass(frozen=True, slots=True)
class PointerDown:
    """Move the mouse to pixel ``(x, y)`` and press its button (the start of a drag)."""

    x: int
    y: int
    action_type: Literal["pointer_down"] = "pointer_down"


@_SHAPE
@dataclass(frozen=True, slots=True)
class PointerMove:
    """Move the mouse to pixel ``(x, y)`` in steps, its button as it is."""

    x: int
    y: int
    action_type: Literal["pointer_move"] = "pointer_move"


@_SHAPE
@dataclass(frozen=True, slots=True)
class PointerUp:
    """Release the mouse button where the mouse is (the end of a drag)."""

    action_type: Literal["pointer_up"] = "pointer_up"


@_SHAPE
@dataclass(frozen=True, slots=True)
class Drag:
    """Drag from pixel ``(x1, y1)`` to ``(x2, y2)``: press there, move in steps, release (a swipe on a phone)."""

    x1: int
    y1: int
    x2: int
    y2: int
    action_type: Literal["drag"] = "drag"


@_SHAPE
@dataclass(frozen=True, slots=True)
class ChooseOption:
    """Choose the option whose text is ``option`` in the ``<select>`` at pixel ``(x, y)``."""

    x: int
    y: int
    option: str
    action_type: Literal["choose_option"] = "choose_option"


Action = (
    Click | LongPress | InputText | KeyboardEnter | NavigateHome | NavigateBack | Scroll | OpenApp
    | LaunchAdbActivity | Wait | PressKey | HoldModifier | ControlClick | Hover | PointerDown | PointerMove
    | PointerUp | Drag | ChooseOption
)
#: The actions only a web page can perform (a device without that surface refuses them).
WebOnlyAction = PressKey | HoldModifier | ControlClick | Hover | PointerDown | PointerMove | PointerUp | ChooseOption
WEB_ONLY: tuple[type[WebOnlyAction], ...] = get_args(WebOnlyAction)

#: Every action's ``action_type``, read off the classes (so the list cannot miss a kind).
ACTION_TYPES: tuple[str, ...] = tuple(cls.__dataclass_fields__["action_type"].default for cls in get_args(Action))
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
#: A Markdown code fence, optionally labelled ``json``: the paper grounder asks for its answer in one.
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


def point_of(action: Action) -> tuple[int, int] | None:
    """The screen point an action aims at (a tap, a long press, typing or a scroll given one, a pointer's
    target, a chosen option's list; a drag's start), else None."""
    if isinstance(action, Click | LongPress | ControlClick | Hover | PointerDown | PointerMove | ChooseOption):
        return action.x, action.y
    if isinstance(action, Drag):
        return action.x1, action.y1
    if isinstance(action, InputText | Scroll) and action.x is not None and action.y is not None:
        return action.x, action.y
    return None


def _int_field(obj: dict[str, object], key: str, *, required: bool) -> int | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise GroundingError(f"action {obj.get('action_type')!r} needs an integer {key!r}")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise GroundingError(f"{key!r} must be a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise GroundingError(f"{key!r} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        # round() of an infinity raises OverflowError: a model's "1e999" must not crash the episode.
        raise GroundingError(f"{key!r} must be a finite number, got {value!r}")
    return round(number)


def _str_field(obj: dict[str, object], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or (key != "text" and not value.strip()):
        raise GroundingError(f"action {obj.get('action_type')!r} needs a string {key!r}, got {value!r}")
    return value


def _required_int(obj: dict[str, object], key: str) -> int:
    value = _int_field(obj, key, required=True)
    assert value is not None, "required"
    return value


def _bool_field(obj: dict[str, object], key: str, default: bool | None = None) -> bool:
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise GroundingError(f"action {obj.get('action_type')!r} needs true or false for {key!r}, got {value!r}")
    return value


def _choice(obj: dict[str, object], key: str, allowed: tuple[str, ...]) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or value.lower() not in allowed:
        raise GroundingError(f"action {obj.get('action_type')!r} needs {key!r} to be one of {', '.join(allowed)}, "
                             f"got {value!r}")
    return value.lower()


def _web_action(kind: str, obj: dict[str, object]) -> Action | None:
    """The web page's actions (:data:`WEB_ONLY` and the drag), or None for another kind."""
    if kind in ("control_click", "hover", "pointer_down", "pointer_move"):
        pointed: dict[str, type[ControlClick | Hover | PointerDown | PointerMove]] = {
            "control_click": ControlClick, "hover": Hover, "pointer_down": PointerDown, "pointer_move": PointerMove}
        return pointed[kind](_required_int(obj, "x"), _required_int(obj, "y"))
    if kind == "pointer_up":
        return PointerUp()
    if kind == "drag":
        x1, y1, x2, y2 = (_required_int(obj, key) for key in ("x1", "y1", "x2", "y2"))
        return Drag(x1, y1, x2, y2)
    if kind == "press_key":
        times = _int_field(obj, "times", required=False)
        if times is not None and not 1 <= times <= MAX_PRESSES:
            raise GroundingError(f"press_key times must be from 1 to {MAX_PRESSES}, got {times}")
        return PressKey(_choice(obj, "key", WEB_KEYS), 1 if times is None else times)  # type: ignore[arg-type]
    if kind == "hold_modifier":
        return HoldModifier(_choice(obj, "modifier", MODIFIERS), _bool_field(obj, "down"))  # type: ignore[arg-type]
    if kind == "choose_option":
        return ChooseOption(_required_int(obj, "x"), _required_int(obj, "y"), _str_field(obj, "option"))
    return None


def action_from_json(obj: dict[str, object]) -> Action:
    """Build an action from its JSON object form.

    Raises:
        GroundingError: If the object is not a valid action, naming the problem.
    """
    kind = obj.get("action_type")
    if kind not in ACTION_TYPES:
        raise GroundingError(f"unknown action_type {kind!r}; expected one of {', '.join(ACTION_TYPES)}")
    if kind == "click":
        return Click(_required_int(obj, "x"), _required_int(obj, "y"))
    if kind == "long_press":
        return LongPress(_required_int(obj, "x"), _required_int(obj, "y"))
    if kind == "input_text":
        return InputText(_str_field(obj, "text"), _int_field(obj, "x", required=False),
                         _int_field(obj, "y", required=False), _bool_field(obj, "clear", False))
    if kind == "scroll":
        direction = obj.get("direction")
        if direction not in DIRECTIONS:
            raise GroundingError(f"scroll direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
        return Scroll(direction, _int_field(obj, "x", required=False),  # type: ignore[arg-type]
                      _int_field(obj, "y", required=False))
    if kind == "open_app":
        return OpenApp(_str_field(obj, "app_name"))
    if kind == "launch_adb_activity":
        # The paper's grounder names the field ``activity_nickname``; the project's ``llm`` prompt ``activity``.
        given = {key: obj[key] for key in ("activity_nickname", "activity") if key in obj}
        if len(set(map(str, given.values()))) > 1:
            raise GroundingError(f"activity_nickname and activity disagree: {given!r}")
        activity = next(iter(given.values()), None)
        if activity not in SYSTEM_ACTIVITIES:
            raise GroundingError(f"activity_nickname must be one of {', '.join(SYSTEM_ACTIVITIES)}, got {activity!r}")
        return LaunchAdbActivity(activity)  # type: ignore[arg-type]
    if kind == "wait":
        seconds = obj.get("seconds", 1.0)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds <= 60:
            raise GroundingError(f"wait seconds must be a number from 0 to 60, got {seconds!r}")
        return Wait(float(seconds))
    web = _web_action(str(kind), obj)
    if web is not None:
        return web
    simple: dict[str, type[KeyboardEnter | NavigateHome | NavigateBack]] = {
        "keyboard_enter": KeyboardEnter, "navigate_home": NavigateHome, "navigate_back": NavigateBack}
    return simple[str(kind)]()


def parse_action(text: str) -> Action:
    """Parse an LLM's answer into an action: the one place LLM JSON becomes an :data:`Action`.

    Accepts the JSON object bare, inside a Markdown code fence (```` ```json ````), or
    after an ``Action:`` label, as models produce all three. When the answer has a
    fenced block holding an object, only the first such block is read, so braces in
    prose around it cannot be mistaken for the action.

    Raises:
        GroundingError: If no valid action can be read, saying why.
    """
    fenced = next((m.group(1) for m in _FENCE.finditer(text) if "{" in m.group(1)), None)
    if fenced is not None:
        text = fenced
    match = _JSON_OBJECT.search(text)
    if match is None:
        raise GroundingError(f"no JSON object in the grounder's answer: {text[:200]!r}")
    try:
        obj = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        # Models sometimes add prose after the object; retry on the first object only.
        first = text[match.start():text.find("}", match.start()) + 1]
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            snippet = match.group(0)[:200]
            raise GroundingError(f"the grounder's JSON is malformed ({exc.msg}): {snippet!r}") from None
    if not isinstance(obj, dict):
        raise GroundingError(f"expected a JSON object, got {type(obj).__name__}")
    return action_from_json(obj)


def action_to_json(action: Action) -> dict[str, object]:
    """JSON object form of ``action`` (``action_type`` first, ``None`` fields omitted)."""
    out: dict[str, object] = codec.encode(action)
    return out
