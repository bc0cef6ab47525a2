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

``--structured on`` runs the sweeps with ``--llm-structured on`` (each answer with a form held to its shape; in
``eval-structured``, beside the free answers' ``eval``), ``--structured both`` runs both and adds the comparison
of issue 31 (docs/local-models.md): per method, success with 95% intervals, the unusable answers of the shaped
call kinds and the answers cut at the cap, off against on; per shaped call kind, the seconds per call and per
output token with and without its shape::

    python scripts/bench_real_model.py --structured both --out runs/real-model
    python scripts/bench_real_model.py --bench miniwob --structured both --out runs/real-miniwob --seeds 3
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


#: Where each ``--structured`` mode's sweeps go, after the sweep's own name (``eval``, ``eval-a11y``).
STRUCTURED_SUFFIX = {False: "", True: "-structured"}
#: ``--structured``'s values, as the modes each runs.
STRUCTURED_MODES = {"off": (False,), "on": (True,), "both": (False, True)}


def sweep(out: Path, memory: Path, demos: Path, methods: tuple[str, ...], max_steps: int, parallel: int,
          timeout: float, *, miniwob: bool = False, seeds: int = 3, max_output: int | None = None,
          observation: str = "a11y", name: str = "eval", structured: bool = False) -> Path:
    """The real model's sweep (resumed when it was started before)."""
    runs = out / (name + STRUCTURED_SUFFIX[structured])
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
    if structured:
        args += ["--llm-structured", "on"]
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


def _shaped_calls(runs: Path) -> dict[str, list[tuple[str, float, int, bool, bool]]]:
    """Per method, every call of a call kind that has a shape: (kind, seconds, output tokens, cut at the cap,
    unusable). A grounder records no parse error of its own: its answer is unusable when it reads as no action."""
    from latent_agent.agent.latent_state.cot_sc import CotScSelector
    from latent_agent.agent.latent_state.history_only import HistoryOnlyPolicy
    from latent_agent.agent.latent_state.policy import LatentStatePolicy
    from latent_agent.agent.latent_state.react import ReactSelector
    from latent_agent.agent.methods import get_method  # registers the built-in call kinds' shapes too
    from latent_agent.agent.trajectory import read_trajectory
    from latent_agent.benchmarks.results import ResultsLog, latest
    from latent_agent.errors import GroundingError
    from latent_agent.grounder.actions import parse_action
    from latent_agent.grounder.base import GROUND
    from latent_agent.shapes import shape_for
    from latent_agent.surfaces import PHONE

    def unreadable_action(text: str) -> bool:
        try:
            parse_action(text)
        except GroundingError:
            return True
        return False

    out: dict[str, list[tuple[str, float, int, bool, bool]]] = defaultdict(list)
    for record in latest(ResultsLog(runs).load()).values():
        if not record.trajectory:
            continue
        trajectory = read_trajectory(runs / record.trajectory)
        calls = [*trajectory.header.setup_calls, *(c for s in trajectory.steps for c in s.calls),
                 *(c for t in trajectory.trials for c in t.calls), *(trajectory.end.calls if trajectory.end else ())]
        # CoT-SC's and ReAct's select calls send their own shapes (their purpose's is free, as zero-shot's).
        policy = get_method(record.method).policy
        own = isinstance(policy, LatentStatePolicy | HistoryOnlyPolicy) and isinstance(
            policy.selector, CotScSelector | ReactSelector)
        for call in calls:
            if shape_for(call.purpose, PHONE) is None and not (own and call.purpose == "select"):
                continue
            grounded = call.purpose == GROUND
            bad = bool(call.parse_error) or (grounded and any(map(unreadable_action, call.outputs)))
            out[record.method].append((call.purpose, call.latency_s, call.output_tokens, call.truncated,
                                       bad and not call.truncated))
    return out


def compare(off: Path, on: Path) -> str:
    """Issue 31's comparison of two finished sweeps, free answers (``off``) against shaped ones (``on``)."""
    from latent_agent.benchmarks.results import ResultsLog, latest

    def successes(runs: Path) -> dict[str, list[bool]]:
        found: dict[str, list[bool]] = defaultdict(list)
        for record in latest(ResultsLog(runs).load()).values():
            found[record.method].append(bool(record.success))
        return found

    def unusable(calls: list[tuple[str, float, int, bool, bool]]) -> str:
        total: Counter[str] = Counter(c[0] for c in calls)
        bad: Counter[str] = Counter(c[0] for c in calls if c[4])
        return ", ".join(f"{kind} {bad[kind]}/{n}" for kind, n in total.most_common()) or "-"

    won, woff = successes(on), successes(off)
    con, coff = _shaped_calls(on), _shaped_calls(off)
    lines = ["| method | success off [95%] | success on [95%] | unusable shaped answers off | on "
             "| cut at the cap off | on |", "|---|---|---|---|---|---|---|"]
    for method in dict.fromkeys([*woff, *won]):
        a, b = coff.get(method, []), con.get(method, [])
        lines.append(f"| {method} | {_rate(sum(woff[method]), len(woff[method]))} "
                     f"| {_rate(sum(won[method]), len(won[method]))} | {unusable(a)} | {unusable(b)} "
                     f"| {sum(c[3] for c in a)} of {len(a)} | {sum(c[3] for c in b)} of {len(b)} |")
    lines += ["", "| shaped call kind | calls off | s per call off (median) | s per output token off "
              "| calls on | s per call on (median) | s per output token on |", "|---|---|---|---|---|---|---|"]
    by_kind_off: dict[str, list[tuple[float, int]]] = defaultdict(list)
    by_kind_on: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for calls, by_kind in ((coff, by_kind_off), (con, by_kind_on)):
        for rows in calls.values():
            for kind, seconds, tokens, _, _ in rows:
                by_kind[kind].append((seconds, tokens))

    def timing(rows: list[tuple[float, int]]) -> str:
        if not rows:
            return "0 | - | -"
        per_token = sum(s for s, _ in rows) / max(1, sum(t for _, t in rows))
        return f"{len(rows)} | {statistics.median(s for s, _ in rows):.1f} | {per_token:.2f}"

    for kind in dict.fromkeys([*by_kind_off, *by_kind_on]):
        lines.append(f"| {kind} | {timing(by_kind_off[kind])} | {timing(by_kind_on[kind])} |")
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
    parser.add_argument("--structured", choices=tuple(STRUCTURED_MODES), default="off",
                        help="answers held to their shapes (--llm-structured on), free (off, the default), or both "
                             "compared")
    args = parser.parse_args()
    modes = STRUCTURED_MODES[args.structured]
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
            for structured in modes:
                for source, names in by_source.items():
                    sweep(out, memory, demos, tuple(names), max_steps, args.parallel, args.llm_timeout, miniwob=True,
                          seeds=args.seeds, max_output=args.llm_max_output, observation=source,
                          name=f"eval-{source}", structured=structured)
    elif not args.summary_only:
        memory, demos = prepare(out)
        for structured in modes:
            runs = sweep(out, memory, demos, methods, max_steps, args.parallel, args.llm_timeout,
                         max_output=args.llm_max_output, structured=structured)
    if not miniwob:
        runs = out / ("eval" + STRUCTURED_SUFFIX[modes[-1]])
    if miniwob:
        print("## A real model on MiniWoB++: Qwen2.5-Coder-0.5B-Instruct on the easy tasks\n")
        cap = f" --llm-max-output {args.llm_max_output}" if args.llm_max_output else ""
        print(f"Measured by `python scripts/bench_real_model.py --bench miniwob --seeds {args.seeds} "
              f"--max-steps {max_steps}{cap}` ({platform.machine()}, {os.cpu_count()} cores, Python "
              f"{platform.python_version()}): `{MODEL}` (Q4 GGUF, llama.cpp on the CPU, {args.parallel} slots), "
              f"the tasks {', '.join(MINIWOB_TASKS)} on their first {args.seeds} test seeds, judged by each "
              "page's own reward; CAAP sees the screenshot alone (the screen observer), the others the page's "
              "tree or their paper's page format. These are a real 0.5B model's figures, not the stand-in's.\n")
        for structured in modes:
            if len(modes) > 1:
                print(f"### Answers {'held to their shapes (--llm-structured on)' if structured else 'free'}\n")
            print("\n\n".join(summarise(out / f"eval-{source}{STRUCTURED_SUFFIX[structured]}") for source in by_source
                               if (out / f"eval-{source}{STRUCTURED_SUFFIX[structured]}" / "results.jsonl").exists()))
            print()
        if len(modes) > 1:
            print("### Free answers against answers held to their shapes\n")
            print("\n\n".join(compare(out / f"eval-{source}", out / f"eval-{source}-structured") for source in by_source
                               if (out / f"eval-{source}-structured" / "results.jsonl").exists()))
        return 0
    print("## A real model: Qwen2.5-Coder-0.5B-Instruct on ten sim tasks\n")
    print(f"Measured by `python scripts/bench_real_model.py` ({platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}): `{MODEL}` (Q4 GGUF, llama.cpp on the CPU, "
          f"{args.parallel} slots), the sim suite's tasks {', '.join(TASKS)}; "
          f"`--max-steps {max_steps}`, one episode per task and method. Success is the task's automatic "
          "check. These are a real 0.5B model's figures, not the stand-in's.\n")
    if len(modes) > 1:
        for structured in modes:
            print(f"### Answers {'held to their shapes (--llm-structured on)' if structured else 'free'}\n")
            print(summarise(out / ("eval" + STRUCTURED_SUFFIX[structured])) + "\n")
        print("### Free answers against answers held to their shapes\n")
        print(compare(out / "eval", out / "eval-structured"))
        return 0
    print(summarise(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
