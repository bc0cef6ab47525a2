"""Images sent to a model: the pixels (:class:`Image`) and what a record keeps of them (:class:`ImageInfo`).

An :class:`Image` is checked when it is made: its bytes must be a PNG, JPEG or WebP file (the
formats both Gemini and OpenAI-compatible servers take) whose magic bytes match the declared MIME
type, and Pillow reads its size from the header. Trajectories, cassettes and call logs keep only an
:class:`ImageInfo` (type, size, byte count, SHA-256), so a screenshot sent on every step does not
make them grow by its bytes.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image as PILImage
from PIL import UnidentifiedImageError

from latent_agent import codec
from latent_agent.errors import LLMRequestError

#: Formats every supported provider accepts, with the magic bytes each file starts with.
MIME_TYPES: tuple[str, ...] = ("image/png", "image/jpeg", "image/webp")
_PIL_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP"}


def sniff_mime(data: bytes) -> str | None:
    """The MIME type ``data``'s magic bytes announce, or None when it is none of :data:`MIME_TYPES`."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What is recorded of an image: never its pixels.

    Attributes:
        mime: MIME type (``image/png``, ...).
        width: Width in pixels.
        height: Height in pixels.
        size_bytes: Length of the encoded file.
        sha256: Hex SHA-256 of the encoded file (tells two screenshots apart, and a sent one from a received one).
    """

    mime: str
    width: int
    height: int
    size_bytes: int
    sha256: str

    def describe(self) -> str:
        """Short human form, e.g. ``1080x2400 PNG, 312 KB``."""
        kind = self.mime.removeprefix("image/").upper()
        return f"{self.width}x{self.height} {kind}, {_kb(self.size_bytes)}"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = codec.encode(self)
        return out

    @classmethod
    def from_json(cls, data: object) -> ImageInfo:
        """Inverse of :meth:`to_json`.

        Raises:
            LLMRequestError: ``data`` is not a serialised image record.
        """
        try:
            return codec.decode(cls, data)
        except codec.DecodeError as exc:
            raise LLMRequestError(f"not a serialised image record: {exc}") from None


@dataclass(frozen=True, slots=True)
class Image:
    """An encoded image (PNG, JPEG or WebP) to send with a chat message.

    Args:
        data: The file's bytes.
        mime: Its MIME type; must match the bytes' magic.

    Attributes:
        width: Pixels, read from the header.
        height: Pixels, read from the header.

    Raises:
        LLMRequestError: Empty data, an unsupported type, a type the bytes contradict, or bytes Pillow
            cannot read.
    """

    data: bytes = field(repr=False)
    mime: str
    width: int = field(init=False)
    height: int = field(init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.data, bytes) or not self.data:
            raise LLMRequestError("an image needs its encoded bytes (got none)")
        if self.mime not in MIME_TYPES:
            raise LLMRequestError(f"image type {self.mime!r} is not supported; use one of {', '.join(MIME_TYPES)}")
        found = sniff_mime(self.data)
        if found != self.mime:
            raise LLMRequestError(
                f"image declared {self.mime} but its bytes are " + (found or "not a PNG, JPEG or WebP file")
            )

        try:
            with PILImage.open(io.BytesIO(self.data)) as img:
                width, height = img.size
        except (UnidentifiedImageError, OSError, ValueError) as exc:
            raise LLMRequestError(f"unreadable {self.mime} image ({exc})") from None
        object.__setattr__(self, "width", int(width))
        object.__setattr__(self, "height", int(height))

    def __repr__(self) -> str:
        return f"Image({self.info().describe()})"

    @classmethod
    def from_bytes(cls, data: bytes) -> Image:
        """An image whose type is read from its magic bytes.

        Raises:
            LLMRequestError: The bytes are not a PNG, JPEG or WebP file.
        """
        mime = sniff_mime(data)
        if mime is None:
            raise LLMRequestError("image bytes are not a PNG, JPEG or WebP file")
        return cls(data, mime)

    @classmethod
    def from_file(cls, path: str | Path) -> Image:
        """The image in ``path`` (type from its magic bytes).

        Raises:
            LLMRequestError: The file cannot be read or is not a PNG, JPEG or WebP file.
        """
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise LLMRequestError(f"image {path}: {exc.strerror or exc}") from None
        try:
            return cls.from_bytes(data)
        except LLMRequestError as exc:
            raise LLMRequestError(f"image {path}: {exc}") from None

    @property
    def size_bytes(self) -> int:
        return len(self.data)

    def sha256(self) -> str:
        """Hex SHA-256 of the encoded bytes."""
        return hashlib.sha256(self.data).hexdigest()

    def info(self) -> ImageInfo:
        """What a record keeps of this image."""
        return ImageInfo(self.mime, self.width, self.height, self.size_bytes, self.sha256())

    def downscaled(self, max_side: int) -> Image:
        """This image shrunk so that neither side exceeds ``max_side`` pixels (aspect kept); self if it fits.

        The copy keeps the format (JPEG at quality 90). Providers bill an image by its pixel size, so a
        phone screenshot shrunk to what the model's tiles need costs fewer tokens and bytes.

        Raises:
            LLMRequestError: ``max_side`` is below 1.
        """
        if max_side < 1:
            raise LLMRequestError(f"an image's max side must be >= 1 pixel, got {max_side}")
        longest = max(self.width, self.height)
        if longest <= max_side:
            return self

        scale = max_side / longest
        size = (max(1, round(self.width * scale)), max(1, round(self.height * scale)))
        with PILImage.open(io.BytesIO(self.data)) as opened:
            palette = opened.mode == "P"
            source: PILImage.Image = opened
            # Pillow resizes palette and bilevel images by nearest neighbour, which breaks thin text
            # strokes; filtering needs true colour.
            if opened.mode in ("1", "P", "PA", "LA", "I", "I;16", "F"):
                alpha = opened.mode in ("PA", "LA") or "transparency" in opened.info
                source = opened.convert("RGBA" if alpha else "RGB")
            # reducing_gap=1: a box-filter reduce by the whole factor first, then Lanczos for the rest
            # (half the time of Lanczos alone on a 1080x2400 screenshot; a box average suits downscaling).
            small = source.resize(size, PILImage.Resampling.LANCZOS, reducing_gap=1.0)
        if palette and self.mime == "image/png" and small.mode == "RGB":
            # Back to 256 colours: a flat UI keeps its look (antialiased edges included) at a third of
            # the true-colour PNG's bytes.
            small = small.quantize(256, method=PILImage.Quantize.FASTOCTREE)
        if self.mime == "image/jpeg" and small.mode not in ("RGB", "L"):
            small = small.convert("RGB")
        out = io.BytesIO()
        small.save(out, format=_PIL_FORMATS[self.mime], **({"quality": 90} if self.mime != "image/png" else {}))
        return Image(out.getvalue(), self.mime)


def describe_images(infos: tuple[ImageInfo, ...] | list[ImageInfo]) -> str:
    """``1 image 1080x2400 PNG, 312 KB`` / ``2 images (...; ...), 600 KB``; empty for none."""
    if not infos:
        return ""
    if len(infos) == 1:
        return f"1 image {infos[0].describe()}"
    total = sum(i.size_bytes for i in infos)
    sizes = "; ".join(f"{i.width}x{i.height}" for i in infos)
    return f"{len(infos)} images ({sizes}), {_kb(total)}"


def _kb(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{max(1, round(size / 1024))} KB"
