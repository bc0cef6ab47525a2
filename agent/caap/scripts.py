"""The project's actions in CAAP's script form: which catalogue function stands for which action.

The policy turns the model's function calls into actions; demonstrations (recorded from reference solutions or
from a sweep's episodes) turn actions back into script actions. Both read the one table here, so a function and
its action cannot drift apart (a launched system surface was once recorded as ``launch_adb_activity``, a name
the catalogue does not have).

On a web page the functions are the published MiniWoB++ table's (:data:`~latent_agent.agent.caap.answer.WEB_CATALOGUE`),
and one action of another method's episode may be several of them: typing at a point is a click, then
``type_text`` (the published ``type_text`` types into the focused element); emptying the field first adds
``press_control_A`` (what is typed then replaces the selection); a drag is its hold, move and release. A wait
changes nothing and is no function. An action no function stands for (a key other than Control+A/C/V, a
scroll, a long press) cannot be written: :class:`NotAFunction`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from latent_agent.agent.caap.demos import ScriptAction
from latent_agent.agent.caap.elements import UIElement
from latent_agent.grounder.actions import (
    Action,
    ChooseOption,
    Click,
    ControlClick,
    Drag,
    HoldModifier,
    Hover,
    InputText,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    NavigateHome,
    OpenApp,
    PointerDown,
    PointerMove,
    PointerUp,
    PressKey,
    Scroll,
    Wait,
)
from latent_agent.surfaces import Surface

#: Catalogue functions without arguments, each standing for one fixed action.
FIXED_ACTIONS: dict[str, Action] = {
    "press_enter": KeyboardEnter(), "navigate_back": NavigateBack(), "navigate_home": NavigateHome(),
    "open_quick_settings": LaunchAdbActivity("quick_settings"), "open_app_drawer": LaunchAdbActivity("app_drawer"),
    "wait": Wait(),
}


#: The web catalogue's key presses and the keys they press.
WEB_KEYS: dict[str, PressKey] = {
    "press_control_A": PressKey("ctrl+a"), "press_control_C": PressKey("ctrl+c"), "press_control_V": PressKey("ctrl+v"),
}
#: The web catalogue's element functions: a click, a click with Control held, pointing.
CLICK, CONTROL_CLICK, POINT = "click_element", "control_click_element", "point_element"
#: The web catalogue's point functions: a click at a position, and a drag's hold, move and release.
CLICK_POINT, HOLD, MOVE, RELEASE = "click_new_point", "drag_mouse_hold_down", "drag_mouse_move", "drag_mouse_release"


class NotAFunction(ValueError):
    """An action no function of the surface's catalogue stands for (a demonstration cannot show it)."""


def element_under(elements: Sequence[UIElement], x: int | None, y: int | None) -> UIElement | None:
    """The smallest listed element (not a scrolling container) under ``(x, y)``."""
    if x is None or y is None:
        return None
    under = [e for e in elements if e.bounds.contains_point(x, y) and not e.scrollable]
    return min(under, key=lambda e: e.bounds.area) if under else None


def fixed_function(action: KeyboardEnter | NavigateBack | NavigateHome | LaunchAdbActivity | Wait) -> str:
    """The catalogue function of an action that takes no element or argument (any wait is ``wait``)."""
    if isinstance(action, Wait):
        return "wait"
    return next(name for name, fixed in FIXED_ACTIONS.items() if fixed == action)


def script_action(action: Action, elements: Sequence[UIElement]) -> ScriptAction:
    """``action`` in script form, on the screen whose element list is ``elements`` (the element a tap, long press
    or typing lands on; typing without a point goes to the focused element).

    Raises:
        NotAFunction: A web page's own action, which a phone's catalogue has no function for.
    """
    match action:
        case Click() | LongPress():
            target = element_under(elements, action.x, action.y)
            name = "click_element" if isinstance(action, Click) else "long_press_element"
            return ScriptAction(name, target.attributes() if target is not None else {})
        case InputText():
            field = element_under(elements, action.x, action.y) or next((e for e in elements if e.focused), None)
            return ScriptAction("type_text", field.attributes() if field is not None else {}, {"text": action.text})
        case Scroll():
            return ScriptAction("scroll", params={"direction": action.direction})
        case OpenApp():
            return ScriptAction("open_app", params={"app_name": action.app_name})
        case KeyboardEnter() | NavigateBack() | NavigateHome() | LaunchAdbActivity() | Wait():
            return ScriptAction(fixed_function(action))
        case PressKey() | HoldModifier() | ControlClick() | Hover() | PointerDown() | PointerMove() | PointerUp() \
                | Drag() | ChooseOption():
            raise NotAFunction(f"{action.action_type} is a web page's action; a phone's catalogue has no function "
                               "for it")
        case _:
            assert_never(action)


def _on_element(name: str, elements: Sequence[UIElement], x: int, y: int) -> ScriptAction:
    target = element_under(elements, x, y)
    if target is None:
        raise NotAFunction(f"{name} at ({x}, {y}) is on no listed element")
    return ScriptAction(name, target.attributes())


def _at_point(name: str, elements: Sequence[UIElement], x: int, y: int) -> ScriptAction:
    """A point function, with the element under the point when one is listed (what a drag picks up)."""
    target = element_under(elements, x, y)
    return ScriptAction(name, target.attributes() if target is not None else {}, {"x": x, "y": y})


def _click(elements: Sequence[UIElement], x: int, y: int) -> ScriptAction:
    """A click on the listed element under the point, else a click at the point."""
    target = element_under(elements, x, y)
    return ScriptAction(CLICK, target.attributes()) if target is not None else ScriptAction(CLICK_POINT,
                                                                                            params={"x": x, "y": y})


def web_script_actions(action: Action, elements: Sequence[UIElement]) -> tuple[ScriptAction, ...]:
    """``action`` as the published MiniWoB++ functions, on the screen whose element list is ``elements``.

    Raises:
        NotAFunction: No function of the web catalogue stands for it.
    """
    match action:
        case Click():
            return (_click(elements, action.x, action.y),)
        case ControlClick():
            return (_on_element(CONTROL_CLICK, elements, action.x, action.y),)
        case Hover():
            return (_on_element(POINT, elements, action.x, action.y),)
        case InputText():
            before = (_click(elements, action.x, action.y),) if action.x is not None and action.y is not None else ()
            select = (ScriptAction("press_control_A"),) if action.clear else ()
            return (*before, *select, ScriptAction("type_text", params={"string_to_type": action.text}))
        case PressKey() if action.key in ("ctrl+a", "ctrl+c", "ctrl+v"):
            name = next(n for n, key in WEB_KEYS.items() if key.key == action.key)
            return tuple(ScriptAction(name) for _ in range(action.times))
        case PointerDown():
            return (_at_point(HOLD, elements, action.x, action.y),)
        case PointerMove():
            return (_at_point(MOVE, elements, action.x, action.y),)
        case PointerUp():
            return (ScriptAction(RELEASE),)
        case Drag():
            return (_at_point(HOLD, elements, action.x1, action.y1), _at_point(MOVE, elements, action.x2, action.y2),
                    ScriptAction(RELEASE))
        case Wait():
            return ()
        case PressKey() | LongPress() | KeyboardEnter() | Scroll() | NavigateBack() | NavigateHome() | OpenApp() \
                | LaunchAdbActivity() | HoldModifier() | ChooseOption():
            raise NotAFunction(f"the published MiniWoB++ functions have none for {action.action_type}")
        case _:
            assert_never(action)


def script_actions(action: Action, elements: Sequence[UIElement], surface: Surface) -> tuple[ScriptAction, ...]:
    """``action`` in the script form of ``surface``'s catalogue (several functions, or none, on a web page).

    Raises:
        NotAFunction: No function of that catalogue stands for it.
    """
    return web_script_actions(action, elements) if surface.web else (script_action(action, elements),)
