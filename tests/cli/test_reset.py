"""A second run on a served phone: ``run`` says where it starts, and ``--reset`` starts it afresh."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.device.adb_phone import KEEP_RUNNING
from latent_agent.device.base import Key
from latent_agent.device.reset import reset, start_state
from latent_agent.device.sim.device import SimDevice
from tests.cli.helpers import ROOT, cli, dead_port
from tests.device_adb.fakes import LAUNCHER, RecordingPhone


def _adb_binary() -> Path:
    import adbutils.binaries

    path = Path(adbutils.binaries.__file__).parent / "adb"
    if not path.exists():  # pragma: no cover - depends on the wheel
        pytest.skip("the adbutils wheel ships no adb binary on this platform")
    return path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``latent-agent sim serve`` on a free port, and the environment of a private adb server; both stopped after."""
    adb, adb_port, port = _adb_binary(), dead_port(), dead_port()
    env = {"ANDROID_ADB_SERVER_PORT": str(adb_port), "ADB_MDNS": "0", "ADB_USB": "0"}
    server = subprocess.Popen([sys.executable, "-m", "latent_agent.cli", "sim", "serve", "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        server.stdout.readline()  # it announces itself once listening
        yield f"127.0.0.1:{port}", env
    finally:
        server.terminate()
        server.wait(timeout=30)
        subprocess.run([str(adb), "-P", str(adb_port), "kill-server"], capture_output=True, timeout=30, check=False)


def _run(served: tuple[str, dict[str, str]], out: Path, *extra: str) -> tuple[str, str]:
    serial, env = served
    done = cli("run", "Turn off data roaming", "--device", f"adb:{serial}", "--llm", "demo", "--no-screenshots",
               "--out", str(out), *extra, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    start = next(line for line in done.stdout.splitlines() if line.startswith("starting from"))
    first_screen = read_trajectory(out).steps[0].foreground_package
    return start, first_screen


def test_a_second_run_starts_where_the_first_left_the_phone_unless_reset(served: tuple[str, dict[str, str]],
                                                                         tmp_path: Path) -> None:
    start, screen = _run(served, tmp_path / "first")
    assert start.startswith("starting from the served simulated phone as the last run left it:")
    assert screen in KEEP_RUNNING  # a fresh served phone shows its launcher
    settings = read_trajectory(tmp_path / "first").steps[-1].foreground_package
    assert settings not in KEEP_RUNNING

    start, screen = _run(served, tmp_path / "second", "--max-steps", "1")
    assert f"as the last run left it: {settings} in front (not reset" in start
    assert screen == settings

    start, screen = _run(served, tmp_path / "third", "--max-steps", "1", "--reset")
    assert start == "starting from the served simulated phone, reset to the initial state of seed 0"
    assert screen in KEEP_RUNNING


def test_start_state_and_reset_in_process() -> None:
    phone = SimDevice(seed=3)
    assert start_state(phone, fresh=True) == "a fresh simulated phone (seed 3)"
    phone.open_app("Settings")
    assert phone.foreground_package() not in KEEP_RUNNING
    assert reset(phone) == "the simulated phone reset to its initial state (seed 3)"
    assert phone.foreground_package() in KEEP_RUNNING


def test_reset_goes_home_on_a_phone_that_is_not_a_sim() -> None:
    phone = RecordingPhone()  # a phone reached over adb that is not a served sim: no sim property
    phone.package = "com.example.mail"
    assert "as the last run left it: com.example.mail in front" in start_state(phone, fresh=False)
    assert reset(phone) == "the home screen (Home pressed, com.example.mail force-stopped)"
    assert ("shell", "am", "force-stop", "com.example.mail") in phone.calls
    assert phone.calls.count(("press_key", Key.HOME)) == 2 and phone.package == LAUNCHER
    assert not any(c[:2] == ("shell", "latent-sim") for c in phone.calls)
    phone.calls.clear()
    reset(phone)  # the launcher in front is never force-stopped
    assert not any(c[:3] == ("shell", "am", "force-stop") for c in phone.calls)
