"""Slow work a test waits on, started when the session's tests are collected so it runs beside the others.

The real-model test spends minutes waiting on a llama.cpp server that uses one thread, while the rest of
the suite uses the other core: started at collection, its sweep is done (or nearly) when the test is
reached, instead of adding its minutes to the session. A module offers such work as :class:`Prestart`
objects in a module-level ``PRESTART`` tuple; ``tests/conftest.py`` starts each one whose module has a
selected test, in a folder of the session's base temporary directory. A test that finds its work not
started (run alone, or the hook not loaded) starts it then and waits, so the result never depends on the
hook.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


class Prestart(Generic[T]):
    """One piece of work, run once in a background thread, whose result a test collects.

    Args:
        name: The folder the work runs in, under the session's base temporary directory.
        work: What to run, given that folder; its return value (or exception) is the result.
        ready: Whether the work can run at all on this machine (checked before starting it at
            collection; a test that cannot run skips itself with its own reason).
    """

    def __init__(self, name: str, work: Callable[[Path], T], ready: Callable[[], bool]) -> None:
        self.name = name
        self._work = work
        self._ready = ready
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._result: T | None = None
        self._error: BaseException | None = None
        self.folder: Path | None = None

    def start(self, base: Path) -> bool:
        """Start the work in ``base / name`` unless it started already or cannot run; whether it runs."""
        with self._lock:
            if self._thread is not None:
                return True
            if not self._ready():
                return False
            self.folder = base / self.name
            self.folder.mkdir(parents=True, exist_ok=True)
            self._thread = threading.Thread(target=self._run, args=(self.folder,), name=f"prestart-{self.name}",
                                            daemon=True)
            self._thread.start()
            return True

    def _run(self, folder: Path) -> None:
        try:
            self._result = self._work(folder)
        except BaseException as exc:  # handed to the test that collects the result
            self._error = exc

    def result(self, base: Path) -> tuple[Path, T]:
        """The folder and the result, starting the work in ``base`` first if nothing started it."""
        self.start(base)
        assert self._thread is not None and self.folder is not None, f"{self.name}: the work cannot run here"
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self.folder, self._result  # type: ignore[return-value]
