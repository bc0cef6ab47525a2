"""Screenshot thumbnails for episode pages: scaled down once, WebP, shared by identical screenshots.

A phone screenshot is a 1080x2400 PNG; a page shows it 360 px wide. Scaling
and encoding it is the bulk of rendering a page (about 10 ms on one core),
and most sweeps repeat screens: every method of a task starts on the same
home screen, and a deterministic phone draws the same screen for the same
state. :class:`Thumbnails` therefore keys each thumbnail by the screenshot's
content, encodes each distinct screenshot once, and spreads the encoding over
threads (Pillow releases the GIL while it decodes, scales and encodes, so two
threads run about twice as fast on two cores). The action is not drawn into the image
(the page draws it on top), so one thumbnail serves every step that shows
the same screen.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from latent_agent.errors import InputError
from latent_agent.untrusted_images import open_untrusted_image

#: Width of the thumbnails, in pixels (never upscaled).
THUMB_WIDTH = 360
#: WebP quality: on-screen text stays legible at a third of a phone's width.
QUALITY = 75


@dataclass(frozen=True, slots=True)
class Thumbnail:
    """A screenshot scaled down and WebP-encoded.

    Attributes:
        webp: The encoded thumbnail.
        width: Width of the original screenshot (device pixels).
        height: Height of the original screenshot (device pixels).
    """

    webp: bytes
    width: int
    height: int

    def data_uri(self) -> str:
        """The thumbnail as a ``data:`` URI, for self-contained pages."""
        return "data:image/webp;base64," + base64.b64encode(self.webp).decode("ascii")


def make_thumbnail(image: bytes, width: int = THUMB_WIDTH) -> Thumbnail:
    """Scale ``image`` (any format Pillow reads) to ``width`` pixels wide and encode it as WebP.

    Raises:
        InputError: If the image cannot be decoded (a torn or foreign file).
    """
    src = open_untrusted_image(image, "the screenshot")
    img = src.convert("RGB")
    if img.width > width:
        # An integer box reduction first (cheap, and exact for 1080 -> 360), then a small resample if needed.
        factor = img.width // width
        if factor > 1:
            img = img.reduce(factor)
        if img.width != width:
            img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.BILINEAR)
    out = io.BytesIO()
    img.save(out, "WEBP", quality=QUALITY, method=2)
    return Thumbnail(out.getvalue(), src.width, src.height)


@dataclass(frozen=True, slots=True)
class _Unreadable:
    """Why a screenshot could not be decoded (kept so that each copy of it reports the same)."""

    message: str


def _encode(image: bytes) -> Thumbnail | _Unreadable:
    """The thumbnail of ``image``, or why there is none."""
    try:
        return make_thumbnail(image)
    except InputError as exc:
        return _Unreadable(str(exc))


def _encode_file(path: Path) -> Thumbnail | _Unreadable:
    try:
        return _encode(path.read_bytes())
    except OSError as exc:
        return _Unreadable(f"cannot read the screenshot ({exc.strerror or exc})")


class Thumbnails:
    """Thumbnails of screenshot files, each distinct content encoded once per instance.

    Args:
        workers: Threads to encode with (default: the CPUs this process may use).
    """

    def __init__(self, workers: int | None = None) -> None:
        if workers is None:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        self.workers = max(1, workers)
        self._by_digest: dict[bytes, Thumbnail | _Unreadable] = {}
        self.encoded = 0

    @staticmethod
    def _digest(data: bytes) -> bytes:
        return hashlib.blake2b(data, digest_size=16).digest()

    def prefetch(self, paths: Iterable[Path]) -> None:
        """Encode the thumbnails of ``paths`` not seen yet, on :attr:`workers` threads.

        Files that cannot be read are skipped here; :meth:`get` reports them.
        """
        todo: dict[bytes, Path] = {}  # one file per distinct content; read again by the worker, to hold no bytes
        for path in paths:
            try:
                digest = self._digest(path.read_bytes())
            except OSError:
                continue
            if digest not in self._by_digest:
                todo.setdefault(digest, path)
        if not todo:
            return
        if self.workers > 1 and len(todo) > 1:
            with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="thumbnail") as pool:
                results = list(pool.map(_encode_file, todo.values()))
        else:
            results = [_encode_file(path) for path in todo.values()]
        self._by_digest.update(zip(todo, results, strict=True))
        self.encoded += len(todo)

    def get(self, path: Path) -> Thumbnail:
        """The thumbnail of the screenshot at ``path``.

        Raises:
            InputError: If the file cannot be read or decoded.
        """
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read the screenshot ({exc.strerror or exc})") from None
        digest = self._digest(data)
        found = self._by_digest.get(digest)
        if found is None:
            found = _encode(data)
            self._by_digest[digest] = found
            self.encoded += 1
        if isinstance(found, _Unreadable):
            raise InputError(found.message)
        return found
