"""The report's MiniWoB++ section on what each method's actions can do, under both success criteria.

Every method of a sweep that ran tasks a page judged gets one row: the tasks it ran, those its action space
cannot do (:attr:`~latent_agent.agent.methods.Method.web_actions` against what each task needs,
:meth:`~latent_agent.benchmarks.miniwob_tasks.MiniwobData.unmet`), and its success averaged apart over the
two kinds of task, under raw reward 1.0 (this project's success) and reward > 0 (as the three papers' code
counted). The main table's success pools every task; this section says how much of it the action space
decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from latent_agent.agent.methods import METHODS
from latent_agent.benchmarks.miniwob_tasks import CRITERIA, CRITERION_WORDS, Criterion, solved
from latent_agent.benchmarks.report_papers import unmet_needs
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection
from latent_agent.benchmarks.report_tables import Table, method_label
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus


def _mean_of_tasks(by_task: dict[str, list[float]], tasks: Sequence[str], criterion: Criterion) -> str:
    rates = [sum(solved(r, criterion) for r in by_task[t]) / len(by_task[t]) for t in tasks]
    if not rates:
        return "–"
    return f"{100 * sum(rates) / len(rates):.1f}% (mean of {len(rates)} task{'s' if len(rates) != 1 else ''})"


def action_space_table(records: Iterable[EpisodeRecord]) -> Table | None:
    """The section's table; None when no finished episode was judged by a task page."""
    judged: dict[str, dict[str, list[float]]] = {}
    for r in records:
        if r.status is EpisodeStatus.FINISHED and r.raw_reward is not None:
            judged.setdefault(r.method, {}).setdefault(r.task_id, []).append(r.raw_reward)
    if not judged:
        return None
    order = {name: i for i, name in enumerate(METHODS)}
    rows: list[tuple[str, ...]] = []
    for method in sorted(judged, key=lambda m: (order.get(m, len(order)), m)):
        by_task = judged[method]
        tasks = sorted(by_task)
        cannot = [t for t in tasks if unmet_needs(method, t)]
        can = [t for t in tasks if t not in cannot]
        known = METHODS.get(method)
        rows.append((method_label(method), known.web_actions.source if known is not None else "not registered",
                     str(len(tasks)),
                     "; ".join(f"{t} (needs {', '.join(n.need for n in unmet_needs(method, t))})" for t in cannot)
                     or "none",
                     *(_mean_of_tasks(by_task, can, c) for c in CRITERIA),
                     *(_mean_of_tasks(by_task, cannot, c) for c in CRITERIA)))
    headers = ("Agent", "Its actions on a web page", "Tasks run", "Tasks out of its actions",
               *(f"Tasks it can do: {CRITERION_WORDS[c]}" for c in CRITERIA),
               *(f"Tasks out of its actions: {CRITERION_WORDS[c]}" for c in CRITERIA))
    return Table("MiniWoB++: what each method's actions can do", headers, tuple(rows),
                 note="A task is out of a method's actions when it needs something (a drag, a click at a point, "
                      "several items of a list chosen together) that none of the method's actions on a web page "
                      "does; its success there is averaged apart and never beside a paper's number. Success is "
                      "averaged over tasks (each task's rate over its judged episodes), under raw reward 1.0 "
                      "(this project's: a partial reward is a failure) and reward > 0 (as the papers' code "
                      "counted).")


def _tables(data: ReportInput) -> list[Table]:
    table = action_space_table(data.records)  # observation sources are never pooled, as in the main tables
    return [table] if table is not None else []


SECTION = ReportSection("action_spaces", 25, _tables)
