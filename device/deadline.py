"""Deadlines for calls into libraries that offer none (or only very long ones).

:func:`call_with_deadline` runs a blocking call on a daemon thread and waits
for it at most ``timeout`` seconds. A call still running then is abandoned: it
finishes or fails on its own thread, and the caller gets a
:class:`~latent_agent.errors.DeviceTimeoutError` instead of a hang.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from latent_agent.errors import DeviceTimeoutError

T = TypeVar("T")


def call_with_deadline(what: str, call: Callable[[], T], timeout: float) -> T:
    """``call()``'s result, or its exception re-raised, if it ends within ``timeout`` seconds.

    Raises:
        DeviceTimeoutError: If ``call`` is still running after ``timeout`` seconds
            (the message names ``what``).
    """
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the caller below
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name=f"deadline-{what[:40]}", daemon=True).start()
    if not done.wait(timeout):
        raise DeviceTimeoutError(f"{what}: no answer within {timeout:g} s")
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value
