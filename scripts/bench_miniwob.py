"""What MiniWoB++ pages cost: per-step latency, scripted episodes per second on 1, 4 and 8 pages, memory per page.

Measures, on this machine's Debian Chromium under Playwright:

* ``hierarchy()``, ``tap()``, ``screenshot()`` and ``load_task()`` on click-button, on a page of a browser launched
  here and on a page of a browser reached over CDP on 127.0.0.1 (``miniwob@cdp://``: the remote path, its pages
  answered from this machine by request interception; loopback, so no network time);
* episodes per second of a scripted solver (click-button and click-checkboxes alternately, each episode's task
  loaded from its seed, solved through the Device API and the action types and judged by the page's reward) with
  1, 4 and 8 pages driven from as many threads, as a sweep's workers do, with the pages spread over browsers of
  ``--pages-per-browser`` pages and, for 8, also all in one browser;
* memory: the proportional set size (PSS: shared pages split among their sharers) of this process's Chromium
  processes with 1, 4 and 8 pages open in one browser, and what each page adds.

The solvers are in this script (the tests' reference solvers stay in the tests). Usage:
``python scripts/bench_miniwob.py [--episodes N] [--repeat N]``; prints Markdown tables and the load average.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

from latent_agent.accessibility.tree import UINode
from latent_agent.agent.execute import execute
from latent_agent.device.miniwob.browser import CHROMIUM, PAGES_ENV
from latent_agent.device.miniwob.device import MiniWobDevice, RemoteMiniWobDevice
from latent_agent.device.task_env import TaskDevice
from latent_agent.grounder.actions import Click

TASKS = ("click-button", "click-checkboxes")


def _nodes(device: TaskDevice) -> list[UINode]:
    return [n for n in device.hierarchy().tree.iter() if n.visible is not False and n.bounds is not None]


def _tap(device: TaskDevice, node: UINode) -> None:
    assert node.bounds is not None
    execute(Click(*node.bounds.center), device, device.hierarchy().tree)
    device.wait_for_idle(2.0)


def _button(device: TaskDevice, label: str) -> UINode:
    return next(n for n in _nodes(device) if n.class_name.endswith("Button") and n.text == label)


def solve(device: TaskDevice, task: str, seed: int) -> bool:
    """Load ``task`` from ``seed``, play it (click-button or click-checkboxes) and say whether it was solved."""
    goal = device.load_task(task, seed)
    if task == "click-button":
        _tap(device, _button(device, goal.split('"')[1]))
    else:
        wanted = re.fullmatch(r"Select (.*) and click Submit\.", goal)
        assert wanted is not None, goal
        names = set() if wanted.group(1) == "nothing" else set(wanted.group(1).split(", "))
        for box in [n for n in _nodes(device) if n.class_name.endswith("CheckBox")]:
            if (box.text in names) != box.checked:
                _tap(device, box)
        _tap(device, _button(device, "Submit"))
    return device.task_reward().success


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


@contextmanager
def _cdp_browser() -> Iterator[str]:
    """A Chromium with its DevTools on 127.0.0.1, standing for a browser on another machine; yields cdp://."""
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen([str(CHROMIUM), "--headless", "--no-sandbox", "--no-first-run",
                                 f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1",
                                 "--remote-debugging-port=0", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            assert proc.stderr is not None
            found = None
            while found is None:
                line = proc.stderr.readline()
                if not line:
                    raise RuntimeError("the CDP browser printed no endpoint")
                found = re.search(r"ws://127\.0\.0\.1:(\d+)/", line)
            yield f"cdp://127.0.0.1:{found.group(1)}"
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # its session: the browser and its children, all started here
            proc.wait()


def latency(device: TaskDevice, repeat: int) -> dict[str, float]:
    goal = device.load_task("click-button", 7)
    button = _button(device, goal.split('"')[1])
    assert button.bounds is not None
    x, y = button.bounds.center
    seeds = iter(range(100, 100 + repeat + 1))
    return {"hierarchy()": _median_ms(device.hierarchy, repeat),
            "screenshot()": _median_ms(device.screenshot, repeat),
            # The first tap ends the task; later ones land on the ended page, as cheap as any tap.
            "tap()": _median_ms(lambda: device.tap(x, y), repeat),
            "load_task()": _median_ms(lambda: device.load_task("click-button", next(seeds)), min(repeat, 10))}


def throughput(pages: int, episodes: int, per_browser: int) -> tuple[float, int, int]:
    """Episodes per second, solved and played, with ``pages`` pages each playing ``episodes`` episodes."""
    os.environ[PAGES_ENV] = str(per_browser)
    with ExitStack() as stack:
        devices = [MiniWobDevice() for _ in range(pages)]
        for device in devices:
            stack.callback(device.close)
        for device in devices:  # warm: every page has loaded a task once
            solve(device, "click-button", 0)
        solved: list[bool] = []

        def play(i: int, device: TaskDevice) -> None:
            for k in range(episodes):
                solved.append(solve(device, TASKS[k % 2], 1000 + i * episodes + k))

        threads = [threading.Thread(target=play, args=(i, d)) for i, d in enumerate(devices)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
    return len(solved) / elapsed, sum(solved), len(solved)


def _chromium_pss_mb() -> tuple[float, float, int]:
    """PSS of this process's Chromium processes in MB: all of them and their renderers alone; how many renderers."""
    import psutil

    total = renderers = 0.0
    count = 0
    for child in psutil.Process().children(recursive=True):
        try:
            argv = child.cmdline()
            if not argv or "chromium" not in argv[0]:
                continue
            pss = child.memory_full_info().pss / 2**20
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += pss
        if "--type=renderer" in argv:
            renderers += pss
            count += 1
    return total, renderers, count


def memory(counts: tuple[int, ...]) -> list[tuple[int, float, float, int]]:
    os.environ[PAGES_ENV] = str(max(counts))
    rows = []
    with ExitStack() as stack:
        devices: list[MiniWobDevice] = []
        for count in counts:
            while len(devices) < count:
                device = MiniWobDevice()
                stack.callback(device.close)
                device.load_task("click-checkboxes", len(devices))
                devices.append(device)
            time.sleep(1.0)  # let the renderers settle
            rows.append((count, *_chromium_pss_mb()))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=12, help="episodes per page in the throughput runs")
    parser.add_argument("--repeat", type=int, default=20, help="calls per latency median")
    parser.add_argument("--pages-per-browser", type=int, default=4)
    args = parser.parse_args()

    load = os.getloadavg()
    print(f"Load average at the start: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} ({os.cpu_count()} cores)\n")

    here = MiniWobDevice()
    try:
        local = latency(here, args.repeat)
    finally:
        here.close()
    with _cdp_browser() as endpoint:
        there = RemoteMiniWobDevice(endpoint)
        try:
            remote = latency(there, args.repeat)
        finally:
            there.close()
    print("| call (click-button) | launched here | over CDP on 127.0.0.1 (pages served by interception) |")
    print("|---|---:|---:|")
    for name in local:
        print(f"| `{name}` | {local[name]:.1f} ms | {remote[name]:.1f} ms |")

    print("\n| pages | browsers | episodes/s | solved |")
    print("|---:|---:|---:|---|")
    runs = [(1, args.pages_per_browser), (4, args.pages_per_browser), (8, args.pages_per_browser), (8, 8)]
    for pages, per_browser in runs:
        rate, solved, played = throughput(pages, args.episodes, per_browser)
        browsers = -(-pages // per_browser)
        print(f"| {pages} | {browsers} | {rate:.2f} | {solved}/{played} |", flush=True)

    print("\n| pages open (one browser) | Chromium PSS | of it renderers | renderer processes |")
    print("|---:|---:|---:|---:|")
    rows = memory((1, 4, 8))
    for count, total, renderers, processes in rows:
        print(f"| {count} | {total:.0f} MB | {renderers:.0f} MB | {processes} |")
    (first, total1, _, _), (last, total8, _, _) = rows[0], rows[-1]
    print(f"\nEach page past the first adds {(total8 - total1) / (last - first):.0f} MB.")
    load = os.getloadavg()
    print(f"Load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


if __name__ == "__main__":
    main()
