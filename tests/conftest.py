"""Shared pytest configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    """Folder of test data copied from public sources (see tests/data/SOURCES.md)."""
    return DATA
