"""The report beside the papers: a MiniWoB++ sweep's per-task success next to the published numbers.

For every method of the sweep whose family is a paper's method here (:data:`latent_agent.benchmarks.
miniwob_tasks.LAYOUTS`: reflection - the structured-reflection paper's Tables 10-12 at T=1/3/5; exemplars
- Synapse's column "Ours" for the task's own exemplars, "Ours (multi-task)" for retrieval across tasks;
caap - CAAP's Table 7), one table: a row per task we ran, in the paper's groups and order, with our success
under both criteria, each with its 95% Wilson interval, and the published number beside them, the published
model named in that column's header and the criterion the paper's code counted (:attr:`Paper.counted`).
Measured and published numbers are never in one column. It claims only what the numbers support:

* **Both criteria.** Raw reward 1.0 is this project's success (a partial reward is a failure); the three
  papers' code counted an episode whose reward is above 0 (:data:`~latent_agent.benchmarks.miniwob_tasks.
  CRITERIA`). A multi-trial method's success at T trials is read from its episodes' trials
  (:mod:`latent_agent.benchmarks.trials`), at every T up to its trial budget.
* **What its actions cannot do.** A task that needs an action the method's action space lacks
  (:attr:`~latent_agent.agent.methods.Method.web_actions` against the tasks' needs,
  :meth:`~latent_agent.benchmarks.miniwob_tasks.MiniwobData.unmet`) is marked, left out of every average shown
  beside the paper's, and averaged apart with no published number beside it.
* **Zero exemplars.** An exemplar-memory episode shown no exemplar (or another task's) is counted in its
  task's marks, read from the episode's first step.
* **A scripted stand-in.** A run whose model is no language model (:mod:`latent_agent.agent.pages.banner`)
  says so in every table's title and note and across every chart.

Each group and the whole table end in averages over exactly the tasks we ran that the method's actions can
do, ours and the paper's over the same tasks (a cell the source could not read is shown as such and left out
of the paper's average, which says so). A chart per table draws each task's measured rate, with its
interval, beside the published one (:func:`~latent_agent.benchmarks.report_charts.paper_chart`). Only
episodes a task page judged count (their results line carries the page's raw reward).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from latent_agent.agent.exemplars.policy import ExemplarPolicy, ExemplarState
from latent_agent.agent.methods import METHODS
from latent_agent.agent.pages.banner import Banner
from latent_agent.agent.reflection.policy import ReflectionPolicy
from latent_agent.agent.trajectory import Trajectory, read_trajectory
from latent_agent.benchmarks.miniwob_tasks import (
    CRITERIA,
    CRITERION_WORDS,
    Criterion,
    Need,
    Paper,
    load_miniwob_data,
    solved,
)
from latent_agent.benchmarks.report_charts import PaperBar, paper_chart
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection
from latent_agent.benchmarks.report_tables import Table
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, episode_directory
from latent_agent.benchmarks.trials import REPORTED_T, trial_episode
from latent_agent.errors import InputError, SweepStateError
from latent_agent.safe_paths import output_path, path_inside, safe_name

#: z of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Marks a published cell repaired from garbled text (the table's note says which and why).
REPAIRED_MARK = " †"
UNREADABLE = "unreadable"
#: In the published columns of the average of the tasks a method's actions cannot do.
NOT_COMPARED = "not compared"


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (``successes`` of ``n``, ``n`` > 0)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class Rate:
    """Successes among judged episodes, and the episodes whose outcome could not be told."""

    successes: int
    judged: int
    unknown: int = 0

    @property
    def value(self) -> float:
        return self.successes / self.judged

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.successes, self.judged)

    def cell(self) -> str:
        low, high = self.interval
        return (f"{100 * self.value:.1f}% [{100 * low:.1f}, {100 * high:.1f}] ({self.successes}/{self.judged})"
                + (f", {self.unknown} unknown" if self.unknown else ""))


@dataclass(frozen=True, slots=True)
class Exemplars:
    """What an exemplar-memory episode was shown, from its first step.

    Attributes:
        count: How many exemplars.
        task: The task (family) they were of; None when none was shown.
        chosen_by: How they were chosen (:attr:`ExemplarState.chosen_by`: retrieved, the task's own, the
            published code's substitute, the nearest task's); None where the episode does not say.
    """

    count: int
    task: str | None
    chosen_by: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One episode of an arm: whether it was solved within each compared trial budget, under each criterion.

    Attributes:
        raw: Solved with raw reward 1.0, per trial budget (None: cannot be told).
        positive: Solved with a reward above 0, per trial budget (None: cannot be told).
        exemplars: What it was shown, for an exemplar-memory episode whose first step says so.
    """

    raw: tuple[bool | None, ...]
    positive: tuple[bool | None, ...]
    exemplars: Exemplars | None = None

    def solved(self, criterion: Criterion, index: int) -> bool | None:
        return (self.raw if criterion == "raw_one" else self.positive)[index]


@dataclass(frozen=True, slots=True)
class Arm:
    """One of our methods as compared with a paper: its episodes, by task.

    Attributes:
        method: The method.
        feedback: What judged its trials (``self`` or ``check``), for a multi-trial method; else empty.
        observation: Where its view of the screen came from.
        trials: The trial budgets compared (``(1,)`` for a method without trials).
        outcomes: Task -> one outcome per episode.
    """

    method: str
    feedback: str
    observation: str
    trials: tuple[int, ...]
    outcomes: dict[str, list[Outcome]]

    def rate(self, task: str, index: int, criterion: Criterion = "raw_one") -> Rate | None:
        """Its success on ``task`` within the ``index``-th compared budget; None when no episode was judged."""
        values = [o.solved(criterion, index) for o in self.outcomes.get(task, ())]
        judged = [v for v in values if v is not None]
        return Rate(sum(judged), len(judged), len(values) - len(judged)) if judged else None

    def exemplar_marks(self, task: str) -> list[str]:
        """The task's marks for what its exemplar-memory episodes were shown (none for other methods)."""
        shown = [o.exemplars for o in self.outcomes.get(task, ()) if o.exemplars is not None]
        none = sum(e.count == 0 for e in shown)
        others = sorted({e.task + (f": {e.chosen_by}" if e.chosen_by else "") for e in shown
                         if e.count and e.task is not None and e.task != task})
        other = sum(e.count > 0 and e.task is not None and e.task != task for e in shown)
        marks = [f"no exemplars in {none} of {len(shown)} episodes"] if none else []
        if other:
            marks.append(f"exemplars of another task ({', '.join(others)}) in {other} of {len(shown)} episodes")
        return marks


def _judged(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """Finished episodes a task page judged (their line carries its raw reward)."""
    return [r for r in records if r.status is EpisodeStatus.FINISHED and r.raw_reward is not None
            and r.success is not None]


def _trajectory(sweep: Path, record: EpisodeRecord) -> Trajectory | None:
    if not record.trajectory:
        return None
    try:
        return read_trajectory(episode_directory(sweep, record))  # a copied results.jsonl can name any path
    except (InputError, OSError):
        return None


def _exemplars(trajectory: Trajectory | None) -> Exemplars | None:
    first = trajectory.steps[0].state if trajectory is not None and trajectory.steps else None
    if not isinstance(first, ExemplarState):
        return None
    return Exemplars(len(first.exemplars), first.family if first.exemplars else None, first.chosen_by)


def arms(sweep: Path, records: Iterable[EpisodeRecord]) -> list[tuple[Paper, Arm]]:
    """Each (paper, arm) the sweep can be compared on, in the methods' registry order.

    Args:
        sweep: The sweep directory (trials and exemplars are read from the trajectories).
        records: The sweep's latest records.
    """
    data = load_miniwob_data()
    found: dict[tuple[str, str, str], tuple[Paper, Arm]] = {}
    for record in _judged(records):
        method = METHODS.get(record.method)
        paper = data.paper_of_family(method.family.name) if method is not None else None
        if method is None or paper is None or record.task_id not in paper.tasks:
            continue
        multi = isinstance(method.policy, ReflectionPolicy)
        wanted = multi or isinstance(method.policy, ExemplarPolicy)
        trajectory = _trajectory(sweep, record) if wanted else None
        # A multi-trial method's success at T is in its trials: without a readable trajectory it is unknown.
        episode = trial_episode(record, trajectory) if multi and trajectory is not None else None
        if multi and episode is None:
            continue
        trials = tuple(t for t in REPORTED_T if t <= episode.budget) if episode is not None else (1,)
        feedback = episode.feedback if episode is not None else ""
        key = (record.method, feedback, record.observation)
        if key not in found:
            found[key] = (paper, Arm(record.method, feedback, record.observation, trials, {}))
        arm = found[key][1]
        raw_reward = record.raw_reward if record.raw_reward is not None else 0.0
        if episode is not None:
            outcome = Outcome(tuple(episode.success_at(t) for t in arm.trials),
                              tuple(episode.positive_at(t) for t in arm.trials))
        else:
            outcome = Outcome((record.success,), (solved(raw_reward, "positive"),), _exemplars(trajectory))
        arm.outcomes.setdefault(record.task_id, []).append(outcome)
    order = {name: i for i, name in enumerate(METHODS)}
    return [found[k] for k in sorted(found, key=lambda k: (order.get(k[0], len(order)), k))]


def unmet_needs(method: str, task: str) -> tuple[Need, ...]:
    """What ``task`` needs that ``method``'s actions cannot do on a web page (none for an unknown method)."""
    known = METHODS.get(method)
    return load_miniwob_data().unmet(task, known.web_actions) if known is not None else ()


def _published(paper: Paper, task: str, column: str) -> str:
    value = paper.value(task, column)
    if value is None:
        return UNREADABLE
    mark = REPAIRED_MARK if task in paper.repaired and column in paper.layout.all_columns else ""
    return f"{100 * value:.1f}%{mark}"


def _mean(values: Sequence[float]) -> str:
    return f"{100 * sum(values) / len(values):.1f}%" if values else "–"


def _measured_mean(arm: Arm, tasks: Sequence[str], index: int, criterion: Criterion) -> str:
    rates = [r.value for t in tasks if (r := arm.rate(t, index, criterion)) is not None]
    return f"{_mean(rates)} (mean of {len(rates)} task{'s' if len(rates) != 1 else ''})"


def _average_row(label: str, tasks: Sequence[str], paper: Paper, arm: Arm, columns: Sequence[tuple[int, str]], *,
                 compared: bool = True) -> tuple[str, ...]:
    """An average row: ours under both criteria and, when ``compared``, the paper's over the same tasks."""
    cells: list[str] = ["", label, str(sum(len(arm.outcomes[t]) for t in tasks)), ""]
    for index, column in columns:
        cells += [_measured_mean(arm, tasks, index, c) for c in CRITERIA]
        if not compared:
            cells.append(NOT_COMPARED)
            continue
        published = [v for t in tasks if (v := paper.value(t, column)) is not None]
        missing = len(tasks) - len(published)
        cells.append(_mean(published) + (f" ({missing} {UNREADABLE} left out)" if missing else ""))
    return tuple(cells)


def _columns(paper: Paper, arm: Arm) -> list[tuple[int, str]]:
    """(index into the arm's trial budgets, published column) pairs compared."""
    published = paper.layout.columns_for(arm.method)
    return list(enumerate(published if len(published) == 1 else tuple(f"T={t}" for t in arm.trials)))


def _rate_cell(arm: Arm, task: str, index: int, criterion: Criterion) -> str:
    rate = arm.rate(task, index, criterion)
    if rate is not None:
        return rate.cell()
    unknown = sum(o.solved(criterion, index) is None for o in arm.outcomes.get(task, ()))
    return f"– ({unknown} unknown)" if unknown else "–"


def _marks(arm: Arm, task: str) -> str:
    needs = [f"out of its actions: needs {n.need}" for n in unmet_needs(arm.method, task)]
    return "; ".join(needs + arm.exemplar_marks(task))


def paper_table(paper: Paper, arm: Arm, llm: str, *, banner: Banner | None = None) -> Table:
    """The per-task table of one arm beside its paper (see the module docstring)."""
    layout = paper.layout
    columns = _columns(paper, arm)
    headers = ["Group", "Task", "Episodes", "Marks"]
    how = f"{arm.method}" + (f", {arm.feedback} feedback" if arm.feedback else "") \
        + (f", {arm.observation}" if arm.observation != "a11y" else "")
    counted = CRITERION_WORDS[paper.counted]
    for _, column in columns:
        label = f"{column}: " if len(columns) > 1 else ""
        headers += [f"Measured {label}{how}, {llm}, {CRITERION_WORDS['raw_one']} (95% interval)",
                    f"Measured {label}{CRITERION_WORDS['positive']} (95% interval)",
                    f"Published {label}{paper.model}, {layout.source}"
                    + (f', column "{column}"' if len(columns) == 1 else "") + f", counted {counted}"]
    rows: list[tuple[str, ...]] = []
    ran: list[str] = []
    apart: list[str] = []
    for group, tasks in paper.groups:
        mine = [t for t in tasks if t in arm.outcomes]
        for task in mine:
            cells = [group, task, str(len(arm.outcomes[task])), _marks(arm, task)]
            for index, column in columns:
                cells += [_rate_cell(arm, task, index, criterion) for criterion in CRITERIA]
                cells.append(_published(paper, task, column))
            rows.append(tuple(cells))
        cannot = [t for t in mine if unmet_needs(arm.method, t)]
        can = [t for t in mine if t not in cannot]
        if can and len(paper.groups) > 1:
            rows.append(_average_row(f"Average, {group} ({len(can)} of {len(tasks)} tasks"
                                     + (f"; {len(cannot)} out of its actions left out" if cannot else "") + ")",
                                     can, paper, arm, columns))
        ran += can
        apart += cannot
    rows.append(_average_row(f"Average over the {len(ran)} tasks we ran"
                             + (" that its actions can do" if apart else "") + f" (of the paper's {len(paper.tasks)})",
                             ran, paper, arm, columns))
    if apart:
        rows.append(_average_row(f"Apart: the {len(apart)} tasks out of its actions", apart, paper, arm, columns,
                                 compared=False))
    return Table(_title(paper, arm, banner), tuple(headers), tuple(rows),
                 note=_note(paper, arm, columns, ran, apart, banner))


def _title(paper: Paper, arm: Arm, banner: Banner | None) -> str:
    return (f"MiniWoB++ beside the paper: {arm.method} against {paper.layout.cite}"
            + (f" ({banner.short})" if banner is not None else ""))


def _note(paper: Paper, arm: Arm, columns: Sequence[tuple[int, str]], ran: Sequence[str], apart: Sequence[str],
          banner: Banner | None) -> str:
    layout = paper.layout
    repaired = [f"{t}: {why}" for t, why in paper.repaired.items() if t in ran or t in apart]
    printed = "; ".join(f"{c} {100 * v:.1f}%" for c, v in paper.printed_average.items()
                        if c in (column for _, column in columns))
    method = METHODS[arm.method]
    needs = sorted({n.need for t in apart for n in unmet_needs(arm.method, t)})
    apart_note = (f" Out of its actions: {len(apart)} task(s) need {', '.join(needs)}, which {arm.method}'s actions "
                  f"({method.web_actions.source}) cannot do; they are marked, left out of every average beside the "
                  "paper's and averaged apart, with no published number beside them." if apart else "")
    exemplars = (" Exemplar marks (read from each episode's first step): episodes shown no exemplar, or another "
                 "task's, are counted in the task's marks." if isinstance(method.policy, ExemplarPolicy) else "")
    unknown = (" Reward > 0 within T trials is unknown for an episode that an earlier trial's page ended without "
               "raw reward 1.0, since trial records keep no reward (counted as unknown)."
               if isinstance(method.policy, ReflectionPolicy) else "")
    return ((f"{banner.text} " if banner is not None else "") + f"The paper: {paper.title}. "
            f"Success under two criteria, each from the task page's own reward: raw reward 1.0 (this project's; a "
            f"partial reward is a failure) and reward > 0 (as the papers' code counted: a partial reward passes); "
            f"the published numbers counted {CRITERION_WORDS[paper.counted]} ({paper.counted_source}). Measured over "
            f"this sweep's episodes, with a 95% Wilson interval and successes/episodes; the paper ran "
            f"{paper.episodes_per_task} episodes per task with {paper.model_detail}. Averages are unweighted means "
            "of per-task rates over exactly the tasks listed above them, ours and the paper's over the same "
            f"tasks. {layout.caveat}" + apart_note + exemplars + unknown
            + (f" The paper's printed average over all its {len(paper.tasks)} tasks: {printed}." if printed else "")
            + (f" † repaired from garbled text in the source: {'; '.join(repaired)}." if repaired else ""))


def paper_bars(paper: Paper, arm: Arm) -> tuple[str, list[PaperBar]]:
    """The chart of one arm beside its paper: its widest trial budget's column, and one bar pair per task."""
    index, column = _columns(paper, arm)[-1]
    bars: list[PaperBar] = []
    for _, tasks in paper.groups:
        for task in (t for t in tasks if t in arm.outcomes):
            raw, positive = arm.rate(task, index, "raw_one"), arm.rate(task, index, "positive")
            needs = unmet_needs(arm.method, task)
            none = any(o.exemplars is not None and o.exemplars.count == 0 for o in arm.outcomes[task])
            bars.append(PaperBar(task, raw.value if raw is not None else None,
                                 raw.interval if raw is not None else None,
                                 positive.value if positive is not None else None, paper.value(task, column),
                                 comparable=not needs,
                                 mark=("needs " + ", ".join(n.need for n in needs)) if needs
                                 else "no exemplars" if none else ""))
    return column, bars


def _chart(data: ReportInput, paper: Paper, arm: Arm, banner: Banner | None) -> str:
    """Draw the arm's chart into the report's ``charts`` folder; its path relative to the report."""
    column, bars = paper_bars(paper, arm)
    parts = [paper.key, arm.method, arm.feedback, arm.observation if arm.observation != "a11y" else ""]
    try:
        name = safe_name("_".join(p for p in parts if p), "chart name")
        path = path_inside(data.out / "charts", f"paper_{name}.png", "chart")
    except InputError as exc:
        raise SweepStateError(f"{data.sweep / 'results.jsonl'}: {exc}") from None
    title = f"{arm.method} beside {paper.layout.cite} ({column})"
    paper_chart(title, bars, output_path(data.out, path, "the chart"), published=f"published, {paper.model}",
                banner=banner.short if banner is not None else None)
    return path.relative_to(data.out).as_posix()


def papers_tables(sweep: Path, records: Iterable[EpisodeRecord], llm: str, *,
                  banner: Banner | None = None) -> list[Table]:
    """One table per (paper, arm) of the sweep, without charts; none when no judged episode is comparable."""
    return [paper_table(paper, arm, llm, banner=banner) for paper, arm in arms(sweep, records)]


def _tables(data: ReportInput) -> list[Table]:
    llm = data.plan.llm if data.plan else "model not recorded"
    out: list[Table] = []
    for paper, arm in arms(data.sweep, data.everything):
        table = paper_table(paper, arm, llm, banner=data.banner)
        out.append(replace(table, chart=_chart(data, paper, arm, data.banner),
                           chart_alt=f"{arm.method} beside {paper.layout.cite}, per task"))
    return out


SECTION = ReportSection("papers", 20, _tables)
