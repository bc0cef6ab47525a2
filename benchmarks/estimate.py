"""What a planned sweep will cost before it runs: ``latent-agent sweep --dry-run``.

Calls and tokens come from measured figures per method (``benchmarks/cost_figures.json``, written by
``scripts/bench_sweep_cost.py`` from a sweep of every method over the sim suite): steps per episode,
LLM calls per step, prompt and output tokens per call. Prices come from the project's price table
(``llm/prices.json``) for the model the sweep names. An estimate for a method is

    episodes x min(steps per episode, --max-steps) x calls per step

calls, times the tokens per call; the ceiling beside it is every episode running to ``--max-steps`` in
every trial its method may take. Both are estimates: the figures are the demo stand-in's, which follows
the reference solutions with short answers, so a real model that wanders takes more steps and writes
more output.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from latent_agent.errors import ConfigError
from latent_agent.llm.accounting import PriceTable
from latent_agent.llm.types import Usage

FIGURES_SCHEMA = "latent-agent/sweep-cost-figures"


@dataclass(frozen=True, slots=True)
class MethodFigures:
    """What one episode of a method measured (the averages over the measuring sweep's episodes)."""

    episodes: int
    steps_per_episode: float
    calls_per_step: float
    prompt_tokens_per_call: int
    output_tokens_per_call: int


@dataclass(frozen=True, slots=True)
class CostFigures:
    """Per-method figures and what they are based on."""

    methods: dict[str, MethodFigures]
    source: str
    tokens: str

    @classmethod
    def load(cls, path: str | Path | None = None) -> CostFigures:
        """Read the figures (default: the ones shipped in ``benchmarks/cost_figures.json``).

        Raises:
            ConfigError: The file is missing or not a figures file.
        """
        try:
            if path is None:
                text = resources.files("latent_agent.benchmarks").joinpath("cost_figures.json").read_text(
                    encoding="utf-8")
            else:
                text = Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
            if data.get("schema") != FIGURES_SCHEMA:
                raise ValueError(f"not a {FIGURES_SCHEMA} file")
            methods = {
                name: MethodFigures(int(m["episodes"]), float(m["steps_per_episode"]), float(m["calls_per_step"]),
                                    int(m["prompt_tokens_per_call"]), int(m["output_tokens_per_call"]))
                for name, m in data["methods"].items()
            }
            return cls(methods, str(data["source"]), str(data["tokens"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cost figures {path or 'cost_figures.json'}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class MethodEstimate:
    """One method's share of a planned sweep.

    Attributes:
        method: The method.
        episodes: Its planned episodes (those still to run, for a resumed sweep).
        calls: Estimated LLM calls, None when no figures were measured for the method.
        prompt_tokens: Estimated prompt tokens (None as ``calls``).
        output_tokens: Estimated output tokens (None as ``calls``).
        cost_usd: Estimated price in US dollars; None when unknown (no figures, or a model without a price).
        max_calls: Calls if every episode ran to the step limit in every trial (None as ``calls``).
        max_cost_usd: The price of ``max_calls`` at the same tokens per call (None as ``cost_usd``).
    """

    method: str
    episodes: int
    calls: int | None
    prompt_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    max_calls: int | None
    max_cost_usd: float | None


def estimate(methods: Iterable[str], max_steps: int, figures: CostFigures, *,
             price: Callable[[Usage], float | None], trials: Callable[[str], int]) -> list[MethodEstimate]:
    """The estimate per method, in the order methods are first planned.

    Args:
        methods: The method of every episode to run (one entry per episode).
        max_steps: The sweep's step limit per episode (per trial).
        figures: Measured figures per method.
        price: The price of a usage with the sweep's model (None: not known).
        trials: How many trials a method may take (1 but for the methods that try again).
    """
    out: list[MethodEstimate] = []
    for method, episodes in Counter(methods).items():
        m = figures.methods.get(method)
        if m is None:
            out.append(MethodEstimate(method, episodes, None, None, None, None, None, None))
            continue
        calls = round(episodes * min(m.steps_per_episode, max_steps) * m.calls_per_step)
        max_calls = round(episodes * max_steps * trials(method) * m.calls_per_step)
        usage = Usage(calls * m.prompt_tokens_per_call, calls * m.output_tokens_per_call)
        top = Usage(max_calls * m.prompt_tokens_per_call, max_calls * m.output_tokens_per_call)
        out.append(MethodEstimate(method, episodes, calls, usage.prompt_tokens, usage.output_tokens, price(usage),
                                  max_calls, price(top)))
    return out


def pricing(model: str, table: PriceTable, *, remote: bool) -> tuple[Callable[[Usage], float | None], str]:
    """How a sweep's calls are priced: a function of a usage, and a line saying on what basis.

    Args:
        model: The model's name, looked up in ``table``.
        table: The price table.
        remote: Whether the provider answers over the network (its registry entry's flag); one that answers
            in the process or starts its own local server (the demo, a cassette, llama.cpp) costs no fees.
    """
    if not remote:
        return (lambda usage: 0.0), "calls answered on this machine cost no fees"
    entry = table.lookup(model)
    if entry is None:
        return (lambda usage: None), (f"{model!r} has no price in llm/prices.json (a model on your own server costs "
                                      "no fees; a hosted one: add its rates to the table)")
    return ((lambda usage: table.cost(model, usage)),
            f"{model}: ${entry.input_per_mtok:g} / ${entry.output_per_mtok:g} per million prompt / output tokens "
            f"(llm/prices.json, {table.as_of or 'undated'}; check the provider's page before relying on it)")


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _usd(value: float | None) -> str:
    if value is None:
        return "-"
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else "<$0.01"


def render(rows: Sequence[MethodEstimate], *, figures: CostFigures, price_basis: str, max_steps: int) -> str:
    """The estimate as text for the terminal: one row per method, a total, and what it is based on."""
    header = ("method", "episodes", "calls", "prompt tokens", "output tokens", "price",
              f"calls at {max_steps} steps", "price at that")
    table = [header]
    for r in rows:
        table.append((r.method, f"{r.episodes:,}", _count(r.calls), _count(r.prompt_tokens),
                      _count(r.output_tokens), _usd(r.cost_usd), _count(r.max_calls), _usd(r.max_cost_usd)))
    def count(values: Sequence[int | None]) -> str:
        # The methods without figures are named below the table; the counts add up those estimated.
        known = [v for v in values if v is not None]
        return _count(sum(known)) if known or not values else "-"

    def total(values: Sequence[float | None]) -> float | None:
        # A price is known only when every method's is: a partial sum would read as the whole.
        return None if any(v is None for v in values) else sum(v for v in values if v is not None)

    table.append(("total", f"{sum(r.episodes for r in rows):,}", count([r.calls for r in rows]),
                  count([r.prompt_tokens for r in rows]), count([r.output_tokens for r in rows]),
                  _usd(total([r.cost_usd for r in rows])), count([r.max_calls for r in rows]),
                  _usd(total([r.max_cost_usd for r in rows]))))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
             for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.insert(len(lines) - 1, "  ".join("-" * w for w in widths))
    missing = [r.method for r in rows if r.calls is None]
    notes = [
        "",
        f"Calls: measured steps per episode (at most --max-steps {max_steps}) x measured LLM calls per step, "
        "setup calls included; tokens: measured tokens per call. The ceiling assumes every episode runs to "
        "the step limit in every trial its method may take. Steps per episode are those of the measuring "
        "suite's tasks: a suite of shorter or longer tasks scales the estimate with them.",
        f"Measured on: {figures.source}.",
        f"Tokens: {figures.tokens}.",
        f"Price: {price_basis}.",
    ]
    if missing:
        notes.append(f"No figures for {', '.join(missing)}: not estimated.")
    return "\n".join(lines + notes)
