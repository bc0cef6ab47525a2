"""The device's actions on a MiniWoB++ page: a finger as the mouse, the keyboard, the wheel.

Coordinates arrive in device pixels and become CSS pixels (divided by the page's scale). A tap is a
mouse click; a long press holds the button; a swipe is a drag with intermediate moves (jQuery UI's
draggables and sortables follow the moves); a scroll turns the wheel over the element it scrolls; typing
goes to the focused element, key by key. Waiting for idle waits until no animation runs (CSS and
jQuery's), no short timer is pending and the DOM has not changed for a moment (the init script,
``js/page_init.js``, counts the timers and watches the DOM).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from latent_agent.device.base import Key
from latent_agent.device.miniwob.browser import BrowserPage
from latent_agent.errors import ActionNotSupportedError, DeviceActionError

if TYPE_CHECKING:
    from playwright.async_api import Page

#: Playwright's names of the keys a page has; Back, Home and the app switcher have none.
KEYS: dict[Key, str] = {Key.ENTER: "Enter", Key.DEL: "Backspace"}
#: Mouse moves of a swipe (each a mousemove event the page sees).
SWIPE_MOVES = 12
#: Seconds the DOM must stay unchanged to count as idle.
QUIET_S = 0.05
#: Seconds between two looks at the page while waiting for idle.
IDLE_POLL_S = 0.02

_BUSY = """() => {
  const latent = window.__latent;
  const animations = document.getAnimations().filter((a) => a.playState === 'running').length;
  const jq = window.jQuery && window.jQuery.timers ? window.jQuery.timers.length : 0;
  const timers = latent ? latent.pendingTimers.size : 0;
  const quietMs = latent ? performance.now() - latent.lastMutation : 1e9;
  return [animations + jq + timers, quietMs];
}"""

_EDITABLE = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return false;
  if (el.isContentEditable) return true;
  if (el.tagName === 'TEXTAREA') return !el.readOnly && !el.disabled;
  if (el.tagName !== 'INPUT') return false;
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'range', 'color', 'file'].includes(type)
    && !el.readOnly && !el.disabled;
}"""


#: Waits, frame by frame, for a wheel's smooth scroll to start and come to rest (nothing else reports it).
_SCROLL_SETTLED = """async ([x, y]) => {
  const positions = () => {
    const out = [window.scrollX, window.scrollY];
    for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) out.push(el.scrollTop, el.scrollLeft);
    return out.join(',');
  };
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const start = positions();
  let last = start, still = 0;
  for (let i = 0; i < 120; i++) {
    await frame();
    const now = positions();
    still = now === last ? still + 1 : 0;
    last = now;
    if (still >= (now === start ? 20 : 3)) return;
  }
}"""


def _css(page: BrowserPage, x: int, y: int) -> tuple[float, float]:
    shape = page.shape
    if not (0 <= x < shape.width * shape.scale and 0 <= y < shape.height * shape.scale):
        raise DeviceActionError(f"({x}, {y}) is off the screen ({shape.width * shape.scale}x"
                                f"{shape.height * shape.scale})")
    return x / shape.scale, y / shape.scale


def tap(page: BrowserPage, x: int, y: int) -> None:
    cx, cy = _css(page, x, y)
    page.run(lambda p: p.mouse.click(cx, cy))


def long_press(page: BrowserPage, x: int, y: int, duration_ms: int) -> None:
    cx, cy = _css(page, x, y)

    async def hold(p: Page) -> None:
        await p.mouse.move(cx, cy)
        await p.mouse.down()
        await p.wait_for_timeout(duration_ms)
        await p.mouse.up()

    page.run(hold, timeout=duration_ms / 1000 + 30)


def swipe(page: BrowserPage, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
    start, end = _css(page, x1, y1), _css(page, x2, y2)

    async def drag(p: Page) -> None:
        await p.mouse.move(*start)
        await p.mouse.down()
        for i in range(1, SWIPE_MOVES + 1):
            await p.mouse.move(start[0] + (end[0] - start[0]) * i / SWIPE_MOVES,
                               start[1] + (end[1] - start[1]) * i / SWIPE_MOVES)
            await p.wait_for_timeout(duration_ms / SWIPE_MOVES)
        await p.mouse.up()

    page.run(drag, timeout=duration_ms / 1000 + 30)


def wheel(page: BrowserPage, x: int, y: int, dx: int, dy: int) -> None:
    """Turn the wheel over ``(x, y)`` by ``(dx, dy)`` device pixels (positive ``dy`` shows what is below)."""
    cx, cy = _css(page, x, y)
    scale = page.shape.scale

    async def turn(p: Page) -> None:
        await p.mouse.move(cx, cy)
        await p.mouse.wheel(dx / scale, dy / scale)
        await p.evaluate(_SCROLL_SETTLED, [cx, cy])

    page.run(turn)


def type_text(page: BrowserPage, text: str) -> None:
    """Type into the focused field.

    Raises:
        DeviceActionError: No editable field has focus (the text would go nowhere).
    """
    if not page.evaluate(_EDITABLE):
        raise DeviceActionError(f"no text field has focus; {text!r} was not typed (tap a field first)")
    page.run(lambda p: p.keyboard.type(text))


def press(page: BrowserPage, key: Key) -> None:
    """Press ``key``.

    Raises:
        ActionNotSupportedError: Back, Home and the app switcher: a web page has none.
    """
    name = KEYS.get(key)
    if name is None:
        raise ActionNotSupportedError(f"a MiniWoB++ page has no {key.name} key (only Enter and Delete)")
    page.run(lambda p: p.keyboard.press(name))


def wait_for_idle(page: BrowserPage, timeout: float) -> None:
    """Wait until nothing animates, no short timer is pending and the DOM is quiet, or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        busy, quiet_ms = page.evaluate(_BUSY)
        if busy == 0 and quiet_ms >= QUIET_S * 1000:
            return
        if time.monotonic() >= deadline:
            return
        time.sleep(IDLE_POLL_S)
