"""Naming unlabelled icons from a screenshot: one multimodal call for every icon of a screen.

This is the element reader of the screen-only method (``docs/caap.md`` / the method card's
"element understanding" stage) done by the LLM instead of a fine-tuned Pix2Struct: the model
sees the whole screenshot, each icon's box outlined and tagged with its id, and the list of boxes,
and answers one line per icon, ``<id>: <short name>`` ("search", "navigate up", "more options"),
or ``unknown``. The observer (``agent/observe.py``, ``--name-icons``) gives the names to the
icons it found, as their content descriptions.

The demo stand-in cannot see: it answers from the boxes' ``reference`` names, which a caller
passes only where it knows the truth (the simulated phone). Those go into the call's inputs (which
no provider receives; a stand-in reads them in-process), never into the prompt, and are not recorded.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont

from latent_agent.accessibility.tree import Bounds
from latent_agent.agent.calls import LLMCaller, cut_reason, truncated
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.errors import InputError
from latent_agent.llm.images import Image
from latent_agent.llm.types import CallOptions
from latent_agent.prompts.render import render
from latent_agent.purposes import call_kind
from latent_agent.surfaces import PHONE, Surface

#: The call's declared purpose (the demo stand-in dispatches on it): one short name per numbered icon of a screenshot.
NAME_ICONS = call_kind("name_icons", cap=384, summary="one short name per numbered icon of a screenshot")
TEMPLATE = "name_icons.j2"
#: The answer for an icon the model cannot name.
UNKNOWN = "unknown"
#: Longest name kept; a longer one is a description, not a name, and the line is refused.
MAX_NAME = 60
#: What an id may look like: it is written in the prompt and on the screenshot and read back from the answer.
_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
#: Colour of the outlines and tags drawn on the screenshot (a red few apps use for icons).
_MARK = (230, 20, 60)


@dataclass(frozen=True, slots=True)
class IconBox:
    """An icon found on the screen, to be named.

    Attributes:
        id: How the prompt and the answer refer to it (letters, digits, ``_.-``; unique per call).
        bounds: Its box in screenshot pixels.
        reference: Its true name where the caller knows it (the simulated phone's tree, in
            measurements); given to the demo stand-in only, never shown to a model.
    """

    id: str
    bounds: Bounds
    reference: str | None = None


async def name_icons(
    caller: LLMCaller,
    screenshot: Image,
    icons: Sequence[IconBox],
    *,
    marked: bool = True,
    max_side: int | None = None,
    surface: Surface = PHONE,
) -> dict[str, str]:
    """Name every icon of ``icons`` in one multimodal call.

    ``name_icons(caller, screenshot, icons, *, marked=True, max_side=None, surface=PHONE) -> {id: name}``

    Args:
        caller: The episode's LLM caller (the call is recorded under purpose ``name_icons``).
        screenshot: The screen (PNG, JPEG or WebP) the boxes are in.
        icons: The unlabelled icons; none means no call.
        marked: Outline each box on the image sent and tag it with its id (the model finds the
            boxes by sight, not only by coordinates).
        max_side: Shrink the screenshot so neither side exceeds this before sending (boxes are
            scaled with it); None sends it at full size.
        surface: What the screenshot shows (a phone's screen or a web page); the prompt speaks of it.

    Returns:
        The name of each icon the model named (lower case, e.g. ``"search"``); icons it called
        ``unknown`` or left out are absent. An answer with a malformed line (see :func:`parse_icon_names`)
        or cut at the output cap names none: the call records it as unparsable.

    Raises:
        InputError: An id is empty, malformed or repeated, or a box lies outside the screenshot.
        LLMError: The call failed.
    """
    if not icons:
        return {}
    _check(screenshot, icons)
    shown = screenshot.downscaled(max_side) if max_side is not None else screenshot
    scale = shown.width / screenshot.width
    boxes = [_scaled(icon, scale) for icon in icons]
    if marked:
        shown = mark_boxes(shown, boxes)
    variables = {
        "width": shown.width,
        "height": shown.height,
        "marked": marked,
        "icons": [{"id": b.id, "left": b.bounds.left, "top": b.bounds.top, "right": b.bounds.right,
                   "bottom": b.bounds.bottom} for b in boxes],
    }
    prompt = render(TEMPLATE, surface, **variables)
    references = {i.id: i.reference for i in icons if i.reference is not None}
    completion = await caller.ask(NAME_ICONS, prompt, inputs={**variables, "references": references},
                                  options=CallOptions(images=(shown,)))
    try:
        if truncated(completion):
            raise UnparsableAnswer(cut_reason(completion))
        names = parse_icon_names(completion.text, [i.id for i in icons])
    except UnparsableAnswer as exc:
        # Names are a help to the description, not a step: the screen is described without them.
        caller.unparsable(completion, str(exc))
        return {}
    return {key: name for key, name in names.items() if name is not None}


def parse_icon_names(text: str, ids: Sequence[str]) -> dict[str, str | None]:
    """The names in an answer to :data:`TEMPLATE`, by icon id.

    Tolerant of what models add: a preamble or closing remark, code fences, bullets, numbering,
    bold ids, quotes around names, a trailing full stop, ``-`` or ``=`` instead of ``:``. Lines
    that name no asked id are ignored.

    Args:
        text: The model's answer.
        ids: The ids asked about.

    Returns:
        Every asked id: its name in lower case, or None when the answer says ``unknown`` or
        leaves the icon out.

    Raises:
        UnparsableAnswer: A line starts with an asked id but gives no name, gives a name longer
            than :data:`MAX_NAME` characters, or names an icon a second time differently.
    """
    wanted = {i.lower(): i for i in ids}
    names: dict[str, str | None] = dict.fromkeys(ids)
    given: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = _LEAD.sub("", raw.strip().strip("`"))
        match = _LINE.match(line)
        if match is None or match.group(1).lower() not in wanted:
            continue
        key = wanted[match.group(1).lower()]
        name = _clean(match.group(2) or "")
        if not name:
            raise UnparsableAnswer(f"icon names, line {number}: {key!r} has no name: {raw.strip()[:80]!r}")
        if len(name) > MAX_NAME:
            raise UnparsableAnswer(f"icon names, line {number}: the name of {key!r} is a description "
                                   f"({len(name)} characters, at most {MAX_NAME}): {name[:80]!r}")
        if key in given and given[key] != name:
            raise UnparsableAnswer(f"icon names, line {number}: {key!r} named twice ({given[key]!r}, then {name!r})")
        given[key] = name
        names[key] = None if name == UNKNOWN else name
    return names


def mark_boxes(image: Image, icons: Sequence[IconBox]) -> Image:
    """A PNG copy of ``image`` with each icon's box outlined and its id written above it (below at the top edge)."""
    with PILImage.open(io.BytesIO(image.data)) as opened:
        canvas = opened.convert("RGB")
    draw = ImageDraw.Draw(canvas)
    stroke = max(2, image.width // 360)
    font = ImageFont.load_default(size=max(12, image.width // 45))
    for icon in icons:
        b = icon.bounds
        draw.rectangle((b.left, b.top, b.right, b.bottom), outline=_MARK, width=stroke)
        left, top, right, bottom = draw.textbbox((0, 0), icon.id, font=font)
        tag_h = bottom - top + 2 * stroke
        y = b.top - tag_h if b.top - tag_h >= 0 else b.bottom
        draw.rectangle((b.left, y, b.left + right - left + 2 * stroke, y + tag_h), fill=_MARK)
        draw.text((b.left + stroke - left, y + stroke - top), icon.id, fill=(255, 255, 255), font=font)
    out = io.BytesIO()
    canvas.save(out, format="PNG")
    return Image(out.getvalue(), "image/png")


# -- internals --------------------------------------------------------------------------------

#: Bullets, numbering and emphasis a model puts before an id.
_LEAD = re.compile(r"^(?:[-*•]\s+|\d+[.)]\s+)?\**")
#: ``id: name`` (or ``id - name``, ``id = name``); the id may be bold or bracketed.
_LINE = re.compile(r"^\[?([A-Za-z0-9_.-]+?)\]?\**(?:\s*\([^)]*\))?\s*(?:[:=]|\s[-–—])\s*(.*)$")


def _clean(name: str) -> str:
    before = None
    while before != name:  # quotes, emphasis and a full stop come in any order ("Search". / "Search.")
        before = name
        name = name.strip().strip("*`\"'“”‘’").rstrip(".")
    return " ".join(name.split()).lower()


def _scaled(icon: IconBox, scale: float) -> IconBox:
    if scale == 1:
        return icon
    b = icon.bounds
    left, top = round(b.left * scale), round(b.top * scale)
    return IconBox(icon.id, Bounds(left, top, max(left + 1, round(b.right * scale)),
                                   max(top + 1, round(b.bottom * scale))), icon.reference)


def _check(screenshot: Image, icons: Sequence[IconBox]) -> None:
    seen: set[str] = set()
    for icon in icons:
        if not _ID.match(icon.id):
            raise InputError(f"icon id {icon.id!r}: use 1-32 letters, digits, '_', '.' or '-'")
        if icon.id.lower() in seen:
            raise InputError(f"icon id {icon.id!r} is given twice")
        seen.add(icon.id.lower())
        b = icon.bounds
        if not (0 <= b.left < b.right <= screenshot.width and 0 <= b.top < b.bottom <= screenshot.height):
            raise InputError(f"icon {icon.id!r}: box {b.left},{b.top},{b.right},{b.bottom} is not inside the "
                             f"{screenshot.width}x{screenshot.height} screenshot")


def names_by_bounds(icons: Sequence[IconBox], names: Mapping[str, str]) -> dict[Bounds, str]:
    """The names keyed by each icon's box (the form the screen layout takes them in)."""
    return {icon.bounds: names[icon.id] for icon in icons if icon.id in names}
