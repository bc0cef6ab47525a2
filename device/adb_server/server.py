"""A network adb device: a TCP server speaking the adb transport protocol for a :class:`ServedPhone`.

``adb connect 127.0.0.1:PORT`` makes the real adb server treat it as a device.
The handshake is CNXN without authentication (as on a ``ro.adb.secure=0``
userdebug build); each OPEN starts a service on its own thread; any number of
connections and streams are served at once. :meth:`AdbServer.close` stops
accepting, drops every connection and waits for the service threads.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

from latent_agent.device.adb_server.limits import ConnectionLimits
from latent_agent.device.adb_server.listener import Listener
from latent_agent.device.adb_server.protocol import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_VERSION_MIN,
    A_WRTE,
    HEADER,
    MAX_PAYLOAD,
    MAX_PAYLOAD_V1,
    Message,
    ProtocolError,
    connect_banner,
    decode_header,
    verify_payload,
)
from latent_agent.device.adb_server.served_phone import ServedPhone, ServerOptions
from latent_agent.device.adb_server.services import parse_service, run_shell, run_sync
from latent_agent.device.adb_server.stream import Stream
from latent_agent.device.base import Device
from latent_agent.errors import DeviceConnectionError

log = logging.getLogger(__name__)

#: Features announced in the CNXN banner. Without ``stat_v2``/``ls_v2``/
#: ``sendrecv_v2`` the adb client uses version-1 sync requests.
FEATURES = ("shell_v2", "cmd")



class _Connection:
    """One TCP connection from an adb host (the adb server or a direct client)."""

    def __init__(self, server: AdbServer, sock: socket.socket) -> None:
        self.server = server
        self.sock = sock
        self.version = A_VERSION_MIN
        self.max_payload = MAX_PAYLOAD_V1
        self.online = False
        self.streams: dict[int, Stream] = {}
        self._next_id = 1
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self.cancelled = threading.Event()

    def send(self, msg: Message) -> None:
        data = msg.encode(self.version)
        with self._send_lock:
            self.sock.sendall(data)

    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise DeviceConnectionError("peer closed the connection")
            buf.extend(chunk)
        return bytes(buf)

    def run(self) -> None:
        try:
            while True:
                header = decode_header(self._recv_exact(HEADER.size))
                data = self._recv_exact(header.length) if header.length else b""
                verify_payload(header, data, self.version)
                self._dispatch(Message(header.command, header.arg0, header.arg1, data))
        except ProtocolError as exc:
            log.warning("dropping adb connection: %s", exc)
        except (DeviceConnectionError, OSError):
            pass
        finally:
            self.shutdown()

    def _dispatch(self, msg: Message) -> None:
        if msg.command == A_CNXN:
            self._close_streams()
            self.version = min(msg.arg0, A_VERSION)
            # Every adb host reads the first version's 4 KiB; a peer announcing less (0 made every
            # write an endless stream of empty packets) gets that much.
            self.max_payload = max(MAX_PAYLOAD_V1, min(msg.arg1, MAX_PAYLOAD))
            self.online = True
            self.sock.settimeout(None)  # introduced: a host's connection idles between commands
            phone = self.server.phone
            keys = ("ro.product.name", "ro.product.model", "ro.product.device")
            props = {k: phone.props()[k] for k in keys}
            reply = Message(A_CNXN, self.version, self.max_payload, connect_banner(props, FEATURES))
            # The host checks this message before it knows the negotiated version: keep its checksum.
            with self._send_lock:
                self.sock.sendall(reply.encode(A_VERSION_MIN))
            return
        if not self.online:
            raise ProtocolError(f"{msg.name} before CNXN")
        if msg.command == A_OPEN:
            self._open(msg.arg0, msg.data.rstrip(b"\0").decode("utf-8", "surrogateescape"))
            return
        with self._lock:
            stream = self.streams.get(msg.arg1)
        if msg.command == A_OKAY:
            if stream is not None and stream.remote_id == msg.arg0:
                stream.on_okay()
        elif msg.command == A_WRTE:
            if stream is None:
                # adbd answers writes to unknown streams with CLSE so the peer forgets them.
                self.send(Message(A_CLSE, 0, msg.arg0))
                return
            stream.on_data(msg.data)
            self.send(Message(A_OKAY, stream.local_id, stream.remote_id))
        elif msg.command == A_CLSE and stream is not None:
            with self._lock:
                self.streams.pop(stream.local_id, None)
            stream.on_close()
        # AUTH, STLS and SYNC are never expected from a host here; ignore them.

    def _open(self, remote_id: int, name: str) -> None:
        kind, request = parse_service(name)
        if kind == "other" or remote_id == 0:
            log.info("refusing adb service %r", name)
            self.send(Message(A_CLSE, 0, remote_id))
            return
        with self._lock:
            local_id = self._next_id
            self._next_id += 1
            stream = Stream(local_id, remote_id, self._send_in_stream, self.max_payload)
            self.streams[local_id] = stream
        self.send(Message(A_OKAY, local_id, remote_id))
        cancelled = _AnyEvent(stream.cancelled, self.cancelled)
        phone = self.server.phone

        def target() -> None:
            try:
                if request is None:
                    run_sync(stream, phone, cancelled)
                else:
                    run_shell(stream, phone, request, cancelled)
            finally:
                with self._lock:
                    self.streams.pop(local_id, None)

        self.server.spawn(target, f"adb-{kind}-{local_id}")

    def _send_in_stream(self, msg: Message) -> None:
        try:
            self.send(msg)
        except OSError:
            self.shutdown()
            raise

    def _close_streams(self) -> None:
        with self._lock:
            streams = list(self.streams.values())
            self.streams.clear()
        for s in streams:
            s.on_close()

    def shutdown(self) -> None:
        self.cancelled.set()
        self._close_streams()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


class _AnyEvent(threading.Event):
    """An event that also counts as set when any of ``parents`` is set."""

    def __init__(self, *parents: threading.Event) -> None:
        super().__init__()
        self._parents = parents

    def is_set(self) -> bool:
        return super().is_set() or any(p.is_set() for p in self._parents)

    def wait(self, timeout: float | None = None) -> bool:
        # Poll the parents in short slices so a cancelled session wakes promptly.
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            self._parents[0].wait(0.05 if left is None else min(0.05, left))
        return True


class AdbServer:
    """Serve a device as a network adb device.

    Args:
        device: The device to expose.
        host: Address to listen on (loopback unless you mean to expose it).
        port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
        options: Identity and fault injection of the served phone.
        limits: Bounds on connections (how many at once, how long before CNXN).

    Example::

        with AdbServer(SimDevice(seed=1), port=0) as server:
            print(f"adb connect 127.0.0.1:{server.port}")
            server.wait()
    """

    def __init__(self, device: Device, *, host: str = "127.0.0.1", port: int = 0,
                 options: ServerOptions | None = None, limits: ConnectionLimits | None = None) -> None:
        self.phone = ServedPhone(device, options)
        self.limits = limits or ConnectionLimits()
        self._host = host
        self._listener: Listener[_Connection] = Listener(
            "an adb connection", thread="adb-connection", host=host, port=port, backlog=16,
            max_connections=self.limits.max_connections, accept=self._connection, serve=_Connection.run,
            drop=_Connection.shutdown)

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if not self._listener.started:
            raise DeviceConnectionError("the adb server is not started")
        return self._listener.port

    @property
    def serial(self) -> str:
        """The serial the adb server will list for this device after ``adb connect``."""
        return f"{self._host}:{self.port}"

    def start(self) -> AdbServer:
        """Bind and start accepting connections.

        Raises:
            ServeAddressError: If the address cannot be bound.
        """
        self._listener.start("adb-accept")
        return self

    def spawn(self, target: Callable[[], None], name: str) -> None:
        """Run ``target`` on a tracked daemon thread."""
        self._listener.workers.spawn(target, name)

    def _connection(self, client: socket.socket) -> _Connection:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.settimeout(self.limits.handshake_s)  # until its CNXN
        return _Connection(self, client)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until :meth:`close` is called (or ``timeout``); True if closed."""
        return self._listener.workers.stopped.wait(timeout)

    def close(self, timeout: float = 5.0) -> bool:
        """Stop accepting, drop every connection and wait up to ``timeout`` s for service threads.

        Returns:
            True if every connection and service thread has ended, False if some
            were still running when ``timeout`` passed.
        """
        return self._listener.close(timeout)

    def __enter__(self) -> AdbServer:
        if not self._listener.started:
            self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
