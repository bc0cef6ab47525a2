"""Tracked daemon threads of a served endpoint (the adb server, the emulator console): started until the
endpoint stops, then joined."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Workers:
    """The threads one endpoint runs; :meth:`stop` refuses new ones, :meth:`join` waits for the rest."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self._threads: set[threading.Thread] = set()

    def spawn(self, target: Callable[[], None], name: str) -> None:
        """Run ``target`` on a tracked daemon thread (nothing, once stopped)."""

        def run() -> None:
            try:
                target()
            finally:
                with self.lock:
                    self._threads.discard(threading.current_thread())

        thread = threading.Thread(target=run, name=name, daemon=True)
        with self.lock:
            if self.stopped.is_set():
                return
            self._threads.add(thread)
        thread.start()

    def stop(self) -> None:
        """Start no more threads."""
        self.stopped.set()

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for every thread but the caller's; True if all ended."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                threads = [t for t in self._threads if t is not threading.current_thread()]
            if not threads:
                return True
            if time.monotonic() > deadline:
                return False
            threads[0].join(max(0.0, deadline - time.monotonic()))
