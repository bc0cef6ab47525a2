"""Fixtures that run the real ``adb`` binary (from the adbutils wheel) against served devices.

The adb server is started once per session on a free, non-default port with
mDNS and USB discovery off, so it only ever talks to loopback, and is killed
at the end of the session.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from latent_agent.device.adb_server import AdbServer, ServerOptions
from latent_agent.device.base import Device


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def adb_binary() -> Path:
    import adbutils.binaries

    path = Path(adbutils.binaries.__file__).parent / "adb"
    if not path.exists():  # pragma: no cover - depends on the wheel
        pytest.skip("the adbutils wheel ships no adb binary on this platform")
    return path


@dataclass
class Adb:
    """The adb client binary bound to the session's adb server."""

    path: Path
    port: int
    env: dict[str, str]

    def run(
        self, *args: str, timeout: float = 20, stdin: int | None = subprocess.DEVNULL, check: bool = False
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(self.path), "-P", str(self.port), *args],
            env=self.env,
            capture_output=True,
            timeout=timeout,
            stdin=stdin,
            check=check,
        )

    def connect(self, serial: str) -> None:
        out = self.run("connect", serial, check=True).stdout.decode()
        assert "connected to" in out, out
        self.run("-s", serial, "wait-for-device", timeout=10, check=True)


@pytest.fixture(scope="session")
def adb() -> Iterator[Adb]:
    """A real adb server on a free port, killed after the session."""
    port = free_port()
    env = dict(
        os.environ,
        ANDROID_ADB_SERVER_PORT=str(port),
        ADB_MDNS="0",
        ADB_MDNS_OPENSCREEN="0",
        ADB_USB="0",
        ADB_LIBUSB="0",
    )
    client = Adb(adb_binary(), port, env)
    saved = {k: os.environ.get(k) for k in ("ANDROID_ADB_SERVER_PORT", "ADB_MDNS", "ADB_USB")}
    # adbutils restarts a missing adb server through the binary, which reads this variable:
    # any such restart must land on our port, never on the user's default 5037.
    os.environ.update(ANDROID_ADB_SERVER_PORT=str(port), ADB_MDNS="0", ADB_USB="0")
    client.run("start-server", check=True)
    try:
        yield client
    finally:
        client.run("kill-server")
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@dataclass
class Served:
    server: AdbServer
    device: Device
    serial: str


def serve(adb: Adb, device: Device, options: ServerOptions | None = None) -> Served:
    server = AdbServer(device, options=options).start()
    adb.connect(server.serial)
    return Served(server, device, server.serial)


def stop(adb: Adb, served: Served) -> None:
    adb.run("disconnect", served.serial)
    served.server.close()
