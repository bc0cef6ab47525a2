"""The adb server of an adb device (issue 24 item 7): one the project started is stopped when it exits, quietly;
one that was already running is left alone.

The real adb binary (from the adbutils wheel) runs on free, private ports, never the user's 5037.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from latent_agent.device import adb_daemon
from latent_agent.device.adb_daemon import ensure_server, server_answers, started_servers, stop_started
from latent_agent.errors import DeviceConnectionError
from tests.cli.helpers import cli, one_line
from tests.device_adb.conftest import Adb, free_port

#: Keeps a started server on loopback (no mDNS, no USB), as the session's server is.
QUIET = {"ADB_MDNS": "0", "ADB_MDNS_OPENSCREEN": "0", "ADB_USB": "0", "ADB_LIBUSB": "0"}


def _gone(port: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while server_answers("127.0.0.1", port, timeout=0.2):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _run_on_missing_phone(port: int, out: Path) -> tuple[int, str]:
    done = cli("run", "Turn off data roaming", "--device", "adb:nonexistent", "--llm", "demo", "--out", str(out),
               env={**QUIET, "ANDROID_ADB_SERVER_PORT": str(port)})
    return done.returncode, done.stdout + done.stderr


def test_a_server_run_started_is_stopped_when_it_exits_and_says_nothing(tmp_path: Path) -> None:
    port = free_port()
    assert not server_answers("127.0.0.1", port)
    status, said = _run_on_missing_phone(port, tmp_path / "ep")
    assert status == 3
    assert "adb device 'nonexistent' not found" in one_line(said)
    assert "daemon" not in said  # adb's own "daemon not running; starting now" lines stay off the terminal
    assert _gone(port), f"the adb server run started on port {port} is still running"


def test_a_server_that_was_running_is_left_alone(adb: Adb, tmp_path: Path) -> None:
    status, said = _run_on_missing_phone(adb.port, tmp_path / "ep")
    assert status == 3 and "adb device 'nonexistent' not found" in one_line(said)
    time.sleep(0.5)  # a stop would have been sent as the process exited
    assert server_answers("127.0.0.1", adb.port)
    assert adb.run("devices").returncode == 0


def test_ensure_server_starts_one_once_and_stops_only_its_own(adb: Adb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adb_daemon, "_STARTED", set())
    for name, value in QUIET.items():
        monkeypatch.setenv(name, value)
    port = free_port()
    try:
        ensure_server("127.0.0.1", port)
        ensure_server("127.0.0.1", port)  # the second device on it starts nothing
        ensure_server("127.0.0.1", adb.port)  # running already: used, not adopted
        assert started_servers() == {("127.0.0.1", port)}
        assert server_answers("127.0.0.1", port)
    finally:
        stop_started()
    assert _gone(port) and started_servers() == frozenset()
    assert server_answers("127.0.0.1", adb.port)


def test_no_server_is_started_for_another_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adb_daemon, "_STARTED", set())
    monkeypatch.setattr(adb_daemon, "server_answers", lambda host, port, timeout=1.0: False)
    with pytest.raises(DeviceConnectionError, match=r"no adb server answers at adb\.example:5037"):
        ensure_server("adb.example", 5037)
    assert started_servers() == frozenset()
