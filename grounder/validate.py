"""Checks that a grounded action can be sent to the screen it was grounded on.

Taps and long presses must land on the screen and inside an element of the
compact list (a point between elements is a guess, not a target); typed text
with a point must land on an element too, and so must a click with Control held
and a chosen option's list; a scroll point, a hover, the mouse's presses and
moves and both ends of a drag must be on screen; an app must be installed.
"""

from __future__ import annotations

from latent_agent.device.base import resolve_app
from latent_agent.errors import AppNotFoundError, GroundingError
from latent_agent.grounder.actions import (
    Action,
    ChooseOption,
    Click,
    ControlClick,
    Drag,
    Hover,
    InputText,
    LongPress,
    OpenApp,
    PointerDown,
    PointerMove,
    Scroll,
)
from latent_agent.grounder.base import GroundingScreen

#: Pixels of slack around an element's box (models round centres and sizes).
TOLERANCE_PX = 4


def _on_screen(x: int, y: int, screen: GroundingScreen) -> None:
    if not (0 <= x < screen.size.width and 0 <= y < screen.size.height):
        raise GroundingError(
            f"the point ({x}, {y}) is outside the {screen.size.width}x{screen.size.height} screen"
        )


def _on_element(x: int, y: int, screen: GroundingScreen) -> None:
    _on_screen(x, y, screen)
    for e in screen.elements:
        (cx, cy), (w, h) = e.center, e.size
        if abs(x - cx) <= w / 2 + TOLERANCE_PX and abs(y - cy) <= h / 2 + TOLERANCE_PX:
            return
    raise GroundingError(f"the point ({x}, {y}) is not on any element of the list")


def validate(action: Action, screen: GroundingScreen) -> None:
    """Check ``action`` against ``screen``.

    Raises:
        GroundingError: Saying what is wrong with it.
    """

    if isinstance(action, Click | LongPress | ControlClick | ChooseOption):
        _on_element(action.x, action.y, screen)
    elif isinstance(action, Hover | PointerDown | PointerMove):
        _on_screen(action.x, action.y, screen)
    elif isinstance(action, Drag):
        _on_screen(action.x1, action.y1, screen)
        _on_screen(action.x2, action.y2, screen)
    elif isinstance(action, InputText):
        if (action.x is None) != (action.y is None):
            raise GroundingError("input_text needs both x and y, or neither")
        if action.x is not None and action.y is not None:
            _on_element(action.x, action.y, screen)
    elif isinstance(action, Scroll):
        if (action.x is None) != (action.y is None):
            raise GroundingError("scroll needs both x and y, or neither")
        if action.x is not None and action.y is not None:
            _on_screen(action.x, action.y, screen)
    elif isinstance(action, OpenApp) and screen.apps:
        try:
            resolve_app(action.app_name, screen.apps)
        except AppNotFoundError as exc:
            raise GroundingError(str(exc)) from None
