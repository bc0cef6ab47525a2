"""The accept loop of a served endpoint (the adb server, the emulator console), written once.

A :class:`Listener` binds a TCP socket, accepts connections on a tracked thread and serves each on a thread of its
own, refusing one past the endpoint's limit; :meth:`Listener.close` stops accepting, drops every connection and
waits for the threads.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
from collections.abc import Callable
from typing import Generic, TypeVar

from latent_agent.device.adb_server.workers import Workers
from latent_agent.errors import DeviceConnectionError, ServeAddressError

log = logging.getLogger(__name__)

#: What one accepted connection is served as (the adb server's connection record, the console's socket).
C = TypeVar("C")


def listen(host: str, port: int, *, backlog: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening (port 0: any free port).

    Raises:
        ServeAddressError: The address cannot be bound (in use, not local, no permission).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeAddressError(f"cannot listen on {host}:{port}: {exc}") from None
    sock.listen(backlog)
    return sock


class Listener(Generic[C]):
    """Accept connections and serve each on its own tracked thread.

    Args:
        what: One connection in words, for the log (``an adb connection``).
        thread: The name of each connection's thread.
        host: Address to listen on.
        port: Port; 0 picks a free one.
        backlog: Connections the kernel queues before they are accepted.
        max_connections: Connections served at once; one more is dropped as it arrives.
        accept: Makes what is served from an accepted socket.
        serve: Serves it until it ends (on its own thread).
        drop: Ends it from another thread (a refused connection, or every open one on :meth:`close`).
    """

    def __init__(self, what: str, *, thread: str, host: str, port: int, backlog: int, max_connections: int,
                 accept: Callable[[socket.socket], C], serve: Callable[[C], None], drop: Callable[[C], None]) -> None:
        self.what = what
        self.thread = thread
        self.workers = Workers()
        self._host, self._port, self._backlog = host, port, backlog
        self._max = max_connections
        self._accept, self._serve, self._drop = accept, serve, drop
        self._sock: socket.socket | None = None
        self._open: list[C] = []

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if self._sock is None:
            raise DeviceConnectionError(f"nothing listens for {self.what} yet")
        return int(self._sock.getsockname()[1])

    @property
    def started(self) -> bool:
        return self._sock is not None

    def start(self, name: str) -> None:
        """Bind and accept on a thread called ``name``.

        Raises:
            ServeAddressError: The address cannot be bound.
        """
        self._sock = listen(self._host, self._port, backlog=self._backlog)
        self.workers.spawn(self._loop, name)

    def _loop(self) -> None:
        assert self._sock is not None
        while not self.workers.stopped.is_set():
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            connection = self._accept(client)
            with self.workers.lock:
                full = len(self._open) >= self._max
                if not full:
                    self._open.append(connection)
            if full:
                log.warning("refusing %s: %d are open already", self.what, self._max)
                self._drop(connection)
                continue
            self.workers.spawn(functools.partial(self._served, connection), self.thread)

    def _served(self, connection: C) -> None:
        try:
            self._serve(connection)
        finally:
            with self.workers.lock:
                self._open.remove(connection)

    def close(self, timeout: float = 5.0) -> bool:
        """Stop accepting, drop every connection and wait up to ``timeout`` s for the threads.

        Returns:
            True if every thread has ended, False if some were still running when ``timeout`` passed.
        """
        self.workers.stop()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
        with self.workers.lock:
            open_now = list(self._open)
        for connection in open_now:
            self._drop(connection)
        return self.workers.join(timeout)
