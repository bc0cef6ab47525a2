"""Sweep throughput: episodes/hour on 4 simulated phones against 1, with an LLM that answers after a fixed delay.

The agent runs for real (``latent_agent.agent.episode``) against the demo oracle behind the
local Gemini stand-in, reached through google-genai; the stand-in adds a fixed
latency to every answer, as a remote model would. The same plan (a subset of
the sim suite x the six methods) is swept once on ``sim`` and once on
``sim*4``, each in a fresh directory; the ratio of episodes/hour is the figure.

    python scripts/bench_sweep.py [--delay 0.25] [--every 4] [--devices 4]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def sweep_once(out: Path, devices: str, delay: float, every: int, screenshots: bool) -> tuple[int, float]:
    from latent_agent.agent.methods import METHODS
    from latent_agent.benchmarks.plan import SweepPlan
    from latent_agent.benchmarks.pool import parse_devices
    from latent_agent.benchmarks.results import ResultsLog
    from latent_agent.benchmarks.suite import load_named_suite
    from latent_agent.benchmarks.sweep import SweepOptions, run_sweep
    from latent_agent.demo.client import demo_client

    suite = load_named_suite("sim")
    tasks = [(t.id, t.goal) for t in suite.tasks[::every]]
    plan = SweepPlan.build("sim", tasks, tuple(METHODS), 1, "demo")
    summary = run_sweep(out, suite, plan, parse_devices(devices), client_factory=lambda: demo_client(delay_s=delay),
                        options=SweepOptions(progress=False, screenshots=screenshots))
    records = ResultsLog(out).load()
    assert len(records) == len(plan.episodes) == summary.ran, "a sweep lost episodes"
    return summary.ran, summary.elapsed_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", type=float, default=0.25, help="stand-in latency per LLM answer (s)")
    parser.add_argument("--every", type=int, default=4, help="take every N-th task of the sim suite")
    parser.add_argument("--devices", type=int, default=4, help="pool size to compare with one device")
    parser.add_argument("--no-screenshots", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = {}
        for n in (1, args.devices):
            ran, elapsed = sweep_once(Path(tmp) / f"pool{n}", "sim" if n == 1 else f"sim*{n}", args.delay,
                                      args.every, not args.no_screenshots)
            figures[n] = ran / elapsed * 3600
            print(f"{n} device(s): {ran} episodes in {elapsed:.1f} s = {figures[n]:.0f} episodes/hour")
        print(f"speed-up with {args.devices} devices: {figures[args.devices] / figures[1]:.2f}x "
              f"(LLM delay {args.delay} s per answer)")


if __name__ == "__main__":
    main()
