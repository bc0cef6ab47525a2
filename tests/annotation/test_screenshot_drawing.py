"""Form screenshots: the caption sits below the screen, a scroll is drawn as the finger moves."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from latent_agent.agent.pages.screenshots import action_caption, render_shot
from latent_agent.device.sim.device import SimDevice
from latent_agent.grounder.actions import Click, InputText, Scroll

RED = (230, 30, 60)


def _image(uri: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


@pytest.fixture(scope="module")
def png() -> bytes:
    return SimDevice(seed=0).screenshot()


def test_the_caption_is_a_strip_below_the_screen_not_over_it(png: bytes) -> None:
    plain = _image(render_shot(png, image_format="webp", quality=90))
    drawn = _image(render_shot(png, Click(540, 300), image_format="webp", quality=90))
    assert plain.size == (432, 960)
    assert drawn.width == 432 and drawn.height > 960 + 10
    # The bottom of the screen (the gesture bar) is the same with and without the caption...
    bottom = (0, 900, 432, 960)
    a, b = plain.crop(bottom).tobytes(), drawn.crop(bottom).tobytes()
    assert sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(a) < 4
    # ...and the strip under it is the caption's red.
    assert _near(drawn.getpixel((3, drawn.height - 3)), RED)


def test_a_long_typed_text_wraps_onto_more_caption_lines(png: bytes) -> None:
    short = _image(render_shot(png, InputText("hi", 540, 300)))
    long = _image(render_shot(png, InputText("a-rather-long-search-query-" * 4 + " and more words", 540, 300)))
    assert long.width == short.width == 432
    assert long.height > short.height  # a second line, not text cut off at the image's edges


@pytest.mark.parametrize(("direction", "lands", "lifts"), [("down", 534, 426), ("up", 426, 534)])
def test_a_scroll_is_drawn_as_the_finger_moves(png: bytes, direction: str, lands: int, lifts: int) -> None:
    img = _image(render_shot(png, Scroll(direction), image_format="webp", quality=95))  # type: ignore[arg-type]
    # Centre (216, 480); the finger's path is 2 x 54 px long: a dot where it lands, an arrow tip where it lifts.
    assert _near(img.getpixel((223, lands)), RED)  # beside the line, inside the landing dot
    assert not _near(img.getpixel((223, lifts)), RED)
    finger = "up" if direction == "down" else "down"
    assert action_caption(Scroll(direction)) == f"scroll {direction} (the finger swipes {finger})"  # type: ignore[arg-type]
