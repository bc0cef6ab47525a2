"""The report beside the papers: a MiniWoB++ sweep's per-task success next to the published numbers.

For every method of the sweep whose family is a paper's method here (:data:`latent_agent.benchmarks.
miniwob_tasks.LAYOUTS`: reflection - the structured-reflection paper's Tables 10-12 at T=1/3/5; exemplars
- Synapse's column "Ours" for the task's own exemplars, "Ours (multi-task)" for retrieval across tasks;
caap - CAAP's Table 7), one table: a row per task we ran, in the paper's groups
and order, with our success rate and its 95% Wilson interval in one column and the published number in
the next, the published model named in that column's header. Measured and published numbers are never in
one column. Each group and the whole table end in averages over exactly the tasks we ran, ours and the
paper's over the same tasks (a cell the source could not read is shown as such and left out of the
paper's average, which says so).

Only episodes a task page judged count (their results line carries the page's raw reward): success is
raw reward 1.0. A multi-trial method's success at T trials is read from its episodes' trials
(:mod:`latent_agent.benchmarks.trials`), at every T up to its trial budget.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.methods import METHODS
from latent_agent.agent.reflection.policy import ReflectionPolicy
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.miniwob_tasks import Paper, load_miniwob_data
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection
from latent_agent.benchmarks.report_tables import Table
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus
from latent_agent.benchmarks.trials import REPORTED_T, TrialEpisode, trial_episode
from latent_agent.errors import InputError

#: z of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Marks a published cell repaired from garbled text (the table's note says which and why).
REPAIRED_MARK = " †"
UNREADABLE = "unreadable"


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (``successes`` of ``n``, ``n`` > 0)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class Rate:
    """Successes among judged episodes."""

    successes: int
    judged: int

    @property
    def value(self) -> float:
        return self.successes / self.judged

    def cell(self) -> str:
        low, high = wilson(self.successes, self.judged)
        return f"{100 * self.value:.1f}% [{100 * low:.1f}, {100 * high:.1f}] ({self.successes}/{self.judged})"


@dataclass(frozen=True, slots=True)
class Arm:
    """One of our methods as compared with a paper: its episodes, by task, with success per trial budget.

    Attributes:
        method: The method.
        feedback: What judged its trials (``self`` or ``check``), for a multi-trial method; else empty.
        observation: Where its view of the screen came from.
        trials: The trial budgets compared (``(1,)`` for a method without trials).
        outcomes: Task -> one tuple per episode of its success within each of ``trials`` (None: unknown).
    """

    method: str
    feedback: str
    observation: str
    trials: tuple[int, ...]
    outcomes: dict[str, list[tuple[bool | None, ...]]]

    def rate(self, task: str, index: int) -> Rate | None:
        judged = [o[index] for o in self.outcomes.get(task, ()) if o[index] is not None]
        return Rate(sum(bool(v) for v in judged), len(judged)) if judged else None


def _judged(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """Finished episodes a task page judged (their line carries its raw reward)."""
    return [r for r in records if r.status is EpisodeStatus.FINISHED and r.raw_reward is not None
            and r.success is not None]


def _trials(sweep: Path, record: EpisodeRecord) -> TrialEpisode | None:
    try:
        trajectory = read_trajectory(sweep / record.trajectory)
    except (InputError, OSError):
        return None
    return trial_episode(record, trajectory)


def arms(sweep: Path, records: Iterable[EpisodeRecord]) -> list[tuple[Paper, Arm]]:
    """Each (paper, arm) the sweep can be compared on, in the methods' registry order.

    Args:
        sweep: The sweep directory (a multi-trial method's trials are read from its trajectories).
        records: The sweep's latest records.
    """
    data = load_miniwob_data()
    found: dict[tuple[str, str, str], tuple[Paper, Arm]] = {}
    for record in _judged(records):
        method = METHODS.get(record.method)
        paper = data.paper_of_family(method.family.name) if method is not None else None
        if method is None or paper is None or record.task_id not in paper.tasks:
            continue
        # A multi-trial method's success at T is in its trials: without a readable trajectory it is unknown.
        multi = isinstance(method.policy, ReflectionPolicy)
        episode = _trials(sweep, record) if multi and record.trajectory else None
        if multi and episode is None:
            continue
        trials = tuple(t for t in REPORTED_T if t <= episode.budget) if episode is not None else (1,)
        feedback = episode.feedback if episode is not None else ""
        key = (record.method, feedback, record.observation)
        if key not in found:
            found[key] = (paper, Arm(record.method, feedback, record.observation, trials, {}))
        arm = found[key][1]
        outcome = tuple(episode.success_at(t) if episode is not None else record.success for t in arm.trials)
        arm.outcomes.setdefault(record.task_id, []).append(outcome)
    order = {name: i for i, name in enumerate(METHODS)}
    return [found[k] for k in sorted(found, key=lambda k: (order.get(k[0], len(order)), k))]


def _published(paper: Paper, task: str, column: str) -> str:
    value = paper.value(task, column)
    if value is None:
        return UNREADABLE
    mark = REPAIRED_MARK if task in paper.repaired and column in paper.layout.all_columns else ""
    return f"{100 * value:.1f}%{mark}"


def _mean(values: Sequence[float]) -> str:
    return f"{100 * sum(values) / len(values):.1f}%" if values else "–"


def _average_row(label: str, tasks: Sequence[str], paper: Paper, arm: Arm,
                 columns: Sequence[tuple[int, str]]) -> tuple[str, ...]:
    cells: list[str] = ["", label, str(sum(len(arm.outcomes[t]) for t in tasks))]
    for index, column in columns:
        rates = [r.value for t in tasks if (r := arm.rate(t, index)) is not None]
        cells.append(f"{_mean(rates)} (mean of {len(rates)} task{'s' if len(rates) != 1 else ''})")
        published = [v for t in tasks if (v := paper.value(t, column)) is not None]
        missing = len(tasks) - len(published)
        cells.append(_mean(published) + (f" ({missing} {UNREADABLE} left out)" if missing else ""))
    return tuple(cells)


def paper_table(paper: Paper, arm: Arm, llm: str) -> Table:
    """The per-task table of one arm beside its paper (see the module docstring)."""
    layout = paper.layout
    published = layout.columns_for(arm.method)
    columns = list(enumerate(published if len(published) == 1 else tuple(f"T={t}" for t in arm.trials)))
    headers = ["Group", "Task", "Episodes"]
    how = f"{arm.method}" + (f", {arm.feedback} feedback" if arm.feedback else "") \
        + (f", {arm.observation}" if arm.observation != "a11y" else "")
    for _, column in columns:
        label = f"{column}: " if len(columns) > 1 else ""
        headers += [f"Measured {label}{how}, {llm} (95% interval)",
                    f"Published {label}{paper.model}, {layout.source}"
                    + (f', column "{column}"' if len(columns) == 1 else "")]
    rows: list[tuple[str, ...]] = []
    ran: list[str] = []
    for group, tasks in paper.groups:
        mine = [t for t in tasks if t in arm.outcomes]
        for task in mine:
            cells = [group, task, str(len(arm.outcomes[task]))]
            for index, column in columns:
                rate = arm.rate(task, index)
                cells += [rate.cell() if rate is not None else "–", _published(paper, task, column)]
            rows.append(tuple(cells))
        if mine and len(paper.groups) > 1:
            rows.append(_average_row(f"Average, {group} ({len(mine)} of {len(tasks)} tasks)", mine, paper, arm,
                                     columns))
        ran += mine
    rows.append(_average_row(f"Average over the {len(ran)} tasks we ran (of the paper's {len(paper.tasks)})", ran,
                             paper, arm, columns))
    repaired = [f"{t}: {why}" for t, why in paper.repaired.items() if t in ran]
    printed = "; ".join(f"{c} {100 * v:.1f}%" for c, v in paper.printed_average.items()
                        if c in (column for _, column in columns))
    note = (f"Success: the task page's own reward, raw reward 1.0 (a partial reward is a failure); measured over "
            f"this sweep's episodes, with a 95% Wilson interval and successes/episodes; the paper ran "
            f"{paper.episodes_per_task} episodes per task with {paper.model_detail}. Averages are unweighted means "
            "of per-task rates over exactly the tasks listed above them, ours and the paper's over the same "
            f"tasks. {layout.caveat}"
            + (f" The paper's printed average over all its {len(paper.tasks)} tasks: {printed}." if printed else "")
            + (f" † repaired from garbled text in the source: {'; '.join(repaired)}." if repaired else ""))
    return Table(f"MiniWoB++ beside the paper: {arm.method} against {layout.cite}", tuple(headers), tuple(rows),
                 note=f"The paper: {paper.title}. {note}")


def papers_tables(sweep: Path, records: Iterable[EpisodeRecord], llm: str) -> list[Table]:
    """The section: one table per (paper, arm) of the sweep; none when no judged episode is comparable."""
    return [paper_table(paper, arm, llm) for paper, arm in arms(sweep, records)]


def _tables(data: ReportInput) -> list[Table]:
    return papers_tables(data.sweep, data.everything, data.plan.llm if data.plan else "model not recorded")


SECTION = ReportSection("papers", 20, _tables)
