#!/usr/bin/env python3
"""Measure ``sweep --executor ray`` against the local executor on this machine (docs/performance.md, "Sweeps on
Ray").

Three measurements, each a real ``latent-agent sweep`` run in this process (the driver), printed as markdown:

1. Overhead: the same sweep (``--llm demo``; a sim slice, then a MiniWoB++ slice) with the local executor and
   with a Ray the sweep starts on this machine. Per run: wall time, the time to the first result (Ray's start,
   the actors' start and one episode), seconds per episode after the first result, and the driver's CPU time
   per episode (``getrusage`` of this process, which on Ray runs no episode: it submits, unpacks and records).
2. Scaling: a ``ray.cluster_utils.Cluster`` on this machine, each simulated node offering two phones, with 1,
   2 and 3 nodes; the demo answers after a simulated delay per call (``demo@SECONDS``), so an episode waits as
   it would on a remote LLM. Nodes simulated on one machine share its cores: this shows the executor, not
   more hardware.
3. Bytes moved per episode: the files of the episodes the Ray runs sent back (what the object store carried,
   besides a record of about a kilobyte).

Run from the repository root with the ray and miniwob extras: ``python scripts/bench_ray_sweep.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from latent_agent.benchmarks.ray_cluster import ray_environment  # noqa: E402  # before Ray is imported

ray_environment(None)

from latent_agent.benchmarks.results import ResultsLog  # noqa: E402
from latent_agent.cli.main import main  # noqa: E402

SIM = ("--suite", "sim", "--methods", "zero-shot-", "--llm", "demo", "--devices", "sim*2")
MINIWOB = ("--suite", "miniwob", "--split", "train", "--tasks", "click-button,enter-text,click-checkboxes",
           "--seeds", "3", "--methods", "zero-shot-", "--llm", "demo", "--devices", "miniwob*2", "--max-steps", "6")


@dataclass(frozen=True)
class Run:
    """One sweep as measured."""

    label: str
    episodes: int
    wall_s: float
    first_s: float
    per_episode_s: float
    driver_cpu_ms: float
    bytes_per_episode: float
    load: tuple[float, float]

    def row(self) -> str:
        return (f"| {self.label} | {self.episodes} | {self.wall_s:.1f} | {self.first_s:.1f} | "
                f"{self.per_episode_s:.3f} | {self.driver_cpu_ms:.0f} | {self.bytes_per_episode / 1000:.0f} | "
                f"{self.load[0]:.1f} / {self.load[1]:.1f} |")


def sweep(out: Path, label: str, *argv: str) -> Run:
    """Run one sweep into ``out``; what it took."""
    load = os.getloadavg()[0]
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    started = time.time()
    with contextlib.redirect_stdout(io.StringIO()):  # the sweep's own summary; the table says what it took
        code = main(["sweep", *argv, "--out", str(out), "--no-progress"])
    wall = time.time() - started
    used = resource.getrusage(resource.RUSAGE_SELF)
    if code != 0:
        raise SystemExit(f"{label}: the sweep exited with {code}")
    records = sorted(ResultsLog(out).load(), key=lambda r: r.finished_at)
    first, last = records[0].finished_at, records[-1].finished_at
    files = [p for p in (out / "episodes").rglob("*") if p.is_file()]
    return Run(label, len(records), wall, first - started, (last - first) / max(len(records) - 1, 1),
               ((used.ru_utime + used.ru_stime) - (cpu.ru_utime + cpu.ru_stime)) * 1000 / len(records),
               sum(p.stat().st_size for p in files) / len(records), (load, os.getloadavg()[0]))


def overhead(work: Path, miniwob: bool) -> list[Run]:
    runs = [sweep(work / "sim-local", "sim, local", *SIM), sweep(work / "sim-ray", "sim, ray", *SIM, "--executor",
                                                                  "ray")]
    if miniwob:
        runs += [sweep(work / "mw-local", "MiniWoB++, local", *MINIWOB),
                 sweep(work / "mw-ray", "MiniWoB++, ray", *MINIWOB, "--executor", "ray")]
    return runs


def scaling(work: Path, nodes: int, delay: float, tasks: str) -> list[Run]:
    from ray.cluster_utils import Cluster

    cluster: Any = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    runs = []
    try:
        for n in range(1, nodes + 1):
            cluster.add_node(num_cpus=1, resources={"sim": 2})
            argv = ("--suite", "sim", "--tasks", tasks, "--methods", "zero-shot-", "--llm", f"demo@{delay}",
                    "--devices", f"sim*{2 * n}", "--no-screenshots")
            runs.append(sweep(work / f"nodes-{n}", f"{n} node(s), {2 * n} phones, ray", *argv, "--executor", "ray",
                              "--ray-address", cluster.address))
            runs.append(sweep(work / f"local-{n}", f"{2 * n} phones, local", *argv))
    finally:
        cluster.shutdown()
    return runs


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=3, help="simulated nodes at most (default 3)")
    parser.add_argument("--delay", type=float, default=0.3, help="the demo's simulated seconds per call")
    parser.add_argument("--tasks", default="clock_*,settings_*", help="the sim tasks of the scaling runs")
    parser.add_argument("--no-miniwob", action="store_true", help="leave out the MiniWoB++ runs")
    args = parser.parse_args()
    print(f"# {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print("| sweep | episodes | wall s | first result s | s / episode after it | driver CPU ms / episode | "
          "KB / episode | load before / after |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        for run in overhead(Path(tmp), not args.no_miniwob):
            print(run.row(), flush=True)
        for run in scaling(Path(tmp), args.nodes, args.delay, args.tasks):
            print(run.row(), flush=True)


if __name__ == "__main__":
    main_()
