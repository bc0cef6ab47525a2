"""How the simulated phone looks: icons the font can draw, dialogs that hold their controls."""

from __future__ import annotations

import io

import pytest

from latent_agent.accessibility.tree import ScreenSize
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.render import GLYPHS, SHAPES, font
from latent_agent.device.sim.ui import Node


def _tap_label(device: SimDevice, label: str) -> None:
    node = next(n for n in device.hierarchy().tree.iter() if label in (n.text, n.content_desc))
    b = node.bounds
    device.tap((b.left + b.right) // 2, (b.top + b.bottom) // 2)


def test_every_icon_glyph_is_in_the_font() -> None:
    f = font(48)
    if not hasattr(f, "path"):
        pytest.skip("DejaVu Sans is not installed; Pillow's built-in font is used")
    from fontTools.ttLib import TTFont

    cmap = TTFont(f.path).getBestCmap()
    # A character the font lacks is drawn as an empty box (the Settings search icon was one).
    missing = {desc: glyph for desc, glyph in GLYPHS.items() if any(ord(c) not in cmap for c in glyph)}
    assert missing == {}
    assert not SHAPES.keys() & GLYPHS.keys()


def test_the_settings_search_icon_is_a_lens_and_handle() -> None:
    from PIL import Image

    device = SimDevice()
    device.launch_package("com.android.settings")
    _tap_label(device, "Network & internet")
    icon = next(n for n in device.hierarchy().tree.iter() if n.content_desc == "Search settings")
    b = icon.bounds
    image = Image.open(io.BytesIO(device.screenshot())).convert("L")
    crop = image.crop((b.left, b.top, b.right, b.bottom))
    size = min(crop.size) // 2
    cx, cy = crop.width // 2, crop.height // 2
    lens = (cx - size // 10, cy - size // 10)  # the ring's centre, left empty
    assert crop.getpixel(lens) > 200
    ring = (lens[0] - size * 3 // 10, lens[1])  # the ring's left edge
    assert crop.getpixel(ring) < 160
    handle_end = (cx + size * 4 // 10 - 2, cy + size * 4 // 10 - 2)
    assert crop.getpixel(handle_end) < 160


def _inside(node: Node, box: tuple[int, int, int, int]) -> list[str]:
    left, top, right, bottom = node.bounds
    bad = []
    if not (box[0] <= left < right <= box[2] and box[1] <= top < bottom <= box[3]):
        bad.append(f"{node.rid or node.text or node.cls} {node.bounds} outside {box}")
    for child in node.children:
        bad += _inside(child, box)
    return bad


@pytest.mark.parametrize("size", [ScreenSize(1080, 2400), ScreenSize(720, 1600), ScreenSize(1440, 3120)])
def test_the_time_picker_keeps_its_chips_and_face_inside_the_dialog(size: ScreenSize) -> None:
    device = SimDevice(size=size)
    device.launch_package("com.google.android.deskclock")
    _tap_label(device, "Add alarm")
    dialog = device.phone.windows()[-1]
    assert dialog.modal
    root = dialog.root
    assert _inside(root, root.bounds) == []
    ids = {n.rid.rsplit("/", 1)[-1] for n in root.iter()}
    assert {"material_clock_period_am_button", "material_clock_period_pm_button", "material_hour_tv",
            "material_minute_tv", "material_clock_face"} <= ids


@pytest.mark.parametrize("app", [None, "com.android.settings"])
def test_search_bars_lead_with_a_magnifier_not_a_dot(app: str | None) -> None:
    from PIL import Image

    device = SimDevice()
    if app:
        device.launch_package(app)
    bars = [n for n in device.phone.windows()[-1].root.iter() if n.role == "searchbar"]
    (glyph,) = [c for bar in bars for c in bar.children if c.role == "glyph"]
    left, top, right, bottom = glyph.bounds
    image = Image.open(io.BytesIO(device.screenshot())).convert("L")
    size = min(right - left, bottom - top) // 2
    cx, cy = (left + right) // 2, (top + bottom) // 2
    lens = (cx - size // 10, cy - size // 10)
    # A filled dot was drawn here before; a lens is hollow, with its ring a few pixels further out.
    assert image.getpixel(lens) > 200
    assert image.getpixel((lens[0] - size * 3 // 10, lens[1])) < 160
