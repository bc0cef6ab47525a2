"""How many prompt tokens an image costs, by each provider's published rule.

Used where the provider does not say: the OpenAI API counts images inside ``prompt_tokens`` without a
breakdown, the scripted stand-ins report estimates, and a request can be priced before it is sent.
When Gemini reports its per-modality counts, the reported figure is kept instead.

* Gemini: an image with both sides at most 384 px is 258 tokens; a larger one is cut into 768x768
  tiles, 258 tokens each.
* OpenAI, ``high`` detail: the image is scaled to fit in 2048x2048, then (if its shortest side is
  longer) so that its shortest side is 768 px; each 512x512 tile costs 170 tokens, plus 85 for the
  image. ``low`` detail: 85 tokens whatever the size.

These are the rules of the GPT-4o / Gemini 2.x generation; later models with patch-based counting
differ, which is why a provider's own figure wins whenever it gives one.
"""

from __future__ import annotations

import math
from typing import Literal

from latent_agent.errors import LLMRequestError

#: The rule a provider's images are counted by.
TokenRule = Literal["gemini", "openai-high", "openai-low"]

GEMINI_TOKENS_PER_TILE = 258
GEMINI_SMALL_SIDE = 384
GEMINI_TILE = 768
OPENAI_BASE_TOKENS = 85
OPENAI_TOKENS_PER_TILE = 170
OPENAI_TILE = 512
OPENAI_FIT = 2048
OPENAI_SHORT_SIDE = 768


def gemini_tokens(width: int, height: int) -> int:
    """Gemini's count for a ``width`` x ``height`` image."""
    _check(width, height)
    if width <= GEMINI_SMALL_SIDE and height <= GEMINI_SMALL_SIDE:
        return GEMINI_TOKENS_PER_TILE
    return math.ceil(width / GEMINI_TILE) * math.ceil(height / GEMINI_TILE) * GEMINI_TOKENS_PER_TILE


def openai_tokens(width: int, height: int, detail: Literal["high", "low"] = "high") -> int:
    """OpenAI's count for a ``width`` x ``height`` image at ``detail``."""
    _check(width, height)
    if detail == "low":
        return OPENAI_BASE_TOKENS
    w, h = float(width), float(height)
    if max(w, h) > OPENAI_FIT:
        scale = OPENAI_FIT / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > OPENAI_SHORT_SIDE:
        scale = OPENAI_SHORT_SIDE / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(round(w, 6) / OPENAI_TILE) * math.ceil(round(h, 6) / OPENAI_TILE)
    return OPENAI_TOKENS_PER_TILE * tiles + OPENAI_BASE_TOKENS


def image_tokens(rule: TokenRule, width: int, height: int) -> int:
    """The count of a ``width`` x ``height`` image under ``rule``."""
    if rule == "gemini":
        return gemini_tokens(width, height)
    if rule == "openai-high":
        return openai_tokens(width, height, "high")
    if rule == "openai-low":
        return openai_tokens(width, height, "low")
    raise LLMRequestError(f"unknown image token rule {rule!r}")


def _check(width: int, height: int) -> None:
    if width < 1 or height < 1:
        raise LLMRequestError(f"an image must be at least 1x1 pixel, got {width}x{height}")
