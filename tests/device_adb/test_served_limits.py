"""The served phone's two ports as an attacker on the same machine would use them."""

from __future__ import annotations

import socket
import time

from latent_agent.device.adb_server import AdbServer
from latent_agent.device.adb_server.emulator import EmulatorServer
from latent_agent.device.adb_server.limits import ConnectionLimits
from latent_agent.device.adb_server.protocol import MAX_PAYLOAD_V1
from latent_agent.device.sim.device import SimDevice
from tests.device_adb.fakes import RecordingDevice
from tests.device_adb.test_protocol import RawHost

TOKEN = "s3cret"


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (whatever it sends first is read and dropped)."""
    sock.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if sock.recv(65536) == b"":
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return False


def test_the_console_refuses_an_endless_line_before_auth() -> None:
    with EmulatorServer(SimDevice(), auth_token=TOKEN) as server, \
            socket.create_connection(("127.0.0.1", server.console_port), timeout=5) as sock:
        sock.sendall(b"x" * 200_000)  # no newline: the console must not wait for one
        with sock.makefile("rb") as lines:
            seen = [lines.readline() for _ in range(6)]
        assert b"KO: line longer than 4096 bytes; closing\r\n" in seen
        assert _closed_within(sock, 5)


def test_silent_console_sessions_are_dropped() -> None:
    limits = ConnectionLimits(handshake_s=0.3)
    with EmulatorServer(SimDevice(), auth_token=TOKEN, limits=limits) as server, \
            socket.create_connection(("127.0.0.1", server.console_port), timeout=5) as sock:
        assert _closed_within(sock, 5)  # the greeting, then nothing from us: closed


def test_a_host_announcing_no_payload_gets_the_smallest_real_one() -> None:
    with AdbServer(RecordingDevice()) as server:
        host = RawHost(server.port, maxdata=0)
        assert host.maxdata == MAX_PAYLOAD_V1
        data, sizes = host.run("shell:echo hello")
        assert data == b"hello\n" and 0 not in sizes


def test_half_open_connections_are_bounded_and_dropped() -> None:
    limits = ConnectionLimits(max_connections=4, handshake_s=0.5)
    with AdbServer(RecordingDevice(), limits=limits) as server:
        silent = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(12)]
        try:
            assert all(_closed_within(s, 5) for s in silent)  # beyond 4 at once, the rest after 0.5 s
            assert RawHost(server.port).run("shell:echo still up")[0] == b"still up\n"
        finally:
            for s in silent:
                s.close()
