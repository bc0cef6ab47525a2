"""The device pool: --devices parsing, the reset hook before every episode, snapshot loading, recovery."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from latent_agent.benchmarks.pool import DeviceBuilder, DeviceSlot, ResetPolicy, make_pool, parse_devices
from latent_agent.device.adb import ShellResult
from latent_agent.device.adb_phone import AdbPhone, load_snapshot
from latent_agent.device.base import Device, Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import DeviceSpec
from latent_agent.errors import ConfigError, DeviceConnectionError, DeviceError
from tests.device_adb.fakes import LAUNCHER, RecordingDevice


class ShellPhone(RecordingDevice, AdbPhone):
    """A phone reached over adb (not a served sim): records its shell commands and keys."""

    def __init__(self, serial: str = "e-1") -> None:
        super().__init__()
        self.serial = serial
        self.commands: list[list[str]] = []

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        self.commands.append(list(args))
        return ShellResult(b"", b"", 0)

    @property
    def stops(self) -> list[list[str]]:
        return [c for c in self.commands if c[:2] == ["am", "force-stop"]]

    @property
    def homes(self) -> int:
        return self.calls.count(("press_key", Key.HOME))


def _built(device: Device) -> DeviceBuilder:
    def build(spec: str, noise: NoiseConfig | None) -> Device:
        return device

    return build


def test_parse_devices() -> None:
    assert parse_devices("sim*3") == (DeviceSpec("sim", ""),) * 3
    assert parse_devices("adb:emulator-5554, adb:emulator-5556") == (
        DeviceSpec("adb", "emulator-5554"), DeviceSpec("adb", "emulator-5556"))
    for bad, message in [("", "empty"), ("sim*x", "integer"), ("sim*0", ">= 1"), ("sim:3", "seeded by each"),
                         ("adb:e-1,adb:e-1", "more than once"), ("adb:e-1*2", "more than once"),
                         ("floppy", "unknown --device")]:
        with pytest.raises(ConfigError, match=message):
            parse_devices(bad)


def test_pool_names() -> None:
    slots = make_pool(parse_devices("sim*2,adb:emulator-5554"))
    assert [s.name for s in slots] == ["sim#1", "sim#2", "adb:emulator-5554"]


def test_sim_slot_resets_its_phone_exactly_to_each_episodes_seed() -> None:
    noise = NoiseConfig.parse("paper")
    slot = DeviceSlot("sim#1", DeviceSpec("sim", ""), noise=noise)
    first = slot.prepare(3)
    assert isinstance(first, SimDevice) and first.seed == 3 and first.noise == noise
    untouched = first.hierarchy().raw
    first.open_app("Clock")
    slot.note_packages(["com.google.android.deskclock"])
    again = slot.prepare(3)
    assert isinstance(again, SimDevice) and again.seed == 3
    assert again.foreground_package() != "com.google.android.deskclock"
    assert "com.google.android.deskclock" not in again.state.history.packages
    assert again.hierarchy().raw == untouched == SimDevice(seed=3, noise=noise).hierarchy().raw
    other = slot.prepare(4)
    assert isinstance(other, SimDevice) and other.seed == 4
    assert other.hierarchy().raw == SimDevice(seed=4, noise=noise).hierarchy().raw


def test_real_device_reset_force_stops_what_was_opened_and_goes_home() -> None:
    phone = ShellPhone()
    slot = DeviceSlot("adb:e-1", DeviceSpec("adb", "e-1"), build=_built(phone))
    assert slot.prepare(0) is phone
    assert phone.stops == [] and phone.homes == 2
    slot.note_packages(["com.android.settings", "com.android.chrome", "com.android.systemui"])
    phone.package = "com.google.android.deskclock"  # opened last, still in front
    slot.prepare(1)
    assert phone.stops == [["am", "force-stop", p] for p in
                           ("com.android.chrome", "com.android.settings", "com.google.android.deskclock")]
    assert phone.homes == 4 and phone.package == LAUNCHER
    slot.prepare(2)  # nothing was opened since the last reset
    assert len(phone.stops) == 3


def test_recover_rebuilds_once_then_retires() -> None:
    builds: list[str] = []

    def build(spec: str, noise: NoiseConfig | None) -> Device:
        builds.append(spec)
        if len(builds) > 1:
            raise DeviceConnectionError("device offline")
        return ShellPhone()

    slot = DeviceSlot("adb:e-1", DeviceSpec("adb", "e-1"), build=build)
    slot.prepare(0)
    assert not slot.recover("lost the connection")
    assert "reconnecting failed: device offline" in slot.retired
    assert builds == ["adb:e-1", "adb:e-1"]


def _fake_adb(tmp_path: Path, body: str) -> str:
    adb = tmp_path / "adb"
    adb.write_text("#!/bin/sh\n" + body)
    adb.chmod(adb.stat().st_mode | stat.S_IEXEC)
    return str(adb)


def test_snapshot_load_runs_adb_emu(tmp_path: Path) -> None:
    log = tmp_path / "argv"
    adb = _fake_adb(tmp_path, f'echo "$@" > {log}\necho OK\n')
    load_snapshot("emulator-5554", "clean", adb=adb)
    assert log.read_text().split() == ["-s", "emulator-5554", "emu", "avd", "snapshot", "load", "clean"]


def test_snapshot_failures_are_device_errors(tmp_path: Path) -> None:
    with pytest.raises(DeviceError, match="KO"):
        load_snapshot("emulator-5554", "missing", adb=_fake_adb(tmp_path, "echo 'KO: snapshot not found'\n"))
    with pytest.raises(DeviceError, match="exit 1"):
        load_snapshot("emulator-5554", "x", adb=_fake_adb(tmp_path, "echo error: device offline >&2; exit 1\n"))
    with pytest.raises(DeviceError, match="needs the adb binary"):
        load_snapshot("emulator-5554", "x", adb=os.fspath(tmp_path / "no-such-adb"))


def test_reset_with_snapshot_uses_the_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "argv"
    _fake_adb(tmp_path, f'echo "$@" >> {log}\necho OK\n')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    phone = ShellPhone("e-7")
    slot = DeviceSlot("adb:e-7", DeviceSpec("adb", "e-7"), ResetPolicy(snapshot="clean"),
                      build=_built(phone))
    slot.prepare(0)
    assert log.read_text().split() == ["-s", "e-7", "emu", "avd", "snapshot", "load", "clean"]
    assert phone.homes == 2


def test_a_snapshot_is_refused_by_a_device_without_an_adb_serial() -> None:
    slot = DeviceSlot("adb:x", DeviceSpec("adb", "x"), ResetPolicy(snapshot="clean"),
                      build=_built(RecordingDevice()))
    with pytest.raises(ConfigError, match="needs an emulator reached over adb"):
        slot.prepare(0)


def test_the_pool_never_asks_which_kind_of_device_it_holds() -> None:
    source = Path(__file__).parents[2].joinpath("benchmarks", "pool.py").read_text(encoding="utf-8")
    assert '"sim"' not in source and "SimDevice" not in source
