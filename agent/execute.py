"""Sending a grounded action to the device."""

from __future__ import annotations

from typing import assert_never

from latent_agent.accessibility.tree import Bounds, UITree
from latent_agent.device.base import Device, Key
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


def _scroll_area(tree: UITree, x: int | None, y: int | None) -> Bounds | None:
    """The smallest scrollable element under ``(x, y)``, or None (scroll the whole screen)."""
    if x is None or y is None:
        return None
    best: Bounds | None = None
    for node in tree.iter():
        b = node.bounds
        if node.scrollable and b is not None and b.contains_point(x, y) and (best is None or b.area < best.area):
            best = b
    return best


def _click(a: Click, device: Device, tree: UITree) -> str:
    device.tap(a.x, a.y)
    return f"tap({a.x}, {a.y})"


def _long_press(a: LongPress, device: Device, tree: UITree) -> str:
    device.long_press(a.x, a.y)
    return f"long_press({a.x}, {a.y})"


def _input_text(a: InputText, device: Device, tree: UITree) -> str:
    done = ""
    if a.x is not None and a.y is not None:
        device.tap(a.x, a.y)
        done = f"tap({a.x}, {a.y}); "
    device.input_text(a.text)
    return done + f"input_text({a.text!r})"


def _enter(a: KeyboardEnter, device: Device, tree: UITree) -> str:
    device.press_key(Key.ENTER)
    return "press_key(ENTER)"


def _home(a: NavigateHome, device: Device, tree: UITree) -> str:
    device.press_key(Key.HOME)
    return "press_key(HOME)"


def _back(a: NavigateBack, device: Device, tree: UITree) -> str:
    device.press_key(Key.BACK)
    return "press_key(BACK)"


def _scroll(a: Scroll, device: Device, tree: UITree) -> str:
    area = _scroll_area(tree, a.x, a.y)
    device.scroll(a.direction, within=area)
    return f"scroll({a.direction!r}" + (f", within={area.to_android()})" if area else ")")


def _open_app(a: OpenApp, device: Device, tree: UITree) -> str:
    package = device.open_app(a.app_name)
    return f"open_app({a.app_name!r}) -> {package}"


def _launch(a: LaunchAdbActivity, device: Device, tree: UITree) -> str:
    device.launch_activity(a.activity)
    return f"launch_activity({a.activity!r})"


def _wait(a: Wait, device: Device, tree: UITree) -> str:
    device.wait_for_idle(timeout=a.seconds)
    return f"wait_for_idle({a.seconds:g})"




def execute(action: Action, device: Device, tree: UITree) -> str:
    """Perform ``action``; returns what was sent, in words (``tap(540, 1200)``).

    Args:
        action: The grounded action.
        device: Where to perform it.
        tree: The cleaned tree it was grounded on (to find the list a scroll point is in).

    Raises:
        DeviceError: The device refused or failed (``AppNotFoundError`` for an unknown app).
    """
    # A match over the union, not a table by type: mypy then flags an action kind without a handler.
    match action:
        case Click():
            return _click(action, device, tree)
        case LongPress():
            return _long_press(action, device, tree)
        case InputText():
            return _input_text(action, device, tree)
        case KeyboardEnter():
            return _enter(action, device, tree)
        case NavigateHome():
            return _home(action, device, tree)
        case NavigateBack():
            return _back(action, device, tree)
        case Scroll():
            return _scroll(action, device, tree)
        case OpenApp():
            return _open_app(action, device, tree)
        case LaunchAdbActivity():
            return _launch(action, device, tree)
        case Wait():
            return _wait(action, device, tree)
        case _:
            assert_never(action)
