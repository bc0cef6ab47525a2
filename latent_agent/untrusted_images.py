"""Opening an image the project did not make: a screenshot from a device, one in a copied run folder.

A PNG of a few kilobytes can declare 20,000 x 20,000 pixels: Pillow then either raises its own
``DecompressionBombError`` (above 179 megapixels), which nothing expected, or decodes it (a 144-megapixel
one takes 1.2 GB). Every reader of such an image opens it here: the size in the header is checked before a
single pixel is decoded, and anything wrong is one :class:`~latent_agent.errors.InputError` line.
"""

from __future__ import annotations

import io
import warnings
from typing import TYPE_CHECKING

from PIL import Image as PILImage
from PIL import UnidentifiedImageError

from latent_agent.errors import InputError

if TYPE_CHECKING:
    from PIL.Image import Image

#: The largest image opened, in pixels: four times an 8K display, forty times a phone's screen.
MAX_PIXELS = 40_000_000


def open_untrusted_image(data: bytes, what: str) -> Image:
    """Decode ``data`` (any format Pillow reads), refusing an image larger than :data:`MAX_PIXELS`.

    Args:
        data: The encoded image.
        what: What it is, to start the message ("the screenshot").

    Returns:
        The decoded image (its pixels loaded).

    Raises:
        InputError: The bytes are no image Pillow reads, are torn, or declare too many pixels.
    """
    try:
        with warnings.catch_warnings():
            # Pillow warns from 89 megapixels; the limit below is lower and says more.
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            image = PILImage.open(io.BytesIO(data))
    except PILImage.DecompressionBombError as exc:
        raise InputError(f"{what} is refused: it is more than {MAX_PIXELS // 1_000_000} megapixels, larger than "
                         f"any screen (Pillow: {exc})") from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise InputError(f"cannot decode {what} ({exc})") from None
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise InputError(f"{what} is refused: {width} x {height} pixels ({width * height / 1e6:.0f} megapixels) "
                         f"is more than {MAX_PIXELS // 1_000_000} megapixels, larger than any screen")
    try:
        image.load()
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot decode {what} ({exc})") from None
    return image
