"""Screenshots for forms: scaled down, the performed action drawn on, compressed to a data URI.

A phone screenshot is a 1080x2400 PNG of a megabyte or more; forms embed a
copy scaled to :data:`DEFAULT_WIDTH` pixels wide and JPEG- (or WebP-)
compressed, which keeps a 20-step form far below 5 MB while on-screen text
stays legible. Drawing happens after scaling, so markers have the same size
on every screen; the action's caption goes in a strip below the screen, so
it never hides the bottom of it.
"""

from __future__ import annotations

import base64
import functools
import io
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, assert_never

from PIL import Image, ImageDraw, ImageFont

from latent_agent.errors import AnnotationError, InputError
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
    point_of,
)
from latent_agent.untrusted_images import open_untrusted_image

if TYPE_CHECKING:
    from latent_agent.accessibility.tree import Bounds

ImageFormat = Literal["jpeg", "webp"]
DEFAULT_WIDTH = 432
DEFAULT_QUALITY = 72
MARK = (230, 30, 60)
MASKED = "\u2022" * 6
#: Which way the finger moves for each scroll direction ("down" shows what is below: the finger goes up).
FINGER = {"down": "up", "up": "down", "left": "right", "right": "left"}


def action_words(action: Action | None, *, masked_text: bool = False) -> str:
    """The action in a few words, as a rater reads it (``tap (540, 1200)``, ``type "hello"``)."""
    # A match over the union with assert_never: an action kind added later is flagged by mypy here, not
    # shown to raters in a generic form.
    match action:
        case None:
            return "no action"
        case Click():
            return f"tap ({action.x}, {action.y})"
        case LongPress():
            return f"long press ({action.x}, {action.y})"
        case InputText():
            shown = MASKED if masked_text else action.text
            where = f" at ({action.x}, {action.y})" if action.x is not None and action.y is not None else ""
            return ("empty the field, then " if action.clear else "") + f"type \u201c{shown}\u201d{where}"
        case Scroll():
            where = f" at ({action.x}, {action.y})" if action.x is not None and action.y is not None else ""
            return f"scroll {action.direction}{where}"
        case OpenApp():
            return f"open app \u201c{action.app_name}\u201d"
        case LaunchAdbActivity():
            return "open the app drawer" if action.activity == "app_drawer" else "open quick settings"
        case Wait():
            return f"wait {action.seconds:g} s"
        case KeyboardEnter():
            return "press Enter"
        case NavigateHome():
            return "press Home"
        case NavigateBack():
            return "press Back"
        case PressKey():
            return f"press {action.key}" + (f" \u00d7 {action.times}" if action.times != 1 else "")
        case HoldModifier():
            return f"{'hold' if action.down else 'release'} {action.modifier}"
        case ControlClick():
            return f"control-click ({action.x}, {action.y})"
        case Hover():
            return f"hover ({action.x}, {action.y})"
        case PointerDown():
            return f"press the mouse button at ({action.x}, {action.y})"
        case PointerMove():
            return f"move the mouse to ({action.x}, {action.y})"
        case PointerUp():
            return "release the mouse button"
        case Drag():
            return f"drag ({action.x1}, {action.y1}) \u2192 ({action.x2}, {action.y2})"
        case ChooseOption():
            return f"choose \u201c{action.option}\u201d at ({action.x}, {action.y})"
        case _:
            assert_never(action)


def action_caption(action: Action | None, *, masked_text: bool = False) -> str:
    """:func:`action_words`, and for a scroll also the way the finger moved (they are opposite)."""
    words = action_words(action, masked_text=masked_text)
    if isinstance(action, Scroll):
        words += f" (the finger swipes {FINGER[action.direction]})"
    return words


@functools.lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _clamped(x: int, y: int, scale: float, width: int, height: int) -> tuple[int, int]:
    return (min(max(round(x * scale), 0), width - 1), min(max(round(y * scale), 0), height - 1))


def _point(action: Action, scale: float, width: int, height: int) -> tuple[int, int] | None:
    point = point_of(action)
    return None if point is None else _clamped(*point, scale, width, height)


def render_shot(
    png: bytes,
    action: Action | None = None,
    *,
    masks: Sequence[Bounds] = (),
    masked_text: bool = False,
    width: int = DEFAULT_WIDTH,
    image_format: ImageFormat = "jpeg",
    quality: int = DEFAULT_QUALITY,
) -> str:
    """Scale a screenshot, hide ``masks``, draw ``action`` on it, return a ``data:`` URI.

    Args:
        png: The screenshot as the device produced it (any format Pillow reads).
        action: The action to draw (a ring where a tap or typing landed, the
            finger's path for a scroll) and name in a caption strip added below
            the screen.
        masks: Screen regions (device pixels) to paint over, e.g. password fields.
        masked_text: Whether typed text is shown masked in the caption.
        width: Width of the embedded image in pixels (never upscaled).
        image_format: ``jpeg`` (every browser) or ``webp`` (smaller).
        quality: Encoder quality, 1-95.

    Raises:
        AnnotationError: If the screenshot cannot be decoded.
    """
    try:
        src = open_untrusted_image(png, "screenshot")
    except InputError as exc:
        raise AnnotationError(str(exc)) from None
    scale = min(1.0, width / src.width)
    size = (max(1, round(src.width * scale)), max(1, round(src.height * scale)))
    img = src.convert("RGB").resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    w, h = img.size
    draw = ImageDraw.Draw(img, "RGBA")
    for b in masks:
        box = (round(b.left * scale), round(b.top * scale), round(b.right * scale), round(b.bottom * scale))
        draw.rectangle(box, fill=(90, 90, 90, 255))
        draw.text(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), "hidden", font=_font(max(9, w // 36)),
                  fill=(255, 255, 255), anchor="mm")
    if action is not None:
        _draw_action(draw, action, scale, w, h)
        img = _with_caption(img, action_caption(action, masked_text=masked_text))
    out = io.BytesIO()
    if image_format == "webp":
        img.save(out, "WEBP", quality=quality, method=0)
    else:
        img.save(out, "JPEG", quality=quality)
    return f"data:image/{image_format};base64,{base64.b64encode(out.getvalue()).decode('ascii')}"


def _draw_action(draw: ImageDraw.ImageDraw, action: Action, scale: float, w: int, h: int) -> None:
    radius = max(8, w // 22)
    line = max(2, w // 140)
    point = _point(action, scale, w, h)
    if isinstance(action, Scroll):
        # The finger's path: a dot where it lands, an arrow to where it lifts (against the scroll direction).
        cx, cy = point if point is not None else (w // 2, h // 2)
        half = min(w, h) // 8
        dx, dy = {"up": (0, 1), "down": (0, -1), "left": (1, 0), "right": (-1, 0)}[action.direction]
        sx, sy, ex, ey = cx - dx * half, cy - dy * half, cx + dx * half, cy + dy * half
        dot = line * 3
        draw.ellipse((sx - dot, sy - dot, sx + dot, sy + dot), fill=(*MARK, 255))
        draw.line((sx, sy, ex, ey), fill=(*MARK, 255), width=line * 2)
        head = radius
        # Arrow head: two short strokes back from the tip, spread perpendicular to it.
        px, py = -dy, dx
        for sign in (1, -1):
            draw.line((ex, ey, ex - dx * head + sign * px * head // 2, ey - dy * head + sign * py * head // 2),
                      fill=(*MARK, 255), width=line * 2)
    elif isinstance(action, Drag):
        # Where the button went down (a dot), the path, and where it was released (a ring).
        sx, sy = _clamped(action.x1, action.y1, scale, w, h)
        ex, ey = _clamped(action.x2, action.y2, scale, w, h)
        dot = line * 3
        draw.ellipse((sx - dot, sy - dot, sx + dot, sy + dot), fill=(*MARK, 255))
        draw.line((sx, sy, ex, ey), fill=(*MARK, 255), width=line * 2)
        draw.ellipse((ex - radius, ey - radius, ex + radius, ey + radius), outline=(*MARK, 255), width=line)
    elif point is not None:
        x, y = point
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=(*MARK, 255), width=line)
        draw.ellipse((x - line, y - line, x + line, y + line), fill=(*MARK, 255))


#: Characters of an action's caption drawn under a screenshot (a few lines at most).
CAPTION_LIMIT = 300


def _with_caption(img: Image.Image, caption: str) -> Image.Image:
    """``img`` with a strip below it naming the action (text wraps onto more lines if it must)."""
    w, h = img.size
    font = _font(max(10, w // 26))
    pad = max(4, w // 80)
    # A caption quotes the action (typed text too): on one line of printable characters (the font's layout
    # refuses a newline), cut, so a huge one cannot make a picture of hundreds of lines.
    caption = re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", " ".join(caption.split()))
    lines = _wrap(caption if len(caption) <= CAPTION_LIMIT else caption[: CAPTION_LIMIT - 1] + "…", font, w - 2 * pad)
    line_h = round(font.getbbox("Ag")[3]) + pad // 2
    strip = len(lines) * line_h + 2 * pad
    out = Image.new("RGB", (w, h + strip), MARK)
    out.paste(img, (0, 0))
    draw = ImageDraw.Draw(out)
    for i, text in enumerate(lines):
        draw.text((w // 2, h + pad + i * line_h + line_h // 2), text, font=font, fill=(255, 255, 255), anchor="mm")
    return out


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> list[str]:
    """``text`` in lines no wider than ``width``: broken between words, and inside a word too long for a line."""
    pieces: list[str] = []
    for word in text.split(" "):
        while len(word) > 1 and font.getlength(word) > width:
            # The longest head that fits, found by bisection: a word of typed text can be thousands long.
            low, high = 1, len(word) - 1
            while low < high:
                mid = (low + high + 1) // 2
                low, high = (mid, high) if font.getlength(word[:mid]) <= width else (low, mid - 1)
            cut = low
            pieces.append(word[:cut])
            word = word[cut:]
        pieces.append(word)
    lines: list[str] = []
    for piece in pieces:
        if lines and font.getlength(lines[-1] + " " + piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
    return lines or [""]
