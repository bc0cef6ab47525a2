"""A loopback listener that records every connection it receives, to show that nothing reached it."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field


@dataclass
class Listener:
    """What reached one loopback port.

    Attributes:
        port: The TCP port.
        udp_port: The UDP port (0 when none was asked for).
        received: The first bytes of each TCP connection, and of each UDP datagram, in order.
    """

    port: int
    udp_port: int = 0
    received: list[bytes] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def seen(self) -> list[bytes]:
        with self.lock:
            return list(self.received)

    def _add(self, data: bytes) -> None:
        with self.lock:
            self.received.append(data)


def _serve_tcp(server: socket.socket, listener: Listener) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(2)
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            listener._add(data or b"(connected, nothing sent)")


def _serve_udp(server: socket.socket, listener: Listener) -> None:
    while True:
        try:
            data, _ = server.recvfrom(4096)
        except OSError:
            return
        listener._add(b"udp:" + data[:64])


@contextmanager
def listening(*, udp: bool = False) -> Iterator[Listener]:
    """A TCP listener on a free loopback port (and, with ``udp``, a UDP socket on another)."""
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(16)
    listener = Listener(tcp.getsockname()[1])
    sockets = [tcp]
    threads = [threading.Thread(target=_serve_tcp, args=(tcp, listener), daemon=True)]
    if udp:
        datagrams = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        datagrams.bind(("127.0.0.1", 0))
        listener.udp_port = datagrams.getsockname()[1]
        sockets.append(datagrams)
        threads.append(threading.Thread(target=_serve_udp, args=(datagrams, listener), daemon=True))
    for thread in threads:
        thread.start()
    try:
        yield listener
    finally:
        for sock in sockets:
            # shutdown wakes a thread blocked in accept or recvfrom; close alone may not on Linux.
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in threads:
            thread.join(timeout=5)
