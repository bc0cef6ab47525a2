"""The simulated phone passes the Device contract."""

from __future__ import annotations

from device.base import Device
from device.sim.device import SimDevice
from tests.device.contract import DeviceContract


class TestSimDevice(DeviceContract):
    def make_device(self) -> Device:
        return SimDevice(seed=3)
