"""Device.reset, the hook pools and ``run --reset`` use: in process, served over adb, and on other phones."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from latent_agent.device.adb import ShellResult, quote
from latent_agent.device.adb_phone import KEEP_RUNNING
from latent_agent.device.adb_server.commands import COMMANDS
from latent_agent.device.adb_server.served_phone import ServedPhone
from latent_agent.device.adb_server.shell import BufferSink, ShellSession
from latent_agent.device.base import Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.errors import ConfigError, DeviceError
from tests.device_adb.fakes import RecordingDevice, RecordingPhone


class ServedSim(RecordingPhone):
    """A phone over adb whose shell is a served simulated phone's (``sim serve``)."""

    def __init__(self, sim: SimDevice) -> None:
        super().__init__()
        self.sim = sim
        self.served = ServedPhone(sim)
        self.commands: list[str] = []

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        line = quote(args)
        self.commands.append(line)
        sink = BufferSink()
        status = ShellSession(self.served, COMMANDS).run(line, sink)
        return ShellResult(bytes(sink.stdout), bytes(sink.stderr), status)


def test_the_sim_resets_exactly_to_its_own_seed_or_the_one_given() -> None:
    noise = NoiseConfig.parse("paper")
    phone = SimDevice(seed=5, noise=noise)
    phone.open_app("Settings")
    assert phone.reset() == "the simulated phone reset to its initial state (seed 5)"
    assert phone.hierarchy().raw == SimDevice(seed=5, noise=noise).hierarchy().raw
    assert phone.reset(seed=7, opened=["com.android.settings"]) == \
        "the simulated phone reset to its initial state (seed 7)"
    assert phone.seed == 7 and phone.hierarchy().raw == SimDevice(seed=7, noise=noise).hierarchy().raw
    with pytest.raises(ConfigError, match="seed must be an integer >= 0"):
        phone.reset(seed=-1)


def test_a_served_sim_resets_fully_to_the_seed_asked_for() -> None:
    sim = SimDevice(seed=1)
    sim.open_app("Clock")
    phone = ServedSim(sim)
    assert phone.reset(seed=4, opened=["com.google.android.deskclock"]) == \
        "the served simulated phone, reset to the initial state of seed 4"
    assert sim.seed == 4 and sim.foreground_package() in KEEP_RUNNING
    assert phone.commands[-1] == "latent-sim reset 4"
    assert not any(c.startswith("am force-stop") for c in phone.commands)  # nothing survives the full reset
    assert phone.reset() == "the served simulated phone, reset to the initial state of seed 4"


@pytest.mark.parametrize("line", ["latent-sim reset x", "latent-sim reset 1 2", "latent-sim restart"])
def test_the_served_reset_command_refuses_other_arguments(line: str) -> None:
    sink = BufferSink()
    assert ShellSession(ServedPhone(SimDevice()), COMMANDS).run(line, sink) != 0
    assert b"usage: latent-sim reset [SEED]" in sink.stderr


def test_a_phone_that_is_not_a_sim_ignores_the_seed_and_goes_home() -> None:
    phone = RecordingPhone()
    phone.package = "com.android.chrome"
    assert phone.reset(seed=9, opened=["com.android.settings", "com.android.systemui"]) == (
        "the home screen (Home pressed, com.android.chrome, com.android.settings force-stopped)")
    assert phone.calls.count(("press_key", Key.HOME)) == 2
    assert ("shell", "am", "force-stop", "com.android.systemui") not in phone.calls


def test_a_phone_without_a_shell_only_goes_home() -> None:
    phone = RecordingDevice()
    phone.package = "com.android.chrome"
    assert phone.reset(opened=["com.android.chrome"]) == "the home screen (Home pressed)"
    assert phone.calls.count(("press_key", Key.HOME)) == 2
    with pytest.raises(ConfigError, match="no adb serial"):
        phone.reset(snapshot="clean")


def test_a_served_sim_refusing_the_reset_is_a_device_error() -> None:
    class Refusing(ServedSim):
        def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
            if list(args[:1]) == ["latent-sim"]:
                return ShellResult(b"", b"no\n", 1)
            return super().shell(args, timeout=timeout)

    with pytest.raises(DeviceError, match=re.escape("latent-sim reset failed on the served phone (exit 1)")):
        Refusing(SimDevice()).reset()
