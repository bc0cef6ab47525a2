"""Fixtures the agent tests share: one MiniWoB++ page per module (the browser starts once per module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.device.miniwob.device import MiniWobDevice
from tests.device.miniwob.conftest import open_device


@pytest.fixture(scope="module")
def page() -> Iterator[MiniWobDevice]:
    """A MiniWoB++ page with no task loaded yet (each test loads its own), or a skip naming why there is none."""
    device = open_device()
    with device:
        yield device
