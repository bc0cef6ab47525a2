"""Non-text controls found in a screenshot by shape: switches, checkboxes, radio buttons, fields, buttons, icons.

No model is involved. Pixels that differ from the screen's background colour form a mask;
text the OCR engine read is erased from it (so words do not become icons), the mask is
dilated a little so that the parts of one glyph (the three dots of a menu icon) join, and
each connected component is classified by its size, aspect, how much of its box it fills,
whether its corners are set and how colourful it is. Sizes are in units of a 1080-pixel-wide
screen and scale with the screenshot's width. A component the size of a panel (a dialog's
scrim, a card) is background, not a control.

State is read from the pixels: a switch is on when its knob (the part of the pill that is
not drawn) sits on the right; a checkbox or radio button is checked when its centre is set; a
field is focused when its outline is drawn in colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from latent_agent.accessibility.screen.ocr import TextLine
from latent_agent.accessibility.tree import Bounds

if TYPE_CHECKING:
    from numpy.typing import NDArray

ControlKind = Literal["switch", "checkbox", "radio", "field", "button", "icon"]

#: A pixel belongs to the foreground when one channel differs from the background by more than this.
FOREGROUND_DELTA = 28
#: A colourful component (a filled button, a switch that is on) has channels this far apart.
COLOURFUL = 60
#: How much more of one end of a pill than of the other is drawn, for the pill to be a switch (its knob).
KNOB_CONTRAST = 0.12
#: A dialog covers at least this share of the screen.
PANEL_SHARE = 0.05
#: A dialog is at least this share of the screen's height tall.
PANEL_HEIGHT = 0.12
#: How much brighter (mean of the channels, 0-255) a dialog is than the dimmed screen around it.
SCRIM_CONTRAST = 60
#: Share of the screen's height taken by the status bar at the top (what lies wholly inside it is left out).
STATUS_BAR = 0.045
#: Pixels of a 1080-wide screen the mask is dilated by, so that the parts of one glyph join.
JOIN_PX = 4
#: Specks (too small to be controls) this close together (1080-wide pixels) are parts of one glyph.
SPECK_GAP = 20
#: A component whose longer side is shorter than this (1080-wide pixels) is a speck.
SPECK_PX = 16


@dataclass(frozen=True, slots=True)
class Control:
    """A control found in the image.

    Attributes:
        kind: What it looks like.
        bounds: Its box in screenshot pixels.
        checked: On/checked for switches, checkboxes and radio buttons, else None.
        focused: For a field, whether its outline is drawn in colour, as a field being typed into is.
    """

    kind: ControlKind
    bounds: Bounds
    checked: bool | None = None
    focused: bool = False


def background_colour(rgb: NDArray[np.uint8]) -> tuple[int, int, int]:
    """The most common colour of the image (sampled every fourth pixel each way)."""
    sample = rgb[::4, ::4].reshape(-1, 3).astype(np.uint32)
    packed = (sample[:, 0] << 16) | (sample[:, 1] << 8) | sample[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    top = int(values[int(np.argmax(counts))])
    return (top >> 16) & 255, (top >> 8) & 255, top & 255


def _is_glyph(line: TextLine) -> bool:
    """A one-character line that is no letter or digit: an icon drawn as a glyph, not text."""
    return len(line.text) <= 2 and not any(c.isalnum() for c in line.text)


def modal_panel(rgb: NDArray[np.uint8]) -> Bounds | None:
    """The box of a dialog shown over a dimmed screen, or None when there is none.

    A dialog's scrim darkens everything behind it, so the screen's most common colour is the
    dimmed one and the dialog is the one large component clearly brighter than it, centred
    across the screen and mostly of one colour (a bright photo in a dark app is none of these).
    """
    import cv2

    height, width = rgb.shape[:2]
    background = np.array(background_colour(rgb), dtype=np.int16)
    mask = (np.abs(rgb.astype(np.int16) - background).max(axis=2) > FOREGROUND_DELTA).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if count <= 1:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h, area = (int(v) for v in stats[largest])
    if area < PANEL_SHARE * width * height or w >= 0.98 * width or h < PANEL_HEIGHT * height:
        return None  # no panel, the whole screen, or a strip (a launcher's search bar on the wallpaper)
    if abs(x - (width - x - w)) > 0.05 * width:
        return None
    pixels = rgb[labels == largest]
    if pixels.astype(np.float64).mean() - float(background.mean()) < SCRIM_CONTRAST:
        return None
    panel = Bounds(x, y, x + w, y + h)
    own = np.array(background_colour(rgb[y:y + h, x:x + w]), dtype=np.int16)
    if (np.abs(pixels.astype(np.int16) - own).max(axis=1) <= FOREGROUND_DELTA).mean() < 0.5:
        return None
    return panel


def find_controls(rgb: NDArray[np.uint8], lines: Sequence[TextLine], *, within: Bounds | None = None
                  ) -> list[Control]:
    """The non-text controls of a screenshot, top to bottom.

    Args:
        rgb: The screenshot as an ``(height, width, 3)`` array.
        lines: The text the OCR engine read there (erased before shapes are looked for).
        within: Look only inside this box (a dialog, :func:`modal_panel`), against its own background.
    """
    import cv2

    height, width = rgb.shape[:2]
    scale = width / 1080
    region = rgb if within is None else rgb[within.top:within.bottom, within.left:within.right]
    background = np.array(background_colour(region), dtype=np.int16)
    mask = (np.abs(rgb.astype(np.int16) - background).max(axis=2) > FOREGROUND_DELTA).astype(np.uint8)
    if within is not None:
        # The scrim around the dialog is not part of it; a shape cut by the dialog's edge is its corner.
        inner = np.zeros_like(mask)
        inner[within.top + 2:within.bottom - 2, within.left + 2:within.right - 2] = 1
        mask &= inner
    pad = max(2, round(4 * scale))
    for line in lines:
        if _is_glyph(line):
            continue
        b = line.bounds
        mask[max(0, b.top - pad):b.bottom + pad, max(0, b.left - pad):b.right + pad] = 0
    join = max(1, round(JOIN_PX * scale))
    joined = cv2.dilate(mask, np.ones((2 * join + 1, 2 * join + 1), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    if count <= 1:
        return []
    flat = labels.reshape(-1)
    own = np.bincount(flat, weights=mask.reshape(-1), minlength=count)
    channels = [np.bincount(flat, weights=(rgb[:, :, c].reshape(-1) * mask.reshape(-1)), minlength=count)
                for c in range(3)]
    found: list[Control] = []
    specks: list[Bounds] = []
    for label in range(1, count):
        x, y, w, h, _ = (int(v) for v in stats[label])
        # The dilation grew every component by ``join`` on each side; undo it for the box.
        x, y, w, h = x + join, y + join, max(1, w - 2 * join), max(1, h - 2 * join)
        pixels = float(own[label])
        if pixels == 0:
            continue
        box = Bounds(x, y, x + w, y + h)
        if within is not None and min(x - within.left, y - within.top, within.right - box.right,
                                      within.bottom - box.bottom) <= 2 + join:
            continue  # the dialog's rounded corners, cut out of the scrim
        if max(w, h) < SPECK_PX * scale:
            specks.append(box)
            continue
        mean = [channels[c][label] / pixels for c in range(3)]
        control = _classify(mask, box, pixels / (w * h), max(mean) - min(mean), scale, (width, height))
        if control is not None:
            found.append(control)
    for group in _glyphs(specks, SPECK_GAP * scale):
        control = _classify(mask, group, 0.0, 0.0, scale, (width, height))
        if control is not None and control.kind == "icon":
            found.append(control)
    return sorted(found, key=lambda c: (c.bounds.top, c.bounds.left))


def _glyphs(specks: list[Bounds], gap: float) -> list[Bounds]:
    """Boxes of the groups of two or more specks that lie within ``gap`` of each other (the dots of "⋮")."""
    parent = list(range(len(specks)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(specks):
        for j in range(i + 1, len(specks)):
            b = specks[j]
            if max(b.left - a.right, a.left - b.right, b.top - a.bottom, a.top - b.bottom) <= gap:
                parent[root(i)] = root(j)
    groups: dict[int, list[Bounds]] = {}
    for i, box in enumerate(specks):
        groups.setdefault(root(i), []).append(box)
    return [Bounds(min(b.left for b in g), min(b.top for b in g), max(b.right for b in g), max(b.bottom for b in g))
            for g in groups.values() if len(g) >= 2]


def _corners_set(mask: NDArray[np.uint8], b: Bounds) -> int:
    """How many of the box's corners are drawn: 4 for a square outline, none for a ring."""
    inset = max(1, min(b.width, b.height) // 12)
    corners = [mask[b.top + inset, b.left + inset], mask[b.top + inset, b.right - 1 - inset],
               mask[b.bottom - 1 - inset, b.left + inset], mask[b.bottom - 1 - inset, b.right - 1 - inset]]
    return sum(int(c) for c in corners)


def _drawn_at(mask: NDArray[np.uint8], b: Bounds, points: Sequence[tuple[float, float]]) -> int:
    """How many of ``points`` (fractions of the box, from its centre) have ink within a few pixels."""
    r = max(1, min(b.width, b.height) // 16)
    cx, cy = b.center
    count = 0
    for fx, fy in points:
        x, y = int(cx + fx * b.width), int(cy + fy * b.height)
        count += bool(mask[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].any())
    return count


#: The middle of each edge of a box, from its centre.
EDGES = ((0.0, -0.47), (0.0, 0.47), (-0.47, 0.0), (0.47, 0.0))
#: Four points on a ring drawn in a box, on its diagonals.
RING = ((0.32, 0.32), (-0.32, 0.32), (0.32, -0.32), (-0.32, -0.32))


def _centre_set(mask: NDArray[np.uint8], b: Bounds) -> bool:
    cx, cy = b.center
    r = max(1, min(b.width, b.height) // 8)
    return bool(mask[cy - r:cy + r + 1, cx - r:cx + r + 1].mean() > 0.5)


def _ends(mask: NDArray[np.uint8], b: Bounds) -> tuple[float, float]:
    """How much of the left and of the right third of the box is drawn."""
    third = max(1, b.width // 3)
    left = float(mask[b.top:b.bottom, b.left:b.left + third].mean())
    right = float(mask[b.top:b.bottom, b.right - third:b.right].mean())
    return left, right


def _classify(mask: NDArray[np.uint8], b: Bounds, fill: float, colour: float, scale: float,
              screen: tuple[int, int]) -> Control | None:
    """What a component is, or None for decoration, panels and specks."""
    w, h = b.width / scale, b.height / scale
    aspect = b.width / b.height
    if b.width >= 0.9 * screen[0] or b.height >= 0.3 * screen[1] or max(w, h) < 16:
        return None  # a panel, a scrim or a rule across the screen; or a speck
    if b.bottom <= STATUS_BAR * screen[1]:
        return None  # the status bar's battery, signal and Wi-Fi marks: the phone's, not the app's
    if 1.4 <= aspect <= 2.8 and 36 <= h <= 110 and fill >= 0.5:
        # A switch's knob is drawn in another colour at one end; a filled button is the same at both.
        left, right = _ends(mask, b)
        if abs(left - right) >= KNOB_CONTRAST:
            return Control("switch", b, right < left)
    # A checkbox or radio button is drawn about 18-24 dp wide; a larger square or ring is an icon's frame.
    if 0.75 <= aspect <= 1.33 and 30 <= w <= 72:
        corners = _corners_set(mask, b)
        # A box's edges are drawn along their whole length (a "✕" reaches the corners only); a ring
        # is drawn on its diagonals too (a "+" reaches the edges' middles only).
        if corners >= 3 and _drawn_at(mask, b, EDGES) >= 3:
            return Control("checkbox", b, _centre_set(mask, b))
        if corners == 0 and fill < 0.6 and _drawn_at(mask, b, RING) >= 3:
            return Control("radio", b, _centre_set(mask, b))
    if b.width >= 0.35 * screen[0] and 80 <= h <= 260 and fill <= 0.35:
        return Control("field", b, focused=colour >= COLOURFUL)
    if aspect >= 1.2 and 60 <= h <= 200 and fill >= 0.75 and colour >= COLOURFUL:
        return Control("button", b)
    if 20 <= max(w, h) <= 180 and 0.1 <= aspect <= 10:
        return Control("icon", b)
    return None
