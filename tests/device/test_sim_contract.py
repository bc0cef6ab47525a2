"""The simulated phone passes the Device contract."""

from __future__ import annotations

from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from tests.device.contract import DeviceContract


class TestSimDevice(DeviceContract):
    def make_device(self) -> Device:
        return SimDevice(seed=3)
