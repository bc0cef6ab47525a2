"""Stream services: ``shell:`` (v1), ``shell,v2,...:``, ``exec:`` and ``sync:``.

* ``shell:CMD`` and ``exec:CMD`` send the command's stdout and stderr, merged,
  as raw bytes and close the stream at the end (no exit status).
* ``shell,v2,ARGS:CMD`` frames output as packets ``[id:u8][len:u32le][data]``
  (1 = stdout, 2 = stderr) and ends with an exit packet (id 3, one byte).
* An empty command runs an interactive shell that executes each line received
  on stdin (v1: raw bytes; v2: id 0 packets, id 4 closes stdin).

With a pty (``pty`` argument or interactive v1) line ends are sent as CRLF, as
a terminal would produce them.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

from latent_agent.device.adb_server.commands import COMMANDS
from latent_agent.device.adb_server.served_phone import ServedPhone
from latent_agent.device.adb_server.shell import Cancelled, ExitShell, ShellSession
from latent_agent.device.adb_server.stream import Stream, StreamClosed
from latent_agent.device.adb_server.sync import serve_sync

log = logging.getLogger(__name__)

ID_STDIN, ID_STDOUT, ID_STDERR, ID_EXIT, ID_CLOSE_STDIN, ID_WINDOW_SIZE = range(6)
_PACKET = struct.Struct("<BI")

Service = Callable[[Stream, ServedPhone, threading.Event], None]


@dataclass(frozen=True, slots=True)
class ShellRequest:
    """A parsed ``shell``/``exec`` service name.

    Attributes:
        command: The command line (empty for an interactive shell).
        v2: Whether the shell protocol v2 framing is used.
        pty: Whether output goes through a (simulated) terminal.
    """

    command: str
    v2: bool
    pty: bool


def parse_service(name: str) -> tuple[str, ShellRequest | None]:
    """Split a service name into its kind (``shell``, ``exec``, ``sync``, other) and shell request."""
    if name == "sync:":
        return "sync", None
    if name.startswith("exec:"):
        return "exec", ShellRequest(name[5:], v2=False, pty=False)
    if name.startswith("shell"):
        head, sep, command = name.partition(":")
        if not sep:
            return "other", None
        args = head.split(",")[1:]
        if head.split(",")[0] != "shell":
            return "other", None
        v2 = "v2" in args
        if "raw" in args:
            pty = False
        elif "pty" in args:
            pty = True
        else:
            pty = not command
        return "shell", ShellRequest(command, v2=v2, pty=pty)
    return "other", None


class _V1Sink:
    def __init__(self, stream: Stream, pty: bool) -> None:
        self.stream = stream
        self.pty = pty

    def write(self, fd: int, data: bytes) -> None:
        if self.pty:
            data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        self.stream.write(data)


class _V2Sink:
    def __init__(self, stream: Stream, pty: bool) -> None:
        self.stream = stream
        self.pty = pty

    def write(self, fd: int, data: bytes) -> None:
        if not data:
            return
        if self.pty:
            data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            fd = 1  # a terminal has one output
        self.stream.write(_PACKET.pack(ID_STDERR if fd == 2 else ID_STDOUT, len(data)) + data)


def _prompt(session: ShellSession) -> bytes:
    return f"latent_sim:{session.cwd} $ ".encode()


def _stdin_lines(stream: Stream, v2: bool) -> list[bytes] | None:
    """Next stdin bytes (possibly several lines); ``None`` at end of input."""
    if not v2:
        return [data] if (data := stream.recv()) else None
    try:
        ident, length = _PACKET.unpack(stream.read_exact(_PACKET.size))
        payload = stream.read_exact(length)
    except StreamClosed:
        return None
    if ident == ID_CLOSE_STDIN:
        return None
    return [payload] if ident == ID_STDIN else []


def run_shell(stream: Stream, phone: ServedPhone, req: ShellRequest, cancelled: threading.Event) -> None:
    """Run a shell request on ``stream`` and close it."""
    sink = _V2Sink(stream, req.pty) if req.v2 else _V1Sink(stream, req.pty)
    session = ShellSession(phone, COMMANDS, cancelled)
    status = 0
    try:
        if req.command:
            try:
                status = session.run(req.command, sink)
            except ExitShell as exc:
                status = exc.status
        else:
            status = _interactive(stream, session, sink, req)
        if req.v2:
            stream.write(_PACKET.pack(ID_EXIT, 1) + bytes([status & 0xFF]))
    except (StreamClosed, Cancelled):
        pass
    except Exception:  # a bug in a command must not take the whole server down
        log.exception("shell command %r failed", req.command)
    finally:
        stream.close()


def _interactive(stream: Stream, session: ShellSession, sink: _V1Sink | _V2Sink, req: ShellRequest) -> int:
    pending = b""
    if req.pty:
        sink.write(1, _prompt(session))
    while True:
        chunks = _stdin_lines(stream, req.v2)
        if chunks is None:
            return session.status
        for chunk in chunks:
            pending += chunk
            while b"\n" in pending or b"\r" in pending:
                cut = min(i for i in (pending.find(b"\n"), pending.find(b"\r")) if i >= 0)
                line, pending = pending[:cut], pending[cut + 1:]
                if req.pty:
                    sink.write(1, line + b"\n")  # terminal echo
                try:
                    session.run(line.decode("utf-8", "surrogateescape"), sink)
                except ExitShell as exc:
                    return exc.status
                if req.pty:
                    sink.write(1, _prompt(session))


def run_sync(stream: Stream, phone: ServedPhone, cancelled: threading.Event) -> None:
    serve_sync(stream, phone)
