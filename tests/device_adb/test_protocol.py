"""The adb transport as a raw host would speak it: handshake, checksums, flow control, shutdown."""

from __future__ import annotations

import socket
import struct

import pytest

from latent_agent.device.adb_server import AdbServer
from latent_agent.device.adb_server.protocol import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_VERSION_MIN,
    A_WRTE,
    HEADER,
    Message,
    ProtocolError,
    checksum,
    decode_header,
)
from tests.device_adb.fakes import RecordingDevice


class RawHost:
    """A minimal adb host: enough of the protocol to open streams and read them."""

    def __init__(self, port: int, version: int = A_VERSION, maxdata: int = 256 * 1024) -> None:
        # A long deadline: it only matters when something is broken, and a loaded CI machine is slow.
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        # Before the handshake both sides use the oldest version, so CNXN carries a checksum.
        self.version = A_VERSION_MIN
        self.send(Message(A_CNXN, version, maxdata, b"host::features=shell_v2\0"))
        reply = self.recv()
        assert reply.command == A_CNXN
        self.banner = reply.data
        self.version, self.maxdata = reply.arg0, reply.arg1

    def send(self, msg: Message) -> None:
        self.sock.sendall(msg.encode(self.version))

    def recv(self) -> Message:
        raw = self._exact(HEADER.size)
        header = decode_header(raw)
        data = self._exact(header.length)
        if self.version < 0x01000001:
            assert header.check == checksum(data)
        return Message(header.command, header.arg0, header.arg1, data)

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def open(self, service: str, local_id: int) -> int:
        """Open ``service`` as stream ``local_id``; returns the server's id for it."""
        self.send(Message(A_OPEN, local_id, 0, service.encode() + b"\0"))
        okay = self.recv()
        assert okay.command == A_OKAY and okay.arg1 == local_id
        return okay.arg0

    def say(self, local_id: int, remote_id: int, data: bytes) -> bytes:
        """Write ``data`` to an open stream and return the next output the stream sends back."""
        self.send(Message(A_WRTE, local_id, remote_id, data))
        while True:
            msg = self.recv()
            if msg.command == A_WRTE and msg.arg1 == local_id:
                self.send(Message(A_OKAY, local_id, msg.arg0))
                return msg.data
            assert msg.command == A_OKAY and msg.arg1 == local_id, msg.name

    def run(self, service: str, local_id: int = 7) -> tuple[bytes, list[int]]:
        """Open ``service``, acknowledge every write, return the data and the WRTE sizes."""
        self.send(Message(A_OPEN, local_id, 0, service.encode() + b"\0"))
        okay = self.recv()
        assert okay.command == A_OKAY and okay.arg1 == local_id
        data, sizes = b"", []
        while True:
            msg = self.recv()
            if msg.command == A_CLSE:
                return data, sizes
            assert msg.command == A_WRTE
            data += msg.data
            sizes.append(len(msg.data))
            self.send(Message(A_OKAY, local_id, msg.arg0))


@pytest.fixture
def server() -> AdbServer:
    srv = AdbServer(RecordingDevice()).start()
    yield srv
    srv.close()


def test_message_encoding_checks_magic_and_size() -> None:
    msg = Message(A_WRTE, 1, 2, b"abc")
    raw = msg.encode(A_VERSION_MIN)
    header = decode_header(raw[:24])
    assert (header.command, header.arg0, header.arg1, header.length, header.check) == (A_WRTE, 1, 2, 3, 294)
    assert decode_header(msg.encode(A_VERSION)[:24]).check == 0
    bad = raw[:20] + struct.pack("<I", 0)
    with pytest.raises(ProtocolError, match="magic"):
        decode_header(bad)
    with pytest.raises(ProtocolError, match="exceeds"):
        decode_header(Message(A_WRTE, 1, 2, b"x" * 10).encode()[:24], max_payload=5)


def test_handshake_banner_and_version_negotiation(server: AdbServer) -> None:
    host = RawHost(server.port)
    assert host.banner.startswith(b"device::ro.product.name=latent_sim;")
    assert b"features=shell_v2,cmd" in host.banner
    assert host.version == A_VERSION
    old = RawHost(server.port, version=A_VERSION_MIN, maxdata=4096)
    assert (old.version, old.maxdata) == (A_VERSION_MIN, 4096)
    data, _ = old.run("shell:echo checksummed")
    assert data == b"checksummed\n"


def test_writes_respect_max_payload_and_wait_for_okay(server: AdbServer) -> None:
    host = RawHost(server.port, maxdata=4096)
    data, sizes = host.run("exec:screencap")
    assert len(data) == 16 + 108 * 240 * 4
    assert max(sizes) == 4096 and len(sizes) > 20


def test_shell_v2_framing_and_exit_status(server: AdbServer) -> None:
    host = RawHost(server.port)
    data, _ = host.run("shell,v2,raw:echo out; nope; exit 3")
    packets = []
    while data:
        ident, length = struct.unpack("<BI", data[:5])
        packets.append((ident, data[5 : 5 + length]))
        data = data[5 + length :]
    assert packets == [(1, b"out\n"), (2, b"/system/bin/sh: nope: not found\n"), (3, b"\x03")]


def test_unknown_service_is_refused(server: AdbServer) -> None:
    host = RawHost(server.port)
    host.send(Message(A_OPEN, 5, 0, b"framebuffer:\0"))
    reply = host.recv()
    assert (reply.command, reply.arg0, reply.arg1) == (A_CLSE, 0, 5)


def test_garbage_drops_only_that_connection(server: AdbServer) -> None:
    bad = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    bad.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert bad.recv(10) == b""
    assert RawHost(server.port).run("shell:echo still up")[0] == b"still up\n"


def test_several_clients_at_once_and_clean_shutdown(server: AdbServer) -> None:
    # Eight connections, each with an interactive shell, all open at once; each answers while
    # the others stay open. A server handling connections one after another would never
    # answer the last one (no timing involved: a hang fails on the socket deadline).
    hosts = [RawHost(server.port) for _ in range(8)]
    remotes = [h.open("shell,raw:", 7) for h in hosts]
    for i in reversed(range(8)):
        assert hosts[i].say(7, remotes[i], f"echo {i}\n".encode()) == f"{i}\n".encode()
    # Likewise several streams multiplexed on one connection.
    shared = RawHost(server.port)
    streams = {local: shared.open("shell,raw:", local) for local in (11, 12, 13)}
    for local in (13, 11, 12):
        assert shared.say(local, streams[local], f"echo stream {local}\n".encode()) == f"stream {local}\n".encode()
    # Shutdown interrupts a long command instead of waiting for it.
    host = RawHost(server.port)
    host.send(Message(A_OPEN, 9, 0, b"shell:sleep 1000\0"))
    assert host.recv().command == A_OKAY
    assert server.close(timeout=60), "a service thread outlived close()"
    for h in (host, shared, *hosts):
        with pytest.raises((EOFError, OSError)):
            h.recv()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=5)
