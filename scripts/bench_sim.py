#!/usr/bin/env python3
"""Benchmark the simulated phone: a step (action + new dump) and a screenshot.

Replays every reference solution of the sim task suite. Resolving a step to
its action (finding the element it names) is done outside the timer; the
timer covers the device call plus ``hierarchy()`` (build the screen, write
the XML, parse it), which is what an agent pays per step. Screenshots are timed on every screen reached.
Prints a markdown section for docs/performance.md. Run from the repository
root: ``python scripts/bench_sim.py``.
"""

from __future__ import annotations

import platform
import statistics
import time

from latent_agent.accessibility.clean import clean_tree
from latent_agent.agent.execute import execute
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.steps import ScrollToStep, Step, perform, resolve
from latent_agent.device.sim.device import SimDevice


def timed_step(device: SimDevice, step: Step) -> float:
    """Seconds for the step's device call plus a fresh dump."""
    if isinstance(step, ScrollToStep):
        # scroll_to may take several swipes, each with its own look: timed whole.
        t0 = time.perf_counter()
        perform(device, step)
    else:
        tree = clean_tree(device.hierarchy().tree)
        action = resolve(step, tree)
        t0 = time.perf_counter()
        execute(action, device, tree)
    device.hierarchy()
    return time.perf_counter() - t0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    tasks = load_suite()
    steps: list[float] = []
    shots: list[float] = []
    sizes: list[int] = []
    nodes: list[int] = []
    for _ in range(3):
        for task in tasks:
            device = SimDevice(seed=1)
            device.screenshot()  # font loading happens once per process
            for step in task.solution:
                steps.append(timed_step(device, step))
                nodes.append(device.hierarchy().tree.node_count)
                t0 = time.perf_counter()
                png = device.screenshot()
                shots.append(time.perf_counter() - t0)
                sizes.append(len(png))
            assert task.succeeded(device.state), task.id
    ms = 1000.0
    print("## Simulated phone\n")
    print(f"Measured by `python scripts/bench_sim.py` ({platform.python_implementation()} "
          f"{platform.python_version()}, {platform.machine()}): every reference solution of the "
          f"{len(tasks)}-task sim suite replayed 3 times, {len(steps)} steps.\n")
    print("| what | median | p90 | max | target |")
    print("|---|---|---|---|---|")
    step_ms = [statistics.median(steps) * ms, pct(steps, 0.9) * ms, max(steps) * ms]
    shot_ms = [statistics.median(shots) * ms, pct(shots, 0.9) * ms, max(shots) * ms]
    print("| step: action + new dump (build screen, write XML, parse) | "
          + " | ".join(f"{v:.2f} ms" for v in step_ms) + " | <= 5 ms median |")
    print("| screenshot (1080x2400 PNG) | " + " | ".join(f"{v:.1f} ms" for v in shot_ms) + " | <= 50 ms |")
    print(f"\nNodes per dump: median {statistics.median(nodes):.0f}, max {max(nodes)}; "
          f"PNG size median {statistics.median(sizes) / 1024:.0f} KiB.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
