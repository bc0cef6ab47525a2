"""Sending a grounded action to the device.

A web page's own actions (keys pressed N times, held modifiers, a click with Control held, hovering, the
mouse button, a ``<select>``'s option, emptying a field before typing) go to the device's
:class:`~latent_agent.device.web_page.WebPage`; a device whose surface is not a web page refuses them with
``ActionNotSupportedError``. A drag is the mouse's press, moves and release on a web page, and a swipe on a
phone.
"""

from __future__ import annotations

from typing import assert_never

from latent_agent.accessibility.tree import Bounds, UITree
from latent_agent.device.base import Device, Key
from latent_agent.device.web_page import WebPage, web_page
from latent_agent.errors import ActionNotSupportedError
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

#: How long a drag on a phone takes (a swipe slow enough to carry what it picked up).
DRAG_MS = 600


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


def _web(device: Device, what: str) -> WebPage:
    """The device's web page, or the refusal of ``what`` by a device that shows none."""
    page = web_page(device)
    if page is None:
        raise ActionNotSupportedError(f"{what} needs a web page; this device ({type(device).__name__}) is a "
                                      f"{device.capabilities.surface}")
    return page


def _input_text(a: InputText, device: Device, tree: UITree) -> str:
    page = _web(device, "emptying a field before typing") if a.clear else None
    done = ""
    if a.x is not None and a.y is not None:
        device.tap(a.x, a.y)
        done = f"tap({a.x}, {a.y}); "
    if page is not None:
        page.press("ctrl+a")
        page.press("backspace")
        done += "press('ctrl+a'); press('backspace'); "
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


def _press(a: PressKey, device: Device, tree: UITree) -> str:
    _web(device, f"pressing {a.key}").press(a.key, a.times)
    return f"press({a.key!r}" + (f", times={a.times})" if a.times != 1 else ")")


def _hold(a: HoldModifier, device: Device, tree: UITree) -> str:
    _web(device, f"holding {a.modifier}").hold(a.modifier, a.down)
    return f"hold({a.modifier!r}, down={a.down})"


def _control_click(a: ControlClick, device: Device, tree: UITree) -> str:
    page = _web(device, "a click with Control held")
    page.hold("control", True)
    try:
        device.tap(a.x, a.y)
    finally:
        page.hold("control", False)
    return f"control_click({a.x}, {a.y})"


def _hover(a: Hover, device: Device, tree: UITree) -> str:
    _web(device, "hovering").hover(a.x, a.y)
    return f"hover({a.x}, {a.y})"


def _pointer_down(a: PointerDown, device: Device, tree: UITree) -> str:
    _web(device, "pressing the mouse button").pointer_down(a.x, a.y)
    return f"pointer_down({a.x}, {a.y})"


def _pointer_move(a: PointerMove, device: Device, tree: UITree) -> str:
    _web(device, "moving the mouse").pointer_move(a.x, a.y)
    return f"pointer_move({a.x}, {a.y})"


def _pointer_up(a: PointerUp, device: Device, tree: UITree) -> str:
    _web(device, "releasing the mouse button").pointer_up()
    return "pointer_up()"


def _drag(a: Drag, device: Device, tree: UITree) -> str:
    page = web_page(device)
    if page is None:
        device.swipe(a.x1, a.y1, a.x2, a.y2, DRAG_MS)
        return f"swipe({a.x1}, {a.y1}, {a.x2}, {a.y2}, {DRAG_MS})"
    page.pointer_down(a.x1, a.y1)
    try:
        page.pointer_move(a.x2, a.y2)
    finally:
        page.pointer_up()
    return f"drag({a.x1}, {a.y1}, {a.x2}, {a.y2})"


def _choose(a: ChooseOption, device: Device, tree: UITree) -> str:
    _web(device, "choosing an option of a list").choose_option(a.x, a.y, a.option)
    return f"choose_option({a.x}, {a.y}, {a.option!r})"




def execute(action: Action, device: Device, tree: UITree) -> str:
    """Perform ``action``; returns what was sent, in words (``tap(540, 1200)``).

    Args:
        action: The grounded action.
        device: Where to perform it.
        tree: The cleaned tree it was grounded on (to find the list a scroll point is in).

    Raises:
        DeviceError: The device refused or failed (``AppNotFoundError`` for an unknown app;
            ``ActionNotSupportedError`` for a web page's action on a device that shows none).
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
        case PressKey():
            return _press(action, device, tree)
        case HoldModifier():
            return _hold(action, device, tree)
        case ControlClick():
            return _control_click(action, device, tree)
        case Hover():
            return _hover(action, device, tree)
        case PointerDown():
            return _pointer_down(action, device, tree)
        case PointerMove():
            return _pointer_move(action, device, tree)
        case PointerUp():
            return _pointer_up(action, device, tree)
        case Drag():
            return _drag(action, device, tree)
        case ChooseOption():
            return _choose(action, device, tree)
        case _:
            assert_never(action)
