"""Helpers for tests over the real screens in tests/data."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"


def real_xml_screens() -> list[Path]:
    """Every real uiautomator dump and Appium page source shipped with the tests."""
    files = sorted(DATA.glob("uiautomator_dumps/*/*.xml")) + sorted(DATA.glob("appium_page_sources/*/*.xml"))
    assert len(files) >= 40, "test data missing: expected the real screens in tests/data"
    return files


def screen_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"
