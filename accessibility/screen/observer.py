"""The screenshot observer: a PNG in, the screen's UI tree out (text by OCR, controls by shape).

Typical use::

    observer = ScreenObserver()              # the default OCR engine, loaded on first use
    reading = observer.read(png_bytes, package="com.android.settings")
    print(describe(reading.tree))            # the same description a dump gives

The observer never asks a device for anything: it sees only the picture.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from latent_agent.accessibility.screen.controls import Control, find_controls, modal_panel
from latent_agent.accessibility.screen.layout import build_tree
from latent_agent.accessibility.screen.ocr import DEFAULT_ENGINE, OcrEngine, TextLine, make_engine
from latent_agent.accessibility.tree import Bounds, ScreenSize, UITree
from latent_agent.errors import InputError, ParseError
from latent_agent.untrusted_images import open_untrusted_image


@dataclass(frozen=True, slots=True)
class ScreenReading:
    """What the observer found on one screenshot.

    Attributes:
        tree: The screen as a UI tree (one root, rows as groups).
        lines: The text lines the OCR engine read.
        controls: The controls found by shape.
        size: The screenshot's size.
        ocr_s: Seconds spent reading text.
        controls_s: Seconds spent finding controls and building the tree.
    """

    tree: UITree
    lines: tuple[TextLine, ...]
    controls: tuple[Control, ...]
    size: ScreenSize
    ocr_s: float
    controls_s: float


class ScreenObserver:
    """Turns screenshots into UI trees.

    Args:
        engine: The OCR engine, or its name (see :data:`~latent_agent.accessibility.screen.ocr.OCR_ENGINES`).

    Raises:
        ConfigError: An unknown engine name.
    """

    def __init__(self, engine: OcrEngine | str = DEFAULT_ENGINE) -> None:
        self.engine = make_engine(engine) if isinstance(engine, str) else engine

    def read(self, png: bytes, *, package: str = "", names: Mapping[Bounds, str] | None = None) -> ScreenReading:
        """Read one screenshot.

        Args:
            png: The screenshot (PNG, or any format Pillow opens).
            package: The foreground package, if known.
            names: Names of icons by their bounds (an icon-naming call's answer).

        Raises:
            ParseError: The bytes are not an image, or the OCR engine failed.
            ConfigError: The OCR engine is not installed.
        """
        try:
            image = open_untrusted_image(png, "the image")
        except InputError as exc:
            raise ParseError(f"not an image the observer reads: {exc}", source="screenshot") from None
        rgb = image.convert("RGB")
        size = ScreenSize(rgb.width, rgb.height)
        start = time.perf_counter()
        lines = tuple(self.engine.read(rgb))
        read = time.perf_counter()
        array = np.asarray(rgb)
        dialog = modal_panel(array)
        if dialog is not None:
            # What lies behind a dialog is dimmed and cannot be reached: a person reads the dialog only.
            lines = tuple(line for line in lines if dialog.contains_point(*line.bounds.center))
        controls = tuple(find_controls(array, lines, within=dialog))
        tree = build_tree(size, lines, controls, package=package, names=names)
        return ScreenReading(tree, lines, controls, size, read - start, time.perf_counter() - read)
