"""The report's observation-source section: each method's results from the dump beside those from the screenshot.

A sweep run with several observation sources (``sweep --observation a11y,screen``) runs every
(task, method, seed) under each, so the comparison is paired: the same episodes, seen through
the accessibility dump (``a11y``), the screenshot alone (``screen``) or both. Per method and
source the section gives success, partial completion, steps, LLM calls, tokens and seconds per
step, and on the other sources' rows how many tasks (each task's mean over seeds) came out
better, the same or worse than under ``a11y``. The main tables of the report then count the
``a11y`` episodes only (the method as specified), so sources are never pooled.
"""

from __future__ import annotations

from collections.abc import Sequence

from latent_agent.benchmarks.metrics import method_metrics
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection
from latent_agent.benchmarks.report_tables import Table, method_label, num, pct
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus

#: The source the others are compared with: the dump, as the method prescribes.
REFERENCE = "a11y"


def sources_of(records: Sequence[EpisodeRecord]) -> list[str]:
    """The observation sources of ``records``, the reference first."""
    found = sorted({r.observation for r in records}, key=lambda s: (s != REFERENCE, s))
    return found


def main_records(records: Sequence[EpisodeRecord]) -> list[EpisodeRecord]:
    """The records the report's main tables count: the reference source's when several sources were run."""
    if len(sources_of(records)) <= 1:
        return list(records)
    return [r for r in records if r.observation == REFERENCE]


def _task_success(records: Sequence[EpisodeRecord]) -> dict[str, float]:
    by_task: dict[str, list[float]] = {}
    for r in records:
        if r.status is EpisodeStatus.FINISHED and r.success is not None:
            by_task.setdefault(r.task_id, []).append(float(r.success))
    return {task: sum(v) / len(v) for task, v in by_task.items()}


def _versus(reference: dict[str, float], other: dict[str, float]) -> str:
    shared = reference.keys() & other.keys()
    if not shared:
        return "–"
    better = sum(other[t] > reference[t] for t in shared)
    worse = sum(other[t] < reference[t] for t in shared)
    return f"{better} / {len(shared) - better - worse} / {worse}"


def observation_table(records: Sequence[EpisodeRecord]) -> Table | None:
    """The section's table, or None when the sweep ran one observation source only."""
    sources = sources_of(records)
    if len(sources) <= 1:
        return None
    methods = list(dict.fromkeys(r.method for r in records))
    rows = []
    for method in methods:
        mine = [r for r in records if r.method == method]
        reference = _task_success([r for r in mine if r.observation == REFERENCE])
        for source in sources:
            group = [r for r in mine if r.observation == source]
            if not group:
                continue
            m = method_metrics("", method, group)
            versus = "" if source == REFERENCE else _versus(reference, _task_success(group))
            rows.append((method_label(method), source, pct(m.success), pct(m.partial), num(m.steps),
                         num(m.llm_calls), num(m.tokens, 0), num(m.s_per_step, 2), versus, f"{m.scored}/{m.episodes}"))
    return Table(
        title="Observation source: the dump (a11y) against the screenshot",
        headers=("Agent", "Observation", "Success", "Partial", "Steps", "LLM calls", "Tokens", "s / step",
                 "Tasks better / same / worse than a11y", "Scored / episodes"),
        rows=tuple(rows),
        note="Each (task, method, seed) ran under every source listed, so the rows of one agent compare the same "
             "episodes. Tasks better/same/worse: each task's success averaged over seeds, against the same agent "
             "on the dump. The tables above count the a11y episodes only.",
    )


def _tables(data: ReportInput) -> list[Table]:
    table = observation_table(data.everything)
    return [table] if table is not None else []


SECTION = ReportSection("observation", 80, _tables)
