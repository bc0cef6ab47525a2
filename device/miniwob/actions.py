"""The device's actions on a MiniWoB++ page: a finger as the mouse, the keyboard, the wheel.

Coordinates arrive in device pixels and become CSS pixels (divided by the page's scale). A tap is a
mouse click; a long press holds the button; a swipe is a drag with intermediate moves (jQuery UI's
draggables and sortables follow the moves); a scroll turns the wheel over the element it scrolls; typing
goes to the focused element, key by key. Waiting for idle waits until no animation runs (CSS and
jQuery's), no short timer is pending and the DOM has not changed for a moment (the init script,
``js/page_init.js``, counts the timers and watches the DOM).

The web page's own calls (:class:`~latent_agent.device.web_page.WebPage`) are here too: keys by name pressed
N times, modifiers held and released (Playwright gives the held ones to every click), the mouse button
pressed, moved in steps and released, hovering, an element found by XPath and an option chosen in a
``<select>``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from latent_agent.accessibility.tree import Bounds
from latent_agent.device.base import Key
from latent_agent.device.miniwob.browser import BrowserPage
from latent_agent.device.web_page import Modifier, WebKey
from latent_agent.errors import ActionNotSupportedError, DeviceActionError

if TYPE_CHECKING:
    from playwright.async_api import Page

#: Playwright's names of the keys a page has; Back, Home and the app switcher have none.
KEYS: dict[Key, str] = {Key.ENTER: "Enter", Key.DEL: "Backspace"}
#: Mouse moves of a swipe (each a mousemove event the page sees).
SWIPE_MOVES = 12
#: Playwright's names of a web page's keys (:data:`~latent_agent.device.web_page.WebKey`).
WEB_KEY_NAMES: dict[WebKey, str] = {
    "enter": "Enter", "tab": "Tab", "space": "Space", "backspace": "Backspace", "delete": "Delete",
    "escape": "Escape", "arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight", "home": "Home", "end": "End", "ctrl+a": "Control+A", "ctrl+c": "Control+C",
    "ctrl+v": "Control+V"}
#: Playwright's names of the modifiers a web agent holds.
MODIFIER_NAMES: dict[Modifier, str] = {"control": "Control", "shift": "Shift"}
#: Mouse moves of a pointer's move or a hover (each a mousemove event: draggables follow them).
POINTER_MOVES = 12
#: Milliseconds between two of those moves (a drag as fast as a person's, as a swipe's).
POINTER_MOVE_MS = 25
#: Most presses of one key in one call.
MAX_PRESSES = 100
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


#: The box of the first element an XPath matches (the part shown on screen, else its whole box), in CSS
#: pixels, or null: nothing matches, or the expression is no XPath.
_LOCATE = """(xpath) => {
  let found;
  try {
    found = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  } catch (error) {
    return null;
  }
  if (found && found.nodeType === Node.ATTRIBUTE_NODE) found = found.ownerElement;
  else if (found && found.nodeType !== Node.ELEMENT_NODE) found = found.parentElement;
  if (!found) return null;
  const b = found.getBoundingClientRect();
  const whole = [b.left, b.top, b.right, b.bottom];
  let shown = [Math.max(0, whole[0]), Math.max(0, whole[1]), Math.min(window.innerWidth, whole[2]),
               Math.min(window.innerHeight, whole[3])];
  for (let el = found.parentElement; el && el !== document.documentElement; el = el.parentElement) {
    const style = getComputedStyle(el);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const c = el.getBoundingClientRect();
    shown = [Math.max(shown[0], c.left), Math.max(shown[1], c.top), Math.min(shown[2], c.right),
             Math.min(shown[3], c.bottom)];
  }
  return shown[2] > shown[0] && shown[3] > shown[1] ? shown : whole;
}"""

#: Chooses an option of the <select> at a point, as a person's choice does; returns what went wrong, or ''.
_CHOOSE = r"""([x, y, wanted]) => {
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const at = document.elementFromPoint(x, y);
  const select = at ? at.closest('select') : null;
  if (!select) return `no list (<select>) at the point` + (at ? ` (there is a <${at.tagName.toLowerCase()}>)` : '');
  if (select.disabled) return 'the list at the point is disabled';
  const texts = Array.from(select.options, (o) => squash(o.textContent));
  let index = texts.indexOf(squash(wanted));
  if (index < 0) {
    const lower = texts.map((t) => t.toLowerCase());
    const target = squash(wanted).toLowerCase();
    if (lower.filter((t) => t === target).length === 1) index = lower.indexOf(target);
  }
  if (index < 0) {
    const some = texts.slice(0, 8).map((t) => JSON.stringify(t)).join(', ');
    return `the list has no option ${JSON.stringify(wanted)} (it has ${texts.length}: ${some}` +
      (texts.length > 8 ? ', ...)' : ')');
  }
  const popup = document.getElementById('latent-select-popup');
  if (popup) popup.remove();
  select.focus();
  select.selectedIndex = index;
  select.dispatchEvent(new Event('input', { bubbles: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return '';
}"""


def press_web_key(page: BrowserPage, key: WebKey, times: int) -> None:
    """Press ``key`` ``times`` times.

    Raises:
        DeviceActionError: ``times`` is not from 1 to :data:`MAX_PRESSES`, or the key is unknown.
    """
    if isinstance(times, bool) or not isinstance(times, int) or not 1 <= times <= MAX_PRESSES:
        raise DeviceActionError(f"a key is pressed from 1 to {MAX_PRESSES} times, not {times!r}")
    name = WEB_KEY_NAMES.get(key)
    if name is None:
        raise DeviceActionError(f"a web page has no key {key!r}; keys: {', '.join(WEB_KEY_NAMES)}")

    async def presses(p: Page) -> None:
        for _ in range(times):
            await p.keyboard.press(name)

    page.run(presses)


def hold_modifier(page: BrowserPage, modifier: Modifier, down: bool) -> None:
    """Hold ``modifier`` down, or release it.

    Raises:
        DeviceActionError: An unknown modifier.
    """
    name = MODIFIER_NAMES.get(modifier)
    if name is None:
        raise DeviceActionError(f"a web page's modifiers are {', '.join(MODIFIER_NAMES)}, not {modifier!r}")
    page.run(lambda p: p.keyboard.down(name) if down else p.keyboard.up(name))


def glide(page: BrowserPage, x: int, y: int) -> None:
    """Move the mouse to ``(x, y)`` in :data:`POINTER_MOVES` steps, its button as it is."""
    cx, cy = _css(page, x, y)

    async def moves(p: Page) -> None:
        await p.mouse.move(cx, cy, steps=POINTER_MOVES)
        await p.wait_for_timeout(POINTER_MOVE_MS)

    page.run(moves)


def pointer_down(page: BrowserPage, x: int, y: int) -> None:
    """Move the mouse to ``(x, y)`` and press its button."""
    glide(page, x, y)
    page.run(lambda p: p.mouse.down())


def pointer_up(page: BrowserPage) -> None:
    """Release the mouse button where the mouse is."""
    page.run(lambda p: p.mouse.up())


def locate(page: BrowserPage, xpath: str) -> Bounds | None:
    """The device-pixel box of the first element ``xpath`` matches (see ``_LOCATE``), or None."""
    found = page.evaluate(_LOCATE, xpath)
    if found is None:
        return None
    scale = page.shape.scale
    left, top, right, bottom = (round(v * scale) for v in found)
    return Bounds(left, top, right, bottom)


def choose_option(page: BrowserPage, x: int, y: int, option: str) -> None:
    """Choose ``option`` in the ``<select>`` at ``(x, y)``.

    Raises:
        DeviceActionError: No ``<select>`` there, or no such option (one line naming some it has).
    """
    cx, cy = _css(page, x, y)
    problem = page.evaluate(_CHOOSE, [cx, cy, option])
    if problem:
        raise DeviceActionError(f"cannot choose {option!r} at ({x}, {y}): {problem}")


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
