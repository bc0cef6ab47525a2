#!/usr/bin/env python3
"""Figures with a real model on ten sim tasks or the easy MiniWoB++ tasks, through ``--llm llamacpp:...``.

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

``--bench miniwob`` runs the same model on MiniWoB++'s easy tasks (click-button, click-link, click-dialog,
focus-text, enter-text) on their first test seeds, for the six latent-state agents and the three related
methods (structured reflection under the paper's oracle feedback at T=1, Synapse's exemplar memory and CAAP,
each as published on web pages), judged by each page's own reward; the memory and the demonstrations come
from the suite's train seeds (3000-3999), played by the stand-in.

It prints a Markdown section (docs/performance.md for sim, docs/miniwob.md for MiniWoB++): success with a
95% interval under both criteria (raw reward 1.0, ours; reward > 0, as the papers' code counted), calls and
seconds per episode, and the answers each call kind could not use. Interrupted, it continues where it stopped
(the sweep resumes). Run from the repository root::

    python scripts/bench_real_model.py --out runs/real-model [--max-steps 5] [--methods ...]
    python scripts/bench_real_model.py --bench miniwob --out runs/real-miniwob [--seeds 3] [--max-steps 4]
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
#: MiniWoB++'s easy tasks (one screen, one to three actions), on which the 0.5B model has a chance.
MINIWOB_TASKS = ("click-button", "click-link", "click-dialog", "focus-text", "enter-text")
#: The six latent-state agents and the three related methods as published on MiniWoB++ (structured
#: reflection under the paper's oracle feedback, one trial: T=1 is its first table's column).
MINIWOB_METHODS = ("zero-shot-", "zero-shot+", "cot-sc-", "cot-sc+", "react-", "react+", "reflection-check-t1",
                   "exemplars", "caap")
#: The MiniWoB++ tasks the stand-in plays on the train seeds, for the memory and the demonstrations.
MINIWOB_TRAIN = ("click-button", "click-checkboxes", "enter-text")
#: Who plays the train seeds: the exemplar method (its memory holds only its own commands) and structured
#: reflection (CAAP's demonstrations are written from any method's successful episodes).
MINIWOB_TRAIN_METHODS = ("exemplars", "reflection-t1")


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


def prepare_miniwob(out: Path, parallel: int) -> tuple[Path, Path]:
    """The exemplar memory and the CAAP demonstrations from MiniWoB++'s train seeds (built once)."""
    train, memory, demos = out / "train", out / "memory", out / "demos"
    if not (train / "results.jsonl").exists():
        cli("sweep", "--suite", "miniwob", "--split", "train", "--tasks", ",".join(MINIWOB_TRAIN), "--seeds", "3",
            "--methods", ",".join(MINIWOB_TRAIN_METHODS), "--devices", f"miniwob*{parallel}", "--llm", "demo",
            "--out", str(train), "--no-progress", "--no-preflight")
    if not (memory / "manifest.json").exists():
        cli("memory", "build", str(train), "--out", str(memory))
    if not (demos / "demos.json").exists():
        cli("demos", "build", "--from", str(train), "--llm", "demo", "--out", str(demos))
    return memory, demos


def sweep(out: Path, memory: Path, demos: Path, methods: tuple[str, ...], max_steps: int, parallel: int,
          timeout: float, *, miniwob: bool = False, seeds: int = 3, max_output: int | None = None,
          observation: str = "a11y", name: str = "eval") -> Path:
    """The real model's sweep (resumed when it was started before)."""
    runs = out / name
    where = (["--suite", "miniwob", "--tasks", ",".join(MINIWOB_TASKS), "--seeds", str(seeds),
              "--devices", f"miniwob*{parallel}"] if miniwob
             else ["--suite", "sim", "--tasks", ",".join(TASKS), "--devices", f"sim*{parallel}"])
    args = ["sweep", *where, "--methods", ",".join(methods), "--llm", MODEL, "--llm-parallel", str(parallel),
            "--llm-timeout", str(timeout), "--max-steps", str(max_steps), "--out", str(runs), "--no-progress",
            "--max-consecutive-errors", "0"]
    if max_output is not None:
        args += ["--llm-max-output", str(max_output)]
    if observation != "a11y":
        args += ["--observation", observation]
    # A sweep refuses a resource that none of its methods reads.
    if any(m.startswith("exemplars") for m in methods):
        args += ["--memory", str(memory)]
    if any(m.startswith("caap") for m in methods):
        args += ["--demos", str(demos)]
    if (runs / "manifest.json").exists():
        args.append("--resume")
    cli(*args)
    return runs


def _rate(successes: int, n: int) -> str:
    """``k/n (p% [low-high])``: a success rate with its 95% Wilson interval."""
    from latent_agent.benchmarks.report_papers import wilson

    if n == 0:
        return "-"
    low, high = wilson(successes, n)
    return f"{successes}/{n} ({100 * successes / n:.0f}% [{100 * low:.0f}-{100 * high:.0f}])"


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
        if record.raw_reward is not None:
            row["reward>0"].append(1.0 if record.raw_reward > 0 else 0.0)
        row["steps"].append(record.steps)
        row["calls"].append(record.llm_calls)
        row["seconds"].append(record.duration_s)
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

    rewarded = any(row["reward>0"] for row in rows.values())
    lines = ["| method | episodes | success [95% interval] " + ("| reward > 0 [95% interval] " if rewarded else "")
             + "| steps (mean) | LLM calls / episode | s per episode (mean) | s per call (median / p90) "
             "| answers cut at the cap | unusable answers by call kind | goal rewrite refused | stops |",
             "|---|---|---|" + ("---|" if rewarded else "") + "---|---|---|---|---|---|---|---|"]
    for method, row in rows.items():
        n = len(row["success"])
        latency = sorted(row["latency"]) or [0.0]
        p90 = latency[min(len(latency) - 1, int(0.9 * len(latency)))]
        bad = ", ".join(f"{k} {v}/{kinds[method][k]}" for k, v in unparsable[method].most_common()) or "none"
        stop = ", ".join(f"{k} {v}" for k, v in stops[method].most_common())
        positive = f"| {_rate(int(sum(row['reward>0'])), len(row['reward>0']))} " if rewarded else ""
        lines.append(
            f"| {method} | {n} | {_rate(int(sum(row['success'])), n)} {positive}"
            f"| {statistics.mean(row['steps']):.1f} | {statistics.mean(row['calls']):.1f} "
            f"| {statistics.mean(row['seconds']):.0f} | {statistics.median(latency):.1f} / {p90:.1f} "
            f"| {len(row['cut'])} of {len(row['latency'])} | {bad} | {goals_refused[method]}/{n} | {stop} |")
    return "\n".join(lines)


def main() -> int:
    from latent_agent.agent.methods import get_method
    from latent_agent.surfaces import WEB_PAGE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", choices=("sim", "miniwob"), default="sim",
                        help="ten sim tasks (default) or MiniWoB++'s easy tasks")
    parser.add_argument("--out", type=Path, default=None, help="default runs/real-model or runs/real-miniwob")
    parser.add_argument("--methods", default=None, help="default: one of each family (sim), or the nine (miniwob)")
    parser.add_argument("--max-steps", type=int, default=None, help="default 5 (sim), 4 (miniwob)")
    parser.add_argument("--seeds", type=int, default=3, help="MiniWoB++ test seeds per task and method")
    parser.add_argument("--llm-max-output", type=int, default=None, help="lower every call's output cap")
    parser.add_argument("--parallel", type=int, default=2, help="devices and llama.cpp slots")
    parser.add_argument("--llm-timeout", type=float, default=180.0)
    parser.add_argument("--summary-only", action="store_true", help="summarise a finished sweep in --out")
    args = parser.parse_args()
    miniwob = args.bench == "miniwob"
    out = args.out or Path("runs/real-miniwob" if miniwob else "runs/real-model")
    methods = tuple(args.methods.split(",")) if args.methods else (MINIWOB_METHODS if miniwob else METHODS)
    max_steps = args.max_steps or (4 if miniwob else 5)
    runs = out / "eval"
    if miniwob:
        # Each method sees the page as its paper did (CAAP the screenshot alone); a sweep has one source for
        # every method, so the methods whose source differs run in a sweep of their own.
        by_source: dict[str, list[str]] = defaultdict(list)
        for name in methods:
            by_source[get_method(name).default_observation(WEB_PAGE)].append(name)
        if not args.summary_only:
            memory, demos = prepare_miniwob(out, args.parallel)
            for source, names in by_source.items():
                sweep(out, memory, demos, tuple(names), max_steps, args.parallel, args.llm_timeout, miniwob=True,
                      seeds=args.seeds, max_output=args.llm_max_output, observation=source, name=f"eval-{source}")
    elif not args.summary_only:
        memory, demos = prepare(out)
        runs = sweep(out, memory, demos, methods, max_steps, args.parallel, args.llm_timeout,
                     max_output=args.llm_max_output)
    if miniwob:
        print("## A real model on MiniWoB++: Qwen2.5-Coder-0.5B-Instruct on the easy tasks\n")
        cap = f", `--llm-max-output {args.llm_max_output}`" if args.llm_max_output else ""
        print(f"Measured by `python scripts/bench_real_model.py --bench miniwob --seeds {args.seeds} "
              f"--max-steps {max_steps}{cap}` ({platform.machine()}, {os.cpu_count()} cores, Python "
              f"{platform.python_version()}): `{MODEL}` (Q4 GGUF, llama.cpp on the CPU, {args.parallel} slots), "
              f"the tasks {', '.join(MINIWOB_TASKS)} on their first {args.seeds} test seeds, judged by each "
              "page's own reward; CAAP sees the screenshot alone (the screen observer), the others the page's "
              "tree or their paper's page format. These are a real 0.5B model's figures, not the stand-in's.\n")
        print("\n\n".join(summarise(out / f"eval-{source}") for source in by_source
                           if (out / f"eval-{source}" / "results.jsonl").exists()))
        return 0
    print("## A real model: Qwen2.5-Coder-0.5B-Instruct on ten sim tasks\n")
    print(f"Measured by `python scripts/bench_real_model.py` ({platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}): `{MODEL}` (Q4 GGUF, llama.cpp on the CPU, "
          f"{args.parallel} slots), the sim suite's tasks {', '.join(TASKS)}; "
          f"`--max-steps {max_steps}`, one episode per task and method. Success is the task's automatic "
          "check. These are a real 0.5B model's figures, not the stand-in's.\n")
    print(summarise(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
