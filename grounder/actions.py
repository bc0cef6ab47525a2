"""The device actions the grounder can produce: a union of small frozen types.

LLM output is turned into an :data:`Action` in exactly one place,
:func:`parse_action`; everything downstream (execution, trajectories,
annotation forms) works with the typed values and their JSON form
(:func:`action_to_json` / :func:`action_from_json`).

The JSON shape is the one the method's grounder prompt asks for, e.g.
``{"action_type": "click", "x": 540, "y": 1200}``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Literal, get_args

from latent_agent import codec
from latent_agent.device.base import DIRECTIONS, SYSTEM_ACTIVITIES, Direction, SystemActivity
from latent_agent.errors import GroundingError

#: An action's JSON object, as the grounder prompt shows it: its ``action_type`` first, unset coordinates left out.
_SHAPE = codec.shape(omit_none=True, leading=("action_type",))


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


@_SHAPE
@dataclass(frozen=True, slots=True)
class InputText:
    """Type ``text`` into the focused field (optionally tapping ``(x, y)`` first to focus it)."""

    text: str
    x: int | None = None
    y: int | None = None
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


Action = (
    Click | LongPress | InputText | KeyboardEnter | NavigateHome | NavigateBack | Scroll | OpenApp
    | LaunchAdbActivity | Wait
)

#: Every action's ``action_type``, read off the classes (so the list cannot miss a kind).
ACTION_TYPES: tuple[str, ...] = tuple(cls.__dataclass_fields__["action_type"].default for cls in get_args(Action))
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
#: A Markdown code fence, optionally labelled ``json``: the paper grounder asks for its answer in one.
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


def point_of(action: Action) -> tuple[int, int] | None:
    """The screen point an action aims at (a tap, a long press, typing or a scroll given one), else None."""
    if isinstance(action, Click | LongPress):
        return action.x, action.y
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


def action_from_json(obj: dict[str, object]) -> Action:
    """Build an action from its JSON object form.

    Raises:
        GroundingError: If the object is not a valid action, naming the problem.
    """
    kind = obj.get("action_type")
    if kind not in ACTION_TYPES:
        raise GroundingError(f"unknown action_type {kind!r}; expected one of {', '.join(ACTION_TYPES)}")
    if kind == "click":
        return Click(_int_field(obj, "x", required=True) or 0, _int_field(obj, "y", required=True) or 0)
    if kind == "long_press":
        return LongPress(_int_field(obj, "x", required=True) or 0, _int_field(obj, "y", required=True) or 0)
    if kind == "input_text":
        return InputText(_str_field(obj, "text"), _int_field(obj, "x", required=False),
                         _int_field(obj, "y", required=False))
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
