#!/usr/bin/env python3
"""Figures with a real model: one method of each family on ten sim tasks, through ``--llm llamacpp:...``.

This measures a real language model, not the scripted stand-in: Qwen2.5-Coder-0.5B-Instruct (the
packaged GGUF, ``llamacpp:qwen2.5-coder-0.5b``) served by llama.cpp on this machine's CPU. It runs
the project's own commands, as a user would:

1. the exemplar memory and the CAAP demonstrations are built from the training split with the demo
   stand-in (``--llm demo`` plays the reference solutions; the model under test never sees its own
   evaluation tasks), so ``exemplars`` and ``caap`` run as they are meant to;
2. ``latent-agent sweep`` over ten short evaluation and held-out tasks of the sim suite (the suite's
   ten with the shortest reference solutions: two or three steps), one method of each family;
3. every trajectory is read back and summarised per method: success (the task's automatic check),
   steps, calls, calls whose answer the method could not use (per call kind), answers cut at their
   output cap, and seconds per call.

It prints a Markdown section for docs/performance.md. Interrupted, it continues where it stopped
(the sweep resumes). Run from the repository root::

    python scripts/bench_real_model.py --out runs/real-model [--max-steps 5] [--methods ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

#: The sim suite's evaluation and held-out tasks with the shortest reference solutions (2-3 steps).
TASKS = (
    "qs_dnd_on", "clock_alarm_enable", "chrome_weather", "settings_battery_percentage",
    "settings_android_version", "clock_alarm_delete", "clock_bedtime_on", "chrome_refresh",
    "store_install_whatsapp", "calendar_delete_meeting",
)
#: One method of each family: the core method's three selectors with the latent state, and the three
#: related methods.
METHODS = ("zero-shot+", "cot-sc+", "react+", "reflection", "exemplars", "caap")
MODEL = "llamacpp:qwen2.5-coder-0.5b"


def cli(*args: str) -> None:
    """Run ``latent-agent ARGS`` with this interpreter, failing loudly."""
    command = [sys.executable, "-m", "latent_agent.cli", *args]
    print("$ latent-agent " + " ".join(args), file=sys.stderr, flush=True)
    subprocess.run(command, check=True)


def prepare(out: Path) -> tuple[Path, Path]:
    """The exemplar memory and the CAAP demonstrations, from the training split (built once)."""
    train, memory, demos = out / "train", out / "memory", out / "demos"
    if not (train / "results.jsonl").exists():
        cli("sweep", "--suite", "sim", "--split", "train", "--methods", "zero-shot+", "--devices", "sim",
            "--llm", "demo", "--out", str(train), "--no-progress", "--no-preflight")
    if not (memory / "manifest.json").exists():
        cli("memory", "build", str(train), "--out", str(memory))
    if not (demos / "demos.json").exists():
        cli("demos", "build", "--suite", "sim", "--llm", "demo", "--out", str(demos))
    return memory, demos


def sweep(out: Path, memory: Path, demos: Path, methods: tuple[str, ...], max_steps: int, parallel: int,
          timeout: float) -> Path:
    """The real model's sweep (resumed when it was started before)."""
    runs = out / "eval"
    args = ["sweep", "--suite", "sim", "--tasks", ",".join(TASKS), "--methods", ",".join(methods),
            "--devices", f"sim*{parallel}", "--llm", MODEL, "--llm-parallel", str(parallel),
            "--llm-timeout", str(timeout), "--max-steps", str(max_steps), "--out", str(runs), "--no-progress",
            "--max-consecutive-errors", "0"]
    # A sweep refuses a resource that none of its methods reads.
    if any(m.startswith("exemplars") for m in methods):
        args += ["--memory", str(memory)]
    if any(m.startswith("caap") for m in methods):
        args += ["--demos", str(demos)]
    if (runs / "manifest.json").exists():
        args.append("--resume")
    cli(*args)
    return runs


def summarise(runs: Path) -> str:
    """The Markdown table of one finished sweep."""
    from latent_agent.agent.trajectory import LLMCall, read_trajectory
    from latent_agent.benchmarks.results import ResultsLog, latest

    records = latest(ResultsLog(runs).load()).values()
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    unparsable: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    stops: dict[str, Counter[str]] = defaultdict(Counter)
    goals_refused: Counter[str] = Counter()
    for record in records:
        row = rows[record.method]
        row["success"].append(1.0 if record.success else 0.0)
        row["steps"].append(record.steps)
        row["calls"].append(record.llm_calls)
        stops[record.method][str(record.stop_reason or record.status)] += 1
        if not record.trajectory:
            continue
        trajectory = read_trajectory(runs / record.trajectory)
        if trajectory.header.goal_rejected:
            goals_refused[record.method] += 1
        calls: list[LLMCall] = [*trajectory.header.setup_calls]
        for step in trajectory.steps:
            calls.extend(step.calls)
        for trial in trajectory.trials:
            calls.extend(trial.calls)
        if trajectory.end is not None:
            calls.extend(trajectory.end.calls)
        for call in calls:
            kinds[record.method][call.purpose] += 1
            row["latency"].append(call.latency_s)
            if call.truncated:
                row["cut"].append(1.0)
            if call.parse_error:
                unparsable[record.method][call.purpose] += 1

    lines = ["| method | episodes | success | steps (mean) | LLM calls / episode | s per call (median / p90) "
             "| answers cut at the cap | unusable answers by call kind | goal rewrite refused | stops |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for method, row in rows.items():
        n = len(row["success"])
        latency = sorted(row["latency"]) or [0.0]
        p90 = latency[min(len(latency) - 1, int(0.9 * len(latency)))]
        bad = ", ".join(f"{k} {v}/{kinds[method][k]}" for k, v in unparsable[method].most_common()) or "none"
        stop = ", ".join(f"{k} {v}" for k, v in stops[method].most_common())
        lines.append(
            f"| {method} | {n} | {int(sum(row['success']))}/{n} | {statistics.mean(row['steps']):.1f} "
            f"| {statistics.mean(row['calls']):.1f} | {statistics.median(latency):.1f} / {p90:.1f} "
            f"| {len(row['cut'])} of {len(row['latency'])} | {bad} | {goals_refused[method]}/{n} | {stop} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/real-model"))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--max-steps", type=int, default=5)
    parser.add_argument("--parallel", type=int, default=2, help="devices and llama.cpp slots")
    parser.add_argument("--llm-timeout", type=float, default=180.0)
    parser.add_argument("--summary-only", action="store_true", help="summarise a finished sweep in --out")
    args = parser.parse_args()
    runs = args.out / "eval"
    if not args.summary_only:
        memory, demos = prepare(args.out)
        runs = sweep(args.out, memory, demos, tuple(args.methods.split(",")), args.max_steps, args.parallel,
                     args.llm_timeout)
    print("## A real model: Qwen2.5-Coder-0.5B-Instruct on ten sim tasks\n")
    print(f"Measured by `python scripts/bench_real_model.py` ({platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}): `{MODEL}` (Q4 GGUF, llama.cpp on the CPU, "
          f"{args.parallel} slots), the sim suite's tasks {', '.join(TASKS)}; "
          f"`--max-steps {args.max_steps}`, one episode per task and method. Success is the task's automatic "
          "check. These are a real 0.5B model's figures, not the stand-in's.\n")
    print(summarise(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
