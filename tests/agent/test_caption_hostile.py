"""A screenshot's caption quotes typed text: a huge word or a newline must neither stall nor crash drawing it."""

from __future__ import annotations

import base64
import io
import time

from PIL import Image

from latent_agent.agent.pages.screenshots import render_shot
from latent_agent.grounder.actions import InputText


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (540, 1200), (250, 250, 250)).save(out, "PNG")
    return out.getvalue()


def test_a_huge_word_of_typed_text_is_drawn_quickly_on_a_few_lines() -> None:
    started = time.monotonic()
    uri = render_shot(_png(), InputText("x" * 20_000, 100, 100), width=270)
    assert time.monotonic() - started < 10  # word by word, one character less at a time, took minutes
    shot = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    assert shot.height < 600 + 400  # the screenshot, scaled to half, and a caption of a few lines


def test_typed_text_with_newlines_and_controls_is_drawn() -> None:
    for text in ("\n", "a\nb", "\x00\x1b[31m", "\u2028x\r"):
        assert render_shot(_png(), InputText(text, 100, 100), width=270).startswith("data:image/jpeg;base64,")
