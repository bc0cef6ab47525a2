"""U2Device (adb side offline; UI side needs a device), AndroidEnvDevice on android_env's fake simulator,
and the --device spec loader."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.device.androidenv import AndroidEnvDevice, AndroidEnvSettings
from latent_agent.device.base import Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.spec import BACKENDS, load_device, parse_device_spec
from latent_agent.device.u2 import U2Device
from latent_agent.errors import (
    AppNotFoundError,
    ConfigError,
    DeviceConnectionError,
    DeviceError,
    DeviceTimeoutError,
)
from tests.device_adb.conftest import Adb, Served, serve, stop
from tests.device_adb.fakes import RecordingPhone


@pytest.fixture(scope="module")
def sim_served(adb: Adb) -> Iterator[Served]:
    served = serve(adb, SimDevice(seed=9))
    yield served
    stop(adb, served)


def test_u2_adb_side_calls_against_the_served_sim(sim_served: Served) -> None:
    sim = sim_served.device
    dev = U2Device(sim_served.serial)
    assert dev.screen_size() == sim.screen_size()
    assert dev.launcher_apps() == dict(sim.launcher_apps())
    package = next(iter(sim.launcher_apps().values()))
    dev.launch_package(package)
    assert sim.foreground_package() == dev.foreground_package() == package
    with pytest.raises(AppNotFoundError):
        dev.launch_package("com.example.absent")
    dev.launch_activity("quick_settings")
    assert sim.foreground_package() == "com.android.systemui"
    assert dev._u2 is None  # none of this needed the on-device server


class _StuckU2:
    """Stands in for a ``uiautomator2.Device`` whose on-device server stopped answering."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.stopped = False

    def dump_hierarchy(self) -> str:
        self.release.wait(60)
        return "<hierarchy/>"

    def click(self, x: int, y: int) -> None:
        from uiautomator2.exceptions import ConnectError

        raise ConnectError("device offline")

    def press(self, key: int) -> None:
        raise ValueError("not a uiautomator2 error")

    def stop_uiautomator(self) -> None:
        self.stopped = True
        self.release.wait(60)


def test_u2_calls_have_deadlines_and_typed_errors(sim_served: Served) -> None:
    dev = U2Device(sim_served.serial, rpc_timeout=0.3)
    stuck = _StuckU2()
    dev._u2 = stuck
    try:
        with pytest.raises(DeviceTimeoutError, match=r"dump_hierarchy: no answer within 0\.3 s"):
            dev.hierarchy()
        with pytest.raises(DeviceConnectionError, match="device offline"):
            dev.tap(1, 1)
        with pytest.raises(ValueError, match="not a uiautomator2 error"):
            dev.press_key(Key.HOME)
        dev.close()  # bounded too, although stop_uiautomator hangs
        assert stuck.stopped and dev._u2 is None
    finally:
        stuck.release.set()
    with pytest.raises(DeviceError, match="timeouts must be positive"):
        U2Device(sim_served.serial, rpc_timeout=0)


@pytest.mark.needs_device
def test_u2_ui_calls_on_a_real_device() -> None:  # pragma: no cover - needs hardware
    import os

    serial = os.environ.get("LATENT_AGENT_U2_SERIAL")
    if not serial:
        pytest.skip("set LATENT_AGENT_U2_SERIAL to a device serial to run")
    dev = U2Device(serial)
    assert dev.hierarchy().tree.node_count > 0
    assert dev.screenshot().startswith(b"\x89PNG")
    dev.press_key(Key.HOME)


def _fake_env(tmp_path: Path) -> object:
    from android_env import loader
    from android_env.components import config_classes as cc

    task = tmp_path / "task.textproto"
    task.write_text('id: "latent_agent_fake"\nname: "fake"\n')
    config = cc.AndroidEnvConfig(task=cc.FilesystemTaskConfig(path=str(task)),
                                 simulator=cc.FakeSimulatorConfig(screen_dimensions=(240, 120)))
    return loader.load(config)


def test_androidenv_device_on_the_fake_simulator(tmp_path: Path) -> None:
    from PIL import Image

    env = _fake_env(tmp_path)
    keys = RecordingPhone()
    dev = AndroidEnvDevice(env, keys)
    try:
        assert dev.screen_size().width == 120 and dev.screen_size().height == 240
        with Image.open(io.BytesIO(dev.screenshot())) as img:
            assert img.size == (120, 240)
        dev.tap(60, 120)
        dev.swipe(10, 200, 10, 20, duration_ms=10)
        with pytest.raises(DeviceError, match="outside"):
            dev.tap(500, 10)
        with pytest.raises(DeviceError, match="accessibility forest"):
            dev.hierarchy()
        dev.press_key(Key.BACK)
        dev.input_text("hé")
        assert keys.calls[-2:] == [("press_key", Key.BACK), ("input_text", "hé")]
    finally:
        dev.close()


def test_androidenv_steps_have_a_deadline(tmp_path: Path) -> None:
    env = _fake_env(tmp_path)
    release = threading.Event()
    dev = AndroidEnvDevice(env, RecordingPhone(), step_timeout=0.3)
    real_step = env.step

    def stuck_step(action: object) -> object:
        release.wait(60)
        return real_step(action)

    env.step = stuck_step  # type: ignore[method-assign]
    try:
        with pytest.raises(DeviceTimeoutError, match=r"android_env step TOUCH: no answer within 0\.3 s"):
            dev.tap(10, 10)
        env.step = lambda action: (_ for _ in ()).throw(RuntimeError("grpc went away"))  # type: ignore[method-assign]
        with pytest.raises(DeviceError, match="android_env step REPEAT failed: grpc went away"):
            dev.screenshot()
    finally:
        release.set()
        env.step = real_step  # type: ignore[method-assign]
        dev.close()


def test_androidenv_config_file(tmp_path: Path) -> None:
    good = tmp_path / "env.json"
    good = _write(good, {"schema_version": 1, "avd_name": "Pixel_7_API_34", "task_path": "t.textproto"})
    assert AndroidEnvSettings.from_file(good).avd_name == "Pixel_7_API_34"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema_version": 1, "avd_name": "x", "task_path": "t", "emulator": "typo"}))
    with pytest.raises(ConfigError, match="unknown keys"):
        AndroidEnvSettings.from_file(bad)
    with pytest.raises(ConfigError, match="schema_version"):
        AndroidEnvSettings.from_file(_write(tmp_path / "v0.json", {"avd_name": "x", "task_path": "t"}))
    with pytest.raises(ConfigError, match=r"missing\.json"):
        AndroidEnvSettings.from_file(tmp_path / "missing.json")


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("text", "kind", "arg"), [
    ("sim", "sim", ""), ("sim:42", "sim", "42"), ("adb:emulator-5554", "adb", "emulator-5554"),
    ("adb:127.0.0.1:5555", "adb", "127.0.0.1:5555"), ("u2:R58M", "u2", "R58M"),
    ("androidenv:/x/env.json", "androidenv", "/x/env.json"),
])
def test_device_spec_forms(text: str, kind: str, arg: str) -> None:
    spec = parse_device_spec(text)
    assert (spec.kind, spec.arg) == (kind, arg)
    assert str(spec) == text


@pytest.mark.parametrize("text", ["", "phone", "adb", "adb:", "u2", "sim:", "androidenv", "emulator:1"])
def test_bad_device_specs_list_the_accepted_forms(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_device_spec(text)
    message = str(info.value)
    assert "adb:SERIAL" in message or text.split(":")[0] in BACKENDS


def test_load_device_builds_each_backend(sim_served: Served, tmp_path: Path) -> None:
    assert isinstance(load_device("sim:7"), SimDevice)
    assert load_device("sim:7").seed == 7
    with pytest.raises(ConfigError, match="integer seed"):
        load_device("sim:seven")
    assert load_device(f"adb:{sim_served.serial}").screen_size() == sim_served.device.screen_size()
    assert isinstance(load_device(f"u2:{sim_served.serial}"), U2Device)
    with pytest.raises(ConfigError, match="androidenv config"):
        load_device(f"androidenv:{tmp_path / 'nope.json'}")
