"""One adb stream (a service opened with OPEN) as seen by the service code.

adb streams are flow-controlled: after each WRTE the sender waits for the
peer's OKAY before sending the next. :class:`Stream` hides that behind
blocking :meth:`Stream.write` / :meth:`Stream.read_exact` calls that raise
:class:`StreamClosed` when the peer closes the stream or the connection drops.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable

from latent_agent.device.adb_server.protocol import A_CLSE, A_WRTE, Message


class StreamClosed(Exception):
    """The peer closed the stream or the connection is gone."""


class Stream:
    """A flow-controlled byte stream inside an adb connection.

    Args:
        local_id: Our id for the stream (the peer's ``arg1``).
        remote_id: The peer's id (our ``arg1``).
        send: Sends one message on the connection.
        max_payload: Largest WRTE payload the peer accepts.
    """

    def __init__(self, local_id: int, remote_id: int, send: Callable[[Message], None],
                 max_payload: int) -> None:
        self.local_id = local_id
        self.remote_id = remote_id
        self._send = send
        self._max_payload = max_payload
        self._cond = threading.Condition()
        self._can_write = True
        self._closed = False
        self._inbox: queue.Queue[bytes | None] = queue.Queue()
        self._pending = bytearray()
        self._eof = False
        #: Set when the stream ends, from either side; services use it to stop early.
        self.cancelled = threading.Event()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- called by the connection's reader thread --------------------------

    def on_okay(self) -> None:
        with self._cond:
            self._can_write = True
            self._cond.notify_all()

    def on_data(self, data: bytes) -> None:
        self._inbox.put(data)

    def on_close(self) -> None:
        """The peer closed the stream (or the connection died)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self.cancelled.set()
        self._inbox.put(None)

    # -- called by the service ----------------------------------------------

    def write(self, data: bytes) -> None:
        """Send ``data``, split into payload-sized WRTEs, waiting for each OKAY.

        Raises:
            StreamClosed: If the stream is closed before everything was sent.
        """
        view = memoryview(data)
        while view:
            chunk, view = view[: self._max_payload], view[self._max_payload:]
            with self._cond:
                while not self._can_write and not self._closed:
                    self._cond.wait()
                if self._closed:
                    raise StreamClosed
                self._can_write = False
            self._send(Message(A_WRTE, self.local_id, self.remote_id, bytes(chunk)))

    def recv(self, timeout: float | None = None) -> bytes | None:
        """Next chunk the peer wrote; ``None`` at end of stream.

        Raises:
            queue.Empty: If ``timeout`` passed without data.
        """
        if self._pending:
            out = bytes(self._pending)
            self._pending.clear()
            return out
        if self._eof:
            return None
        item = self._inbox.get(timeout=timeout)
        if item is None:
            self._eof = True
        return item

    def read_exact(self, n: int) -> bytes:
        """Exactly ``n`` bytes from the peer.

        Raises:
            StreamClosed: If the stream ends first.
        """
        while len(self._pending) < n:
            if self._eof:
                raise StreamClosed
            item = self._inbox.get()
            if item is None:
                self._eof = True
                raise StreamClosed
            self._pending.extend(item)
        out = bytes(self._pending[:n])
        del self._pending[:n]
        return out

    def close(self) -> None:
        """Close our side: send CLSE once; later writes raise :class:`StreamClosed`."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self.cancelled.set()
        with contextlib.suppress(OSError):
            self._send(Message(A_CLSE, self.local_id, self.remote_id))
