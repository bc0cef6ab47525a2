"""Several pages per browser and several browsers: a pool of MiniWoB++ devices spread over browsers of N pages."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from latent_agent.device.miniwob.browser import CHROMIUM, PAGES_ENV, pages_per_browser
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.device.task_env import TaskReward
from latent_agent.errors import ConfigError, DeviceError
from tests.device.miniwob.conftest import open_device
from tests.device.miniwob.solvers import solve

psutil = pytest.importorskip("psutil", reason="psutil counts the browser processes")


def browser_pids() -> set[int]:
    """Chromium browser processes (not their renderers, GPU or zygotes) started by this test process."""
    found = set()
    for child in psutil.Process().children(recursive=True):
        try:
            argv = child.cmdline()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if argv and argv[0].endswith("chromium") and not any(a.startswith("--type=") for a in argv):
            found.add(child.pid)
    return found


def new_browsers(before: set[int], expected: int) -> int:
    """How many browsers started since ``before`` are running, once that is ``expected`` (or after 15 s).

    Counted against the set of earlier browsers, not their number: a browser of an earlier test may still be
    shutting down while this one runs; and a browser exits a moment after its last page closes.
    """
    deadline = time.monotonic() + 15
    while True:
        count = len(browser_pids() - before)
        if count == expected or time.monotonic() > deadline:
            return count
        time.sleep(0.1)


def test_pages_beyond_the_cap_get_another_browser_and_each_browser_closes_with_its_last_page(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    open_device().close()  # skips, naming why, where no browser can be launched
    monkeypatch.setenv(PAGES_ENV, "2")
    # Chromium by another path: browsers of their own, which the session's shared browser cannot lend pages to.
    executable = tmp_path / "chromium"
    executable.symlink_to(CHROMIUM)
    before = browser_pids()
    with ExitStack() as stack:
        devices = [stack.enter_context(MiniWobDevice(executable=executable)) for _ in range(5)]
        assert new_browsers(before, 3) == 3  # 2 + 2 + 1 pages
        rewards: dict[int, list[TaskReward]] = {}

        def play(i: int, device: MiniWobDevice) -> None:
            rewards[i] = [solve(device, "click-checkboxes", seed) for seed in (1000 + i, 1010 + i)]

        threads = [threading.Thread(target=play, args=(i, d)) for i, d in enumerate(devices)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert sorted(rewards) == list(range(5))
        assert all(r.success for played in rewards.values() for r in played), rewards
        devices[0].close()
        devices[1].close()  # the first browser's two pages: it closes
        assert new_browsers(before, 2) == 2
    assert new_browsers(before, 0) == 0


def test_the_pages_per_browser_default_and_a_bad_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PAGES_ENV, raising=False)
    assert pages_per_browser() == 4
    for bad in ("0", "four", "-2"):
        monkeypatch.setenv(PAGES_ENV, bad)
        with pytest.raises(ConfigError, match=rf"{PAGES_ENV}={bad} must be a positive integer"):
            MiniWobDevice("click-button")


def test_a_device_built_after_its_browser_crashed_gets_a_browser_of_its_own(tmp_path: Path) -> None:
    open_device().close()  # skips, naming why, where no browser can be launched
    executable = tmp_path / "chromium"  # browsers of their own, as above
    executable.symlink_to(CHROMIUM)
    before = browser_pids()
    with MiniWobDevice(executable=executable) as old:
        (crashing,) = browser_pids() - before
        os.kill(crashing, signal.SIGKILL)  # the browser this test launched
        with pytest.raises(DeviceError):  # a failed device (a sweep rebuilds it), not a page that is bad
            old.load_task("click-button", 1)
        with MiniWobDevice(executable=executable) as new:  # the page is not lent by the crashed browser
            assert isinstance(new, MiniWobDevice)
            assert solve(new, "click-button", 1).success
