"""Screenshots of the simulated phone, drawn with Pillow from the same windows as the dump.

The image is drawn in palette mode: a fixed palette of Material colours
(and a dimmed copy of each, for the scrim behind dialogs) keeps PNG encoding
of a 1080x2400 screen well under the 50 ms budget. Text uses DejaVu Sans when
the system has it and Pillow's built-in scalable font otherwise.
"""

from __future__ import annotations

import functools
import io
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

from latent_agent.device.sim.phone import LAUNCHER
from latent_agent.device.sim.ui import Node, Window
from latent_agent.device.sim.views import NAV_H, STATUS_H

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

    from latent_agent.device.sim.phone import Phone

# Palette slots; LIGHT and DARK give each slot's colour per theme.
(
    BG,
    TEXT,
    MUTED,
    PRIMARY,
    SURFACE,
    OUTLINE,
    ON_PRIMARY,
    TRACK,
    WALL,
    CARD,
    ACCENT1,
    ACCENT2,
    ACCENT3,
    ACCENT4,
) = range(14)
LIGHT = [
    (255, 255, 255),
    (32, 33, 36),
    (95, 99, 104),
    (26, 115, 232),
    (232, 240, 254),
    (218, 220, 224),
    (255, 255, 255),
    (189, 193, 198),
    (27, 58, 87),
    (241, 243, 244),
    (219, 68, 55),
    (15, 157, 88),
    (244, 180, 0),
    (171, 71, 188),
]
DARK = [
    (32, 33, 36),
    (232, 234, 237),
    (154, 160, 166),
    (138, 180, 248),
    (45, 60, 90),
    (95, 99, 104),
    (32, 33, 36),
    (95, 99, 104),
    (20, 30, 45),
    (48, 49, 52),
    (242, 139, 130),
    (129, 201, 149),
    (253, 214, 99),
    (197, 138, 249),
]
DIM = 16
ACCENTS = (PRIMARY, ACCENT1, ACCENT2, ACCENT3, ACCENT4)
GLYPHS = {
    "Navigate up": "←",
    "More options": "⋮",
    "Close ad": "✕",
    "Open settings": "⚙",
    "Home": "⌂",
    "Refresh": "⟳",
    "New tab": "+",
    "Add alarm": "+",
    "Create new event": "+",
    "Make font smaller": "−",
    "Make font bigger": "+",
    "Delete": "✕",
    "Start": "▶",
    "Switch or close tabs": "▢",
    "Customize and control Google Chrome": "⋮",
    "Folder": "▭",
    "Jump to Today": "◷",
    "Previous month": "‹",
    "Next month": "›",
    "Expand alarm": "▾",
    "Collapse alarm": "▴",
    "Close": "✕",
    "Pause": "❚❚",
}
#: Icons drawn as shapes: DejaVu Sans has no magnifier glyph (U+2315 came out as an empty box).
SHAPES = {"Search settings": "magnifier", "Search": "magnifier"}


@functools.lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans at ``size`` px, or Pillow's built-in font when DejaVu is not installed."""

    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _palette(dark: bool, inverted: bool) -> list[int]:
    colours = DARK if dark else LIGHT
    if inverted:
        colours = [(255 - r, 255 - g, 255 - b) for r, g, b in colours]
    flat: list[int] = []
    for r, g, b in colours + [(0, 0, 0)] * (DIM - len(colours)):
        flat += [r, g, b]
    for r, g, b in colours + [(0, 0, 0)] * (DIM - len(colours)):
        flat += [r * 2 // 5, g * 2 // 5, b * 2 // 5]
    return flat + [0] * (768 - len(flat))


def _text(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    text: str,
    size: int,
    fill: int,
    center: bool = False,
) -> None:
    left, top, right, bottom = box
    if right - left < 8 or not text:
        return
    text = " ".join(text.split())
    width = right - left
    f = font(size)
    # Shrink before cutting: a long label in a narrow tab or a large clock face
    # stays whole, as Android's autosizing TextViews do.
    while f.getlength(text) > width and size > 28:
        size = max(28, int(size * 0.9))
        f = font(size)
    if f.getlength(text) > width:
        while text and f.getlength(text + "…") > width:
            text = text[:-1]
        text += "…"
    x = left + (width - int(f.getlength(text))) // 2 if center else left
    y = (top + bottom) // 2
    draw.text((x, y), text, font=f, fill=fill, anchor="lm")


_SIZES = {"title": 58, "headline": 64, "header": 36, "summary": 36, "big": 110, "huge": 96}


@dataclass(frozen=True, slots=True)
class _Paint:
    """One node being drawn, with what its surroundings decide.

    Attributes:
        draw: The canvas.
        n: The node.
        on_wall: It sits on the wallpaper (the launcher): its text and icons are drawn light.
        in_searchbar: It is a child of a search bar (a leading glyph there is a magnifier).
    """

    draw: ImageDraw.ImageDraw
    n: Node
    on_wall: bool
    in_searchbar: bool

    @property
    def text_fill(self) -> int:
        return ON_PRIMARY if self.on_wall else TEXT

    @property
    def icon_fill(self) -> int:
        return ON_PRIMARY if self.on_wall else MUTED


def _node(draw: ImageDraw.ImageDraw, n: Node, on_wall: bool, in_searchbar: bool = False) -> None:
    """Draw one node: a node drawn whole by its role, else its background, then its control or its text."""
    left, top, right, bottom = n.bounds
    if right <= left or bottom <= top:
        return
    p = _Paint(draw, n, on_wall, in_searchbar)
    whole = _WHOLE.get(n.role)
    if whole is not None:
        whole(p)
        return
    _background(p)
    # The first control the node is drawn as; a node that is none of them is drawn as its text.
    paint = next((paint for matches, paint in _CONTROLS if matches(n)), _label)
    paint(p)


def _app_icon(p: _Paint) -> None:
    """A launcher icon: a disc in the app's accent colour with its initial, and its name below."""
    n, (left, top, right, _) = p.n, p.n.bounds
    cx, size = (left + right) // 2, min(right - left - 60, 140)
    accent = ACCENTS[zlib.crc32(n.text.encode()) % len(ACCENTS)]
    disc = (cx - size // 2, top + 20, cx + size // 2, top + 20 + size)
    p.draw.ellipse(disc, fill=accent)
    _text(p.draw, disc, n.text[:1], 64, ON_PRIMARY, True)
    _text(p.draw, (left, top + 40 + size, right, top + 100 + size), n.text, 34, p.text_fill, True)


def _tile(p: _Paint) -> None:
    """A quick-settings tile: filled while on."""
    p.draw.rounded_rectangle(p.n.bounds, radius=60, fill=SURFACE if p.n.checked else BG)


def _handle(p: _Paint) -> None:
    """The notification shade's drag handle."""
    left, top, right, _ = p.n.bounds
    p.draw.rounded_rectangle((left + 30, top + 25, right - 30, top + 40), radius=8, fill=ON_PRIMARY)


#: Roles drawn whole by one function (nothing else of the node is drawn).
_WHOLE: dict[str, Callable[[_Paint], None]] = {"app_icon": _app_icon, "tile": _tile, "handle": _handle}


def _background(p: _Paint) -> None:
    """What lies under a node's control or text: a card's outline, a dial's face, a divider, a selection."""
    n, draw = p.n, p.draw
    left, top, right, bottom = n.bounds
    role = n.role
    if role in ("card", "searchbar", "chip"):
        draw.rounded_rectangle(n.bounds, radius=min(60, (bottom - top) // 2), fill=CARD if role != "chip" else None,
                               outline=OUTLINE, width=3)
    elif role == "dial_face":
        draw.ellipse(n.bounds, fill=CARD)
    elif role == "divider":
        draw.line((left, top, right, top), fill=OUTLINE, width=2)
    if n.selected and role in ("tab", "dial", "chip", "row"):
        draw.rounded_rectangle(n.bounds, radius=40, fill=SURFACE)
    if role == "chip" and n.checked and not n.selected:
        # A checked toggle chip (AM/PM) is filled and outlined in the accent colour, as Material draws it.
        draw.rounded_rectangle(n.bounds, radius=min(60, (bottom - top) // 2), fill=SURFACE, outline=PRIMARY, width=3)


def _switch(p: _Paint) -> None:
    """A switch: its track, and the thumb at the end its state says."""
    n, (left, top, right, bottom) = p.n, p.n.bounds
    mid = (top + bottom) // 2
    p.draw.rounded_rectangle((left, mid - 32, right, mid + 32), radius=32, fill=PRIMARY if n.checked else TRACK)
    cx = right - 34 if n.checked else left + 34
    p.draw.ellipse((cx - 26, mid - 26, cx + 26, mid + 26), fill=ON_PRIMARY)


def _check_or_radio(p: _Paint) -> None:
    """A check box (a square, filled when checked) or a radio button (a ring, dotted when checked), and its label."""
    n, draw, (left, top, right, bottom) = p.n, p.draw, p.n.bounds
    mid = (top + bottom) // 2
    box = (left + 30, mid - 28, left + 86, mid + 28)
    if n.cls.endswith("CheckBox"):
        draw.rectangle(box, outline=PRIMARY if n.checked else MUTED, width=5, fill=PRIMARY if n.checked else None)
    else:
        draw.ellipse(box, outline=PRIMARY if n.checked else MUTED, width=5)
        if n.checked:
            draw.ellipse((left + 44, mid - 14, left + 72, mid + 14), fill=PRIMARY)
    _text(draw, (left + 120, top, right, bottom), n.text, 42, p.text_fill)


def _button(p: _Paint) -> None:
    """A filled button (greyed while disabled), with its text or the glyph of its description."""
    n, (_, top, _, bottom) = p.n, p.n.bounds
    p.draw.rounded_rectangle(n.bounds, radius=min(50, (bottom - top) // 2), fill=PRIMARY if n.enabled else TRACK)
    _text(p.draw, n.bounds, n.text or GLYPHS.get(n.desc, n.desc[:1]), 44 if n.text else 72, ON_PRIMARY, True)


def _text_button(p: _Paint) -> None:
    _text(p.draw, p.n.bounds, p.n.text, 42, PRIMARY, True)


def _edit_text(p: _Paint) -> None:
    """A text field: its outline (accented while focused), its text or hint (a password as dots), the cursor."""
    n, draw, (left, top, right, bottom) = p.n, p.draw, p.n.bounds
    draw.rounded_rectangle(n.bounds, radius=24, outline=PRIMARY if n.focused else OUTLINE, width=4)
    shown = n.text if n.text else n.hint
    _text(draw, (left + 30, top, right - 30, bottom), "•" * len(shown) if n.password and n.text else shown, 42,
          p.text_fill if n.text else MUTED)
    if n.focused:
        x = left + 34 + int(font(42).getlength(n.text)) if n.text else left + 30
        draw.line((x, top + 30, x, bottom - 30), fill=PRIMARY, width=3)


def _seek_bar(p: _Paint) -> None:
    left, top, right, bottom = p.n.bounds
    mid = (top + bottom) // 2
    p.draw.line((left + 20, mid, right - 20, mid), fill=PRIMARY, width=8)


def _icon(p: _Paint) -> None:
    """An icon: the magnifier, or the glyph of its description (its initial in a ring when it has no glyph)."""
    n, draw, (left, top, right, bottom) = p.n, p.draw, p.n.bounds
    size = min(right - left, bottom - top)
    cx, cy = (left + right) // 2, (top + bottom) // 2
    if SHAPES.get(n.desc) == "magnifier":
        _magnifier(draw, cx, cy, max(24, size // 2), p.icon_fill)
        return
    # A per-row button names its row ("More options for notes.txt"); its icon is the action's.
    glyph = GLYPHS.get(n.desc) or GLYPHS.get(n.desc.split(" for ", 1)[0], n.desc[:1].upper())
    if glyph == n.desc[:1].upper():
        draw.ellipse((cx - size // 3, cy - size // 3, cx + size // 3, cy + size // 3), outline=MUTED, width=3)
    _text(draw, (left, top, right, bottom), glyph, max(24, size // 2), p.icon_fill, True)


def _glyph(p: _Paint) -> None:
    """A decorative glyph: a dot, or a magnifier as a search bar's leading icon (as on the phone)."""
    left, top, right, bottom = p.n.bounds
    size = min(right - left, bottom - top) // 2
    cx, cy = (left + right) // 2, (top + bottom) // 2
    if p.in_searchbar:
        _magnifier(p.draw, cx, cy, size, MUTED)
        return
    p.draw.ellipse((cx - size // 2, cy - size // 2, cx + size // 2, cy + size // 2), fill=MUTED)


def _label(p: _Paint) -> None:
    """A node's text, sized and coloured by its role (a WebView's text is the page title: not drawn)."""
    n, role, (_, top, _, bottom) = p.n, p.n.role, p.n.bounds
    if not n.text or n.cls.endswith("WebView"):
        return
    # The picker's hour and minute chips are its headline, as large as Material's time display.
    size = 80 if role == "chip" and bottom - top >= 160 else _SIZES.get(role, 42)
    fill = {"summary": MUTED, "header": PRIMARY}.get(role, p.text_fill)
    if role == "dial":
        fill = ON_PRIMARY if n.selected else TEXT
        if n.selected:
            p.draw.ellipse(n.bounds, fill=PRIMARY)
    center = role in ("dial", "tab_label", "centered", "chip") or n.rid.endswith("label_view")
    _text(p.draw, n.bounds, n.text, size, fill, center)


#: The controls a node may be drawn as, by its role or its widget class: the first that matches draws it whole.
_CONTROLS: tuple[tuple[Callable[[Node], bool], Callable[[_Paint], None]], ...] = (
    (lambda n: n.role == "switch" and n.cls.endswith("Switch"), _switch),
    (lambda n: n.role == "radio" or n.cls.endswith(("RadioButton", "CheckBox")), _check_or_radio),
    (lambda n: n.role in ("button", "fab"), _button),
    (lambda n: n.role == "text_button", _text_button),
    (lambda n: n.cls.endswith("EditText"), _edit_text),
    (lambda n: n.cls.endswith("SeekBar"), _seek_bar),
    (lambda n: n.role == "icon" or (n.cls.endswith(("ImageButton", "ImageView")) and bool(n.desc)), _icon),
    (lambda n: n.role == "glyph", _glyph),
)


def _magnifier(draw: ImageDraw.ImageDraw, cx: int, cy: int, size: int, fill: int) -> None:
    """A search icon ``size`` px tall centred on (cx, cy): a lens ring and a handle to the lower right."""
    stroke = max(3, size // 9)
    r = size * 3 // 10
    lx, ly = cx - size // 10, cy - size // 10
    draw.ellipse((lx - r, ly - r, lx + r, ly + r), outline=fill, width=stroke)
    # The handle starts on the ring at 45 degrees (r / sqrt(2) ~ 0.71 r) and runs to the box's corner.
    start = (lx + r * 71 // 100, ly + r * 71 // 100)
    draw.line((start, (cx + size * 4 // 10, cy + size * 4 // 10)), fill=fill, width=stroke + 2)


def _status_bar(draw: ImageDraw.ImageDraw, phone: Phone, w: int, on_wall: bool) -> None:
    state = phone.state
    fill = ON_PRIMARY if on_wall else TEXT
    hours, minutes = divmod(state.minutes, 60)
    _text(draw, (60, 20, 400, STATUS_H - 20), f"{hours % 12 or 12}:{minutes:02d}", 40, fill)
    level = state.settings.battery_level
    right = w - 60
    draw.rounded_rectangle((right - 40, 40, right, 90), radius=6, outline=fill, width=4)
    draw.rectangle((right - 34, 90 - 44 * level // 100, right - 6, 84), fill=fill)
    if state.settings.battery_percentage:
        _text(draw, (right - 170, 20, right - 50, STATUS_H - 20), f"{level}%", 38, fill)
    if state.settings.network.wifi:
        draw.pieslice((right - 260, 34, right - 190, 104), 225, 315, fill=fill)
    if state.settings.network.airplane_mode:
        _text(draw, (right - 330, 20, right - 270, STATUS_H - 20), "✈", 44, fill, True)


def render_png(windows: list[Window], phone: Phone, package: str) -> bytes:
    """Draw ``windows`` (bottom first) with the status and gesture bars; PNG bytes."""


    w, h = phone.width, phone.height
    state = phone.state
    img = Image.new("P", (w, h), BG)
    img.putpalette(_palette(state.settings.display.dark_theme, state.settings.accessibility.color_inversion))
    draw = ImageDraw.Draw(img)
    draw.fontmode = "1"
    wall = False
    for window in windows:
        if window.modal and window.dim:
            img = img.point([i + DIM if i < DIM else i for i in range(256)])
            draw = ImageDraw.Draw(img)
            draw.fontmode = "1"
        on_wall = window.package == LAUNCHER
        wall = on_wall if not window.modal else wall
        root = window.root
        if root.role in ("dialog", "menu"):
            draw.rounded_rectangle(
                root.bounds, radius=48 if root.role == "dialog" else 16, fill=BG, outline=OUTLINE
            )
        elif root.role == "shade" or (root.children and root.children[0].role == "shade"):
            draw.rectangle(root.bounds, fill=CARD)
        elif not window.modal:
            draw.rectangle(root.bounds, fill=WALL if on_wall else BG)
        in_searchbar = {id(c) for parent in root.iter() if parent.role == "searchbar" for c in parent.children}
        for node in root.iter():
            if node.visible and not node.covered:
                _node(draw, node, on_wall, id(node) in in_searchbar)
    _status_bar(draw, phone, w, wall and package == LAUNCHER)
    draw.rounded_rectangle(
        (w // 2 - 110, h - NAV_H // 2 - 6, w // 2 + 110, h - NAV_H // 2 + 6),
        radius=6,
        fill=ON_PRIMARY if wall else TEXT,
    )
    out = io.BytesIO()
    img.save(out, "PNG", compress_level=1)
    return out.getvalue()
