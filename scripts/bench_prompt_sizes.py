#!/usr/bin/env python3
"""The context window each method needs: its largest prompt, counted with the real model's tokenizer.

What a method sends grows with the episode (history, progression, trials, exemplars, demonstrations),
so the window a local server needs is set by the method's largest prompt plus the output cap of that
call. This measures it on the simulated phone:

1. the exemplar memory and the CAAP demonstrations are built from the training split with the demo
   stand-in (``latent-agent sweep --split train``, ``memory build``, ``demos build``);
2. ``latent-agent sweep --suite sim --split eval,heldout --methods all --llm demo`` runs every registered
   method on the suite's evaluation and held-out tasks. ``--llm demo`` is a scripted stand-in, not a
   model, but the prompts it is sent are each method's real prompts; its episodes are the competent
   path (a real model's episodes can run longer, with longer histories);
3. every call of every trajectory (setup, steps, trials, end) is read back; a call's whole input is
   its earlier turns (``messages``) plus its ``prompt``. Each distinct input is counted once with the
   tokenizer of the packaged real model (Qwen2.5-Coder-0.5B-Instruct): its llama.cpp server is started
   through the project's own helpers and asked ``/apply-template`` then ``/tokenize``, as the context
   window check does (``llm/context_window.py``). Without the model installed the count is the
   ``o200k`` estimate the project uses elsewhere, and the output says so.

Per method it prints the largest prompt and its call kind, the 95th percentile over calls, the largest
prompt plus output cap (the cap each call was sent with: its call kind's, latent_agent/purposes.py), the
context window that suffices (the next power of two), the calls and steps it is measured over, and the call kind
whose prompt grows fastest per step. Run from the repository root (a few minutes on two cores)::

    python scripts/bench_prompt_sizes.py [--out runs/prompt-sizes] [--summary-only]

Interrupted, it continues where it stopped (the sweeps resume).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Whose tokenizer counts the prompts when the packaged model is installed.
MODEL_LABEL = "Qwen2.5-Coder-0.5B-Instruct (the packaged GGUF), llama.cpp /apply-template + /tokenize"
FALLBACK_LABEL = "the o200k_base estimate with chat-template overhead (llm/context_window.py estimate_tokens)"


def cli(*args: str) -> None:
    """Run ``latent-agent ARGS`` with this interpreter, failing loudly."""
    print("$ latent-agent " + " ".join(args), file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "latent_agent.cli", *args], check=True)


def run_sweeps(out: Path, devices: int) -> Path:
    """The training sweep, memory and demonstrations, then every method on eval and held-out (resumed)."""
    train, memory, demos, runs = out / "train", out / "memory", out / "demos", out / "eval"
    if not (train / "results.jsonl").exists():
        cli("sweep", "--suite", "sim", "--split", "train", "--methods", "zero-shot+", "--devices", f"sim*{devices}",
            "--llm", "demo", "--out", str(train), "--no-progress", "--no-preflight")
    if not (memory / "manifest.json").exists():
        cli("memory", "build", str(train), "--out", str(memory))
    if not (demos / "demos.json").exists():
        cli("demos", "build", "--suite", "sim", "--llm", "demo", "--out", str(demos))
    args = ["sweep", "--suite", "sim", "--split", "eval,heldout", "--methods", "all", "--devices", f"sim*{devices}",
            "--llm", "demo", "--memory", str(memory), "--demos", str(demos), "--out", str(runs),
            "--no-preflight", "--no-progress"]
    if (runs / "manifest.json").exists():
        args.append("--resume")
    cli(*args)
    return runs


@dataclass(frozen=True, slots=True)
class Call:
    """One recorded call: its whole input, what it was for, its cap, and where in the episode it was."""

    method: str
    episode: str
    purpose: str
    chat: tuple[tuple[str, str], ...]
    cap: int
    step: int | None
    images: int


def calls_of(runs: Path) -> tuple[list[Call], dict[str, list[int]]]:
    """Every call of every finished episode of the sweep in ``runs``, and the steps of each method's episodes."""
    from latent_agent.agent.trajectory import LLMCall, read_trajectory
    from latent_agent.benchmarks.results import ResultsLog, latest
    from latent_agent.purposes import output_cap

    calls: list[Call] = []
    steps: dict[str, list[int]] = defaultdict(list)

    def add(method: str, episode: str, call: LLMCall, step: int | None) -> None:
        chat = (*((m.role, m.text) for m in call.messages), ("user", call.prompt))
        cap = call.max_output_tokens if call.max_output_tokens is not None else output_cap(call.purpose)
        images = len(call.images) + sum(len(m.images) for m in call.messages)
        calls.append(Call(method, episode, call.purpose, chat, cap, step, images))

    for record in latest(ResultsLog(runs).load()).values():
        if not record.trajectory:
            continue
        trajectory = read_trajectory(runs / record.trajectory)
        steps[record.method].append(len(trajectory.steps))
        for call in trajectory.header.setup_calls:
            add(record.method, record.key, call, None)
        for number, step in enumerate(trajectory.steps, start=1):
            for call in step.calls:
                add(record.method, record.key, call, number)
        for trial in trajectory.trials:
            for call in trial.calls:
                add(record.method, record.key, call, None)
        if trajectory.end is not None:
            for call in trajectory.end.calls:
                add(record.method, record.key, call, None)
    return calls, steps


def _request(chat: tuple[tuple[str, str], ...]) -> object:
    from latent_agent.llm.types import GenerationRequest, Message

    if len(chat) == 1:
        return GenerationRequest(prompt=chat[0][1])
    return GenerationRequest(messages=tuple(Message(role, text) for role, text in chat))  # type: ignore[arg-type]


@dataclass
class TokenCounter:
    """Counts chats with the packaged model's server, or with the o200k estimate when it is not installed."""

    why_fallback: str = ""
    sizes: dict[tuple[tuple[str, str], ...], int] = field(default_factory=dict)

    def count(self, chats: list[tuple[tuple[str, str], ...]]) -> str:
        """Count every chat in ``chats`` (into :attr:`sizes`); return what counted them."""
        from latent_agent.errors import ConfigError, LLMUnavailableError
        from latent_agent.llm.llamacpp.options import ServerOptions
        from latent_agent.llm.llamacpp.process import acquire, release
        from latent_agent.llm.packaged_model import packaged_model_path

        try:
            model = packaged_model_path()
        except ConfigError as exc:
            self.why_fallback = str(exc)
            return self._estimate(chats)
        try:
            server = acquire(model, ServerOptions(ctx=8192, threads=1, parallel=1))
        except (ConfigError, LLMUnavailableError) as exc:
            self.why_fallback = str(exc)
            return self._estimate(chats)
        try:
            asyncio.run(self._server(server.base_url, chats))
        finally:
            release(server)
        return MODEL_LABEL

    async def _server(self, base_url: str, chats: list[tuple[tuple[str, str], ...]]) -> None:
        from latent_agent.llm.context_window import server_tokens

        for number, chat in enumerate(chats, start=1):
            counted = await server_tokens(base_url, _request(chat))  # type: ignore[arg-type]
            if counted is None:
                raise RuntimeError(f"the llama.cpp server could not count call input {number} of {len(chats)}")
            self.sizes[chat] = counted
            if number % 500 == 0:
                print(f"counted {number} of {len(chats)} call inputs", file=sys.stderr, flush=True)

    def _estimate(self, chats: list[tuple[tuple[str, str], ...]]) -> str:
        from latent_agent.llm.context_window import estimate_tokens

        for chat in chats:
            self.sizes[chat] = estimate_tokens(_request(chat))  # type: ignore[arg-type]
        return FALLBACK_LABEL


def next_power_of_two(tokens: int) -> int:
    """The smallest power of two at least ``tokens``."""
    return 1 << max(0, math.ceil(math.log2(max(1, tokens))))


def percentile(values: list[int], q: float) -> int:
    """The nearest-rank ``q`` percentile of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


Sizes = dict[tuple[tuple[str, str], ...], int]


def growth_per_step(made: list[Call], sizes: Sizes) -> tuple[str, float] | None:
    """The call kind whose prompt grows fastest within an episode, and by how many tokens per step.

    Per episode and call kind, the growth is (its prompt at the last step it was sent - at the first) over
    the steps between (the largest of a step's calls of that kind); per kind, the median over the episodes
    where it was sent at two steps or more. None: no kind was.
    """
    largest: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)
    for call in made:
        if call.step is not None:
            at = largest[(call.purpose, call.episode)]
            at[call.step] = max(at.get(call.step, 0), sizes[call.chat])
    rates: dict[str, list[float]] = defaultdict(list)
    for (purpose, _), at in largest.items():
        first, last = min(at), max(at)
        if last > first:
            rates[purpose].append((at[last] - at[first]) / (last - first))
    if not rates:
        return None
    purpose = max(rates, key=lambda k: statistics.median(rates[k]))
    return purpose, statistics.median(rates[purpose])


def table(calls: list[Call], sizes: Sizes, steps: dict[str, list[int]]) -> Iterator[str]:
    """The Markdown rows, one per method, in the sweep's order."""
    by_method: dict[str, list[Call]] = defaultdict(list)
    for call in calls:
        by_method[call.method].append(call)
    yield ("| method | largest prompt (tokens) | its call kind | p95 | largest prompt + output cap | window that "
           "suffices | calls | steps (max per episode) | fastest-growing call kind (tokens per step) |")
    yield "|---|---|---|---|---|---|---|---|---|"
    for method, made in by_method.items():
        tokens = [sizes[c.chat] for c in made]
        biggest = max(made, key=lambda c: sizes[c.chat])
        need = max(made, key=lambda c: sizes[c.chat] + c.cap)
        total = sizes[need.chat] + need.cap
        kind = f"{need.purpose} {sizes[need.chat]:,} + {need.cap:,}"
        growth = growth_per_step(made, sizes)
        grow = f"{growth[0]} {growth[1]:+.0f}" if growth is not None else "n/a"
        yield (f"| {method} | {sizes[biggest.chat]:,} | {biggest.purpose} | {percentile(tokens, 95):,} "
               f"| {total:,} ({kind}) | {next_power_of_two(total):,} | {len(made):,} "
               f"| {sum(steps[method]):,} ({max(steps[method], default=0)}) | {grow} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/prompt-sizes"))
    parser.add_argument("--devices", type=int, default=2, help="simulated phones the sweeps run on")
    parser.add_argument("--summary-only", action="store_true", help="count the prompts of a finished sweep in --out")
    args = parser.parse_args()
    runs = args.out / "eval" if args.summary_only else run_sweeps(args.out, args.devices)
    calls, steps = calls_of(runs)
    distinct = list(dict.fromkeys(c.chat for c in calls))
    print(f"counting {len(distinct):,} distinct call inputs of {len(calls):,} calls", file=sys.stderr, flush=True)
    counter = TokenCounter()
    how = counter.count(distinct)
    images = sum(1 for c in calls if c.images)

    print("### Context size per method\n")
    print(f"Measured by `python scripts/bench_prompt_sizes.py` ({platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}): every registered method on the sim suite's evaluation and "
          f"held-out tasks with `--llm demo`, one episode per task and method ({len(calls):,} calls, "
          f"{len(distinct):,} distinct inputs). Tokens counted with {how}; a call's input is its earlier turns "
          "plus its prompt, with the chat template.")
    if counter.why_fallback:
        print(f"The packaged model could not count them ({counter.why_fallback}): these are estimates.")
    if images:
        print(f"{images} calls carried images, which are not counted here.")
    print("`--llm demo` is a scripted stand-in, not a model, but each method's prompts are the real ones; its "
          "episodes are the competent path, so a real model's longer episodes send longer histories. The cap "
          "is the output cap each call was sent with; the window that suffices is the next power of two at "
          "least the largest prompt plus its cap. The last column is the call kind whose prompt grows most "
          "from an episode's first step to its last (median over episodes, tokens per step).\n")
    for line in table(calls, counter.sizes, steps):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
