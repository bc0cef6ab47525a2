#!/usr/bin/env python3
"""Measure what an episode of each method costs in calls and tokens, for ``sweep --dry-run``.

Runs every method over the whole sim suite with the demo stand-in (``--llm demo``), with an exemplar
memory and CAAP demonstrations built first the way docs/performance.md builds them (so ``exemplars`` and
``caap`` show what they read), then writes ``benchmarks/cost_figures.json``: per method, steps per
episode, LLM calls per step and prompt and output tokens per call, with what they are based on. Prints a
markdown table for docs/performance.md.

Run from the repository root with the project installed: ``python scripts/bench_sweep_cost.py``
(about five minutes on one core). ``--from SWEEP`` reads the results of a sweep already run instead,
and then ``--source`` must say how it was run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "benchmarks" / "cost_figures.json"
CLI = [sys.executable, "-m", "latent_agent.cli"]
SWEEP_ARGS = ["--devices", "sim", "--llm", "demo", "--no-screenshots", "--no-progress"]


def _run(*args: str) -> None:
    subprocess.run([*CLI, *args], check=True, stdout=subprocess.DEVNULL)


def measure(work: Path) -> tuple[Path, str]:
    """Build a memory and demonstrations, then sweep every method over the sim suite; the sweep's folder."""
    _run("sweep", "--suite", "sim", "--split", "train", "--methods", "exemplars", *SWEEP_ARGS, "--out",
         str(work / "train"))
    _run("memory", "build", str(work / "train"), "--out", str(work / "memory"))
    _run("demos", "build", "--suite", "sim", "--llm", "demo", "--out", str(work / "demos"))
    _run("sweep", "--suite", "sim", "--methods", "all", *SWEEP_ARGS, "--memory", str(work / "memory"),
         "--demos", str(work / "demos"), "--out", str(work / "sweep"))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=False).stdout.strip() or "unknown"
    source = (f"latent-agent sweep --suite sim --methods all --devices sim --llm demo --memory M --demos D "
              f"(every sim task once per method; M from a train-split sweep of exemplars, D from demos build "
              f"--suite sim --llm demo), at commit {commit} on {dt.date.today().isoformat()}")
    return work / "sweep", source


def figures(sweep: Path, source: str) -> dict[str, object]:
    """Per-method figures from a sweep's ``results.jsonl`` (finished episodes only)."""
    rows: dict[str, list[dict[str, object]]] = defaultdict(list)
    with (sweep / "results.jsonl").open(encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if not line.strip():
                continue
            record = json.loads(line)
            if record.get("record") == "episode" and record.get("status") == "finished":
                rows[str(record["method"])].append(record)
    methods: dict[str, dict[str, float | int]] = {}
    for method, records in sorted(rows.items()):
        steps = sum(int(r["steps"]) for r in records)  # type: ignore[call-overload]
        calls = sum(int(r["llm_calls"]) for r in records)  # type: ignore[call-overload]
        prompt = sum(int(r["prompt_tokens"]) for r in records)  # type: ignore[call-overload]
        output = sum(int(r["output_tokens"]) for r in records)  # type: ignore[call-overload]
        methods[method] = {
            "episodes": len(records),
            "steps_per_episode": round(steps / len(records), 2),
            "calls_per_step": round(calls / max(steps, 1), 2),
            "prompt_tokens_per_call": round(prompt / max(calls, 1)),
            "output_tokens_per_call": round(output / max(calls, 1)),
            "success": round(statistics.fmean(bool(r["success"]) for r in records), 3),
        }
    return {
        "schema": "latent-agent/sweep-cost-figures",
        "version": 1,
        "source": source,
        "tokens": ("the demo stand-in's counts: a prompt's tokens are its characters / 4; its answers are short "
                   "and follow the reference solution, so a real model writes more output (its reasoning) and "
                   "may take more steps"),
        "methods": methods,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--from", dest="sweep", type=Path, help="a sweep already run (its results.jsonl)")
    parser.add_argument("--source", help="with --from: how that sweep was run (recorded in the figures)")
    parser.add_argument("--out", type=Path, default=FIGURES, help=f"figures file to write (default {FIGURES})")
    args = parser.parse_args(argv)
    if args.sweep is not None and not args.source:
        parser.error("--from needs --source (what the figures are based on)")
    with tempfile.TemporaryDirectory(prefix="bench-sweep-cost-") as tmp:
        sweep, source = (args.sweep, args.source) if args.sweep is not None else measure(Path(tmp))
        data = figures(sweep, source)
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"Measured by `python scripts/bench_sweep_cost.py`: {source}.\n")
    print("| method | episodes | steps / episode | LLM calls / step | prompt tokens / call | output tokens / call |")
    print("|---|---:|---:|---:|---:|---:|")
    for method, m in data["methods"].items():  # type: ignore[attr-defined]
        print(f"| `{method}` | {m['episodes']} | {m['steps_per_episode']} | {m['calls_per_step']} | "
              f"{m['prompt_tokens_per_call']:,} | {m['output_tokens_per_call']:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
