"""Headless Debian chromium for the browser tests, driven by Playwright (never a downloaded browser build)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless chromium; the calling test is skipped, saying why, where none is installed."""
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} (scripts/check installs it with "
                    "apt-get when apt-get is available)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def offline_only(context: Any) -> None:
    """Make ``context`` abort every request other than the page's own file and inline data: pages work offline."""
    context.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith(("file:", "data:", "blob:")) else route.abort())
