"""The MiniWoB++ device passes the Device contract, per capability."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.device.base import Device
from latent_agent.device.miniwob.device import MiniWobDevice
from tests.device.contract import DeviceContract
from tests.device.miniwob.conftest import open_device


@pytest.fixture(scope="module", autouse=True)
def _one_browser(miniwob: MiniWobDevice) -> Iterator[None]:
    # The module's device keeps the browser up, so each test's device is only a new page.
    yield


class TestMiniWobDevice(DeviceContract):
    def make_device(self) -> Device:
        device = open_device("enter-text")
        device.reset(seed=1)
        return device

    def open_text_field(self, device: Device) -> None:
        assert isinstance(device, MiniWobDevice)
        device.load_task("enter-text", 2)

    def open_long_list(self, device: Device) -> None:
        assert isinstance(device, MiniWobDevice)
        device.load_task("email-inbox", 2)
