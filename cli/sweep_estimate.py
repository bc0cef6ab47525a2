"""``latent-agent sweep --dry-run``: the planned episodes and what they will cost, with nothing written."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from latent_agent.agent.methods import get_method
from latent_agent.benchmarks.estimate import CostFigures, estimate, pricing, render
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.llm.accounting import PriceTable
from latent_agent.llm.spec import PROVIDERS, parse_spec

#: Task ids named in the summary; the rest are counted.
_SHOWN_TASKS = 12


def dry_run(args: argparse.Namespace, plan: Any) -> str:
    """What ``sweep`` would run for ``plan``, and the estimate of its calls, tokens and price per method.

    A resumed sweep (``--resume`` on a folder with results) is estimated for the episodes it has still to
    run: the finished ones are skipped, as the sweep would.

    Raises:
        ConfigError: The figures or the price table cannot be read.
    """
    episodes = list(plan.episodes)
    done: set[str] = set()
    if args.resume and (args.out / "results.jsonl").exists():
        done = {r.key for r in ResultsLog(args.out).load() if r.status is EpisodeStatus.FINISHED}
    todo = [e for e in episodes if e.key not in done]
    tasks = list(dict.fromkeys(e.task_id for e in episodes))
    per_method = Counter(e.method for e in episodes)
    sources = f" x {len(plan.observations)} observation sources" if len(plan.observations) > 1 else ""
    lines = [f"sweep --dry-run: nothing is run or written. Suite {plan.suite}: {len(episodes):,} episodes planned "
             f"({len(tasks)} task(s) x {len(per_method)} method(s) x {plan.seeds} seed(s){sources}), at most "
             f"{plan.max_steps} steps each, LLM {plan.llm}."]
    if done:
        lines.append(f"{len(episodes) - len(todo):,} already finished in {args.out}; {len(todo):,} still to run, "
                     "estimated below.")
    shown = ", ".join(tasks[:_SHOWN_TASKS]) + (f", ... ({len(tasks) - _SHOWN_TASKS} more)"
                                                if len(tasks) > _SHOWN_TASKS else "")
    lines += [f"tasks: {shown}", "methods: " + ", ".join(f"{m} ({n:,})" for m, n in per_method.items()), ""]
    spec = parse_spec(args.llm)
    price, basis = pricing(spec.name, PriceTable.load(), remote=PROVIDERS[spec.provider].remote)
    figures = CostFigures.load()
    rows = estimate((e.method for e in todo), plan.max_steps, figures, price=price,
                    trials=lambda method: int(getattr(get_method(method).policy, "trials", 1)))
    lines.append(render(rows, figures=figures, price_basis=basis, max_steps=plan.max_steps))
    if any(o != "a11y" for o in plan.observations) or plan.name_icons:
        lines.append("Screenshots sent to the model (--observation screen or both, --name-icons) add image tokens "
                     "that these figures, measured on the accessibility tree, do not hold.")
    return "\n".join(lines)
