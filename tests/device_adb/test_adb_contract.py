"""AdbDevice passes the Device contract, through the real adb binary, against a served simulated phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.device.adb import AdbDevice
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from tests.device.contract import DeviceContract
from tests.device_adb.conftest import Adb, Served, serve, stop


class TestAdbDeviceContract(DeviceContract):
    """Every contract test runs on a fresh SimDevice served over the adb protocol."""

    @pytest.fixture(autouse=True)
    def _adb_session(self, adb: Adb) -> Iterator[None]:
        self._adb = adb
        self._served: list[Served] = []
        yield
        for served in self._served:
            stop(adb, served)

    def make_device(self) -> Device:
        served = serve(self._adb, SimDevice(seed=3))
        self._served.append(served)
        return AdbDevice(served.serial, adb_port=self._adb.port)
