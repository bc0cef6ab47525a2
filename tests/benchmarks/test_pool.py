"""The device pool: --devices parsing, the real-device reset step, snapshot loading, recovery."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from latent_agent.benchmarks.pool import DeviceSlot, ResetPolicy, load_snapshot, make_pool, parse_devices
from latent_agent.device.base import Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.spec import DeviceSpec
from latent_agent.errors import ConfigError, DeviceConnectionError, DeviceError


class ShellSim(SimDevice):
    """A simulated phone that also answers adb shell commands, recording them and the keys pressed."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[list[str]] = []
        self.keys: list[Key] = []

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> object:
        self.commands.append(list(args))
        return None

    def press_key(self, key: Key) -> None:
        self.keys.append(key)
        super().press_key(key)


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


def test_sim_slot_gives_a_fresh_phone_seeded_per_episode() -> None:
    slot = DeviceSlot("sim#1", DeviceSpec("sim", ""))
    first = slot.prepare(3)
    assert isinstance(first, SimDevice) and first.seed == 3
    first.open_app("Clock")
    second = slot.prepare(3)
    assert second is not first and isinstance(second, SimDevice)
    assert second.foreground_package() != "com.google.android.deskclock"
    assert not second.state.history.packages or "com.google.android.deskclock" not in second.state.history.packages


def test_real_device_reset_force_stops_used_apps_and_goes_home() -> None:
    phone = ShellSim()
    slot = DeviceSlot("adb:e-1", DeviceSpec("adb", "e-1"), build=lambda spec: phone)
    assert slot.prepare(0) is phone
    assert phone.commands == [] and phone.keys == [Key.HOME, Key.HOME]
    slot.note_packages(["com.android.settings", "com.android.chrome", "com.android.systemui"])
    slot.prepare(1)
    assert phone.commands == [["am", "force-stop", "com.android.chrome"],
                              ["am", "force-stop", "com.android.settings"]]
    assert phone.keys == [Key.HOME] * 4
    slot.prepare(2)  # nothing was used since the last reset
    assert len(phone.commands) == 2


def test_recover_rebuilds_once_then_retires() -> None:
    builds: list[str] = []

    def build(spec: str) -> SimDevice:
        builds.append(spec)
        if len(builds) > 1:
            raise DeviceConnectionError("device offline")
        return ShellSim()

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
    phone = ShellSim()
    slot = DeviceSlot("adb:e-7", DeviceSpec("adb", "e-7"), ResetPolicy(snapshot="clean"), build=lambda spec: phone)
    slot.prepare(0)
    assert log.read_text().split() == ["-s", "e-7", "emu", "avd", "snapshot", "load", "clean"]
