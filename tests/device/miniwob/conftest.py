"""One MiniWoB++ device for these tests: the browser starts once, and every test loads its own task."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.errors import ConfigError, DeviceError


def open_device(task: str | None = None) -> MiniWobDevice:
    """A MiniWoB++ device, or a skip naming why no browser can be launched here."""
    try:
        return MiniWobDevice(task)
    except (ConfigError, DeviceError) as exc:
        pytest.skip(f"no browser for MiniWoB++ here: {exc}")


@pytest.fixture(scope="session")
def miniwob() -> Iterator[MiniWobDevice]:
    device = open_device()
    with device:
        yield device
