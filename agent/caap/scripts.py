"""The project's actions in CAAP's script form: which catalogue function stands for which action.

The policy turns the model's function calls into actions; demonstrations (recorded from reference solutions or
from a sweep's episodes) turn actions back into script actions. Both read the one table here, so a function and
its action cannot drift apart (a launched system surface was once recorded as ``launch_adb_activity``, a name
the catalogue does not have).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from latent_agent.agent.caap.demos import ScriptAction
from latent_agent.agent.caap.elements import UIElement
from latent_agent.grounder.actions import (
    Action,
    Click,
    InputText,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    NavigateHome,
    OpenApp,
    Scroll,
    Wait,
)

#: Catalogue functions without arguments, each standing for one fixed action.
FIXED_ACTIONS: dict[str, Action] = {
    "press_enter": KeyboardEnter(), "navigate_back": NavigateBack(), "navigate_home": NavigateHome(),
    "open_quick_settings": LaunchAdbActivity("quick_settings"), "open_app_drawer": LaunchAdbActivity("app_drawer"),
    "wait": Wait(),
}


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
    or typing lands on; typing without a point goes to the focused element)."""
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
        case _:
            assert_never(action)
