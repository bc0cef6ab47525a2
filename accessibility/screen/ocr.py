"""Text lines read from a screenshot, behind one small interface with two engines.

* ``rapidocr``: PP-OCRv4 detection and recognition models run by ONNX Runtime, from the
  ``rapidocr-onnxruntime`` wheel, which carries the model files inside it: nothing is
  downloaded at run time. Reads Latin and Chinese script. The default.
* ``tesseract``: Debian's ``tesseract-ocr`` with its English data (``tesseract-ocr-eng``),
  run as the ``tesseract`` program; words are joined into lines as Tesseract groups them.

``docs/observer.md`` compares the two on the simulated phone and on a real screenshot
(labels recovered, box accuracy, time per screen) and says why ``rapidocr`` is the default.
"""

from __future__ import annotations

import abc
import io
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from latent_agent.accessibility.tree import Bounds
from latent_agent.errors import ConfigError, ParseError
from latent_agent.extras import require

if TYPE_CHECKING:
    from PIL import Image

#: The engine used when none is named.
DEFAULT_ENGINE = "rapidocr"
#: Lines read with less confidence than this (0-1) are dropped: they are mostly icons read as letters.
MIN_SCORE = 0.5
#: Most seconds one Tesseract run may take before it counts as hung.
TESSERACT_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class TextLine:
    """One line of text found on the screen.

    Attributes:
        text: What was read, with runs of spaces folded.
        bounds: The line's box in screenshot pixels.
        score: The engine's confidence, 0 to 1.
    """

    text: str
    bounds: Bounds
    score: float


class OcrEngine(abc.ABC):
    """Reads the text lines of an image. Engines load their models once, on first use."""

    name: str

    @abc.abstractmethod
    def read(self, image: Image.Image) -> list[TextLine]:
        """The text lines of ``image`` (RGB), top to bottom.

        Raises:
            ConfigError: The engine is not installed.
            ParseError: The engine failed on this image.
        """


def _line(text: str, left: float, top: float, right: float, bottom: float, score: float) -> TextLine | None:
    folded = " ".join(text.split())
    if not folded or score < MIN_SCORE or right <= left or bottom <= top:
        return None
    return TextLine(folded, Bounds(int(left), int(top), round(right), round(bottom)), score)


class RapidOcr(OcrEngine):
    """PP-OCRv4 through ONNX Runtime (the ``rapidocr-onnxruntime`` wheel, models inside).

    Args:
        threads: ONNX Runtime threads per model (the machine's cores when None).
    """

    name = "rapidocr"

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads

    @cached_property
    def _engine(self) -> Any:
        require("ocr", "the rapidocr OCR engine")
        from rapidocr_onnxruntime import RapidOCR

        threads = {} if self.threads is None else {"intra_op_num_threads": self.threads}
        # Screen text is never upside down, so the orientation classifier only costs time.
        return RapidOCR(use_cls=False, print_verbose=False, **threads)

    def read(self, image: Image.Image) -> list[TextLine]:
        engine = self._engine
        # The models take OpenCV's channel order.
        array = np.ascontiguousarray(np.asarray(image.convert("RGB"))[:, :, ::-1])
        try:
            found, _ = engine(array, use_cls=False)
        except Exception as exc:  # the engine's own errors are of any type
            raise ParseError(f"rapidocr failed: {type(exc).__name__}: {exc}", source="screenshot") from exc
        lines: list[TextLine] = []
        for box, text, score in found or ():
            xs = [float(p[0]) for p in box]
            ys = [float(p[1]) for p in box]
            line = _line(str(text), min(xs), min(ys), max(xs), max(ys), float(score))
            if line is not None:
                lines.append(line)
        return sorted(lines, key=lambda t: (t.bounds.top, t.bounds.left))


class TesseractOcr(OcrEngine):
    """Debian's Tesseract with its English data, run as the ``tesseract`` program.

    Args:
        program: The Tesseract program (found on ``PATH`` by default).
        page_mode: Tesseract's page segmentation mode; 11 (sparse text) suits screens, where
            text is scattered over the page rather than set in columns.
    """

    name = "tesseract"

    def __init__(self, program: str = "tesseract", page_mode: int = 11) -> None:
        self.program = program
        self.page_mode = page_mode

    @cached_property
    def _path(self) -> str:
        path = shutil.which(self.program)
        if path is None:
            raise ConfigError(f"the tesseract OCR engine needs the {self.program!r} program: "
                              "apt-get install tesseract-ocr tesseract-ocr-eng")
        return path

    def read(self, image: Image.Image) -> list[TextLine]:
        buffer = io.BytesIO()
        image.convert("RGB").save(buffer, "PNG", compress_level=1)
        try:
            done = subprocess.run(
                [self._path, "stdin", "stdout", "-l", "eng", "--psm", str(self.page_mode), "tsv"],
                input=buffer.getvalue(), capture_output=True, timeout=TESSERACT_TIMEOUT_S, check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise ParseError(f"tesseract took longer than {TESSERACT_TIMEOUT_S:g} s", source="screenshot") from exc
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip().splitlines()
            raise ParseError(f"tesseract failed: {message[-1] if message else done.returncode}", source="screenshot")
        return _tsv_lines(done.stdout.decode(errors="replace").splitlines())


def _tsv_lines(rows: Sequence[str]) -> list[TextLine]:
    """Tesseract's TSV words joined into its lines (block, paragraph, line), each with the union box."""
    groups: dict[tuple[str, str, str], list[list[str]]] = {}
    for row in rows[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5" or not cells[11].strip():
            continue
        groups.setdefault((cells[2], cells[3], cells[4]), []).append(cells)
    lines: list[TextLine] = []
    for words in groups.values():
        left = min(int(w[6]) for w in words)
        top = min(int(w[7]) for w in words)
        right = max(int(w[6]) + int(w[8]) for w in words)
        bottom = max(int(w[7]) + int(w[9]) for w in words)
        score = sum(float(w[10]) for w in words) / len(words) / 100
        line = _line(" ".join(w[11] for w in words), left, top, right, bottom, score)
        if line is not None:
            lines.append(line)
    return sorted(lines, key=lambda t: (t.bounds.top, t.bounds.left))


#: Engine name -> how to make it.
OCR_ENGINES: dict[str, type[OcrEngine]] = {RapidOcr.name: RapidOcr, TesseractOcr.name: TesseractOcr}


def make_engine(name: str = DEFAULT_ENGINE) -> OcrEngine:
    """The OCR engine called ``name``.

    Raises:
        ConfigError: No engine has that name.
    """
    if name not in OCR_ENGINES:
        raise ConfigError(f"unknown OCR engine {name!r}; choose one of {', '.join(OCR_ENGINES)}")
    return OCR_ENGINES[name]()
