"""The adb server the adb backends talk to: used as it is when one answers, else started here and stopped
when the process exits.

Left to itself, adbutils starts a missing server (``adb start-server``, whose "daemon not running; starting
now" lines land on the user's terminal) and leaves it running after latent-agent exits, so even a mistyped
``--device adb:SERIAL`` left a server behind. :func:`ensure_server` runs before any adbutils call instead: a
server that already answers is the user's (or a test's) and is left alone; a missing one on this machine is
started quietly on the same port and remembered, and :func:`stop_started` (registered with :mod:`atexit`)
stops exactly those when the process exits.
"""

from __future__ import annotations

import atexit
import contextlib
import socket
import subprocess
import threading

from latent_agent.device.adb_phone import adb_binary
from latent_agent.errors import DeviceConnectionError

#: Hosts a server can be started on: this machine (a server elsewhere is someone else's to start).
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: Seconds ``adb start-server`` may take (adb itself waits up to about 10 s for its daemon).
START_TIMEOUT_S = 20.0
#: Seconds ``adb kill-server`` may take at exit.
STOP_TIMEOUT_S = 10.0

_LOCK = threading.Lock()
#: The (host, port) of every server this process started.
_STARTED: set[tuple[str, int]] = set()


def server_answers(host: str, port: int, timeout: float = 1.0) -> bool:
    """Whether something accepts connections at ``host:port`` (an adb server listens there)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def ensure_server(host: str, port: int) -> None:
    """Make sure an adb server answers at ``host:port``.

    One that already answers is used as it is (and never stopped by this process); none, on this machine, is
    started here, its output kept off the terminal, and stopped when the process exits. Threads building
    devices at once start at most one.

    Raises:
        DeviceConnectionError: None answers on another machine (it cannot be started from here), there is no
            adb binary to start one, or it does not start.
    """
    with _LOCK:
        if (host, port) in _STARTED or server_answers(host, port):
            return
        if host not in LOCAL_HOSTS:
            raise DeviceConnectionError(f"no adb server answers at {host}:{port} (start it on that machine)")
        _start(port)
        if not _STARTED:
            atexit.register(stop_started)
        _STARTED.add((host, port))


def _adb(*args: str) -> list[str]:
    return [adb_binary(), *args]


def _start(port: int) -> None:
    command = _adb("-P", str(port), "start-server")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=START_TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise DeviceConnectionError(f"no adb server answers on port {port}, and there is no adb binary to start "
                                    "one (install Android platform-tools, or adbutils with its bundled adb)") from None
    except subprocess.TimeoutExpired:
        raise DeviceConnectionError(f"the adb server on port {port} did not start within {START_TIMEOUT_S:g} s "
                                    f"({' '.join(command)})") from None
    if done.returncode != 0 or not server_answers("127.0.0.1", port):
        said = " ".join((done.stdout + done.stderr).split())[-300:]
        raise DeviceConnectionError(f"could not start an adb server on port {port} (exit {done.returncode}: "
                                    f"{said or 'no output'})")


def started_servers() -> frozenset[tuple[str, int]]:
    """The (host, port) of the servers this process started and has not stopped yet."""
    with _LOCK:
        return frozenset(_STARTED)


def stop_started() -> None:
    """Stop every server this process started (as ``adb kill-server`` does); never one it found running."""
    with _LOCK:
        for _host, port in sorted(_STARTED):
            # Exiting anyway: a server that will not stop is not worth a traceback.
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(_adb("-P", str(port), "kill-server"), capture_output=True, timeout=STOP_TIMEOUT_S,
                               check=False, stdin=subprocess.DEVNULL)
        _STARTED.clear()
