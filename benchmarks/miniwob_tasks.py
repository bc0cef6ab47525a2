"""The MiniWoB++ suites' data: the shipped tasks, the three papers' task lists, groups and published numbers.

Three files, kept apart so that what is quoted and what is decided here never mix:

* ``suites/data/miniwob/task_names.txt`` - the 130 task pages the ``miniwob`` 1.1.0 wheel ships (MIT);
* ``suites/data/miniwob_papers/published.json`` - every per-task number the structured-reflection,
  Synapse and CAAP papers print, with their task groups and the notes on what was repaired from
  garbled text and what could not be read, verbatim from the project's data snapshot;
* ``suites/miniwob_tasks.json`` - the project's part: the seeds each suite evaluates on, the train seeds
  memories and demonstrations are built from, the shipped tasks the action set cannot perform (with the
  reason), each paper's model in short for report headers, how each paper's code counted a success, what
  tasks need beyond clicking, typing and keys (:class:`Need`: the report marks the tasks a method's actions
  cannot do, :attr:`latent_agent.agent.methods.Method.web_actions`), and the published cells the notes call
  repaired.

A published value the source could not read stays None; nothing here fills it in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

from latent_agent.agent.methods import WEB_ACTIONS, ActionSpace, WebAction
from latent_agent.errors import TaskSuiteError

HERE = Path(__file__).parent / "suites"
NAMES_FILE = HERE / "data" / "miniwob" / "task_names.txt"
PUBLISHED_FILE = HERE / "data" / "miniwob_papers" / "published.json"
PROJECT_FILE = HERE / "miniwob_tasks.json"
SCHEMA_VERSION = 1
#: Split of a task whose exemplars or demonstrations the paper did not have (its "unseen" tasks).
HELDOUT = "heldout"
#: Split of every other task of a MiniWoB++ suite (evaluated on its suite's seeds).
EVAL = "eval"
#: The name of the suite of all shipped tasks the action set can perform; its seeds are under this key.
ALL_SUITE = "miniwob"
#: What counts as a solved episode: the page's raw reward is 1.0 (``raw_one``, this project's success), or it
#: is above 0 (``positive``, as the three papers' code counted: a partial reward passes).
Criterion = Literal["raw_one", "positive"]
CRITERIA: tuple[Criterion, ...] = get_args(Criterion)
#: Each criterion as tables name it.
CRITERION_WORDS: dict[Criterion, str] = {"raw_one": "raw reward = 1.0", "positive": "reward > 0"}


def solved(raw_reward: float, criterion: Criterion) -> bool:
    """Whether an episode that ended with ``raw_reward`` counts as solved under ``criterion``."""
    return raw_reward == 1.0 if criterion == "raw_one" else raw_reward > 0


@dataclass(frozen=True, slots=True)
class Need:
    """Something some tasks need beyond what every method has (clicking an element, typing, keys).

    Attributes:
        need: What it is, in words (``drag``).
        any_of: The kinds of action any one of which does it (:data:`~latent_agent.agent.methods.WebAction`).
        tasks: The tasks that need it.
        why: How their pages show it (read from each page in the wheel).
    """

    need: str
    any_of: frozenset[WebAction]
    tasks: frozenset[str]
    why: str

    def met_by(self, space: ActionSpace) -> bool:
        return bool(self.any_of & space.actions)


@dataclass(frozen=True, slots=True)
class SeedRange:
    """Consecutive seeds ``first`` .. ``last`` (both included)."""

    first: int
    last: int

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(range(self.first, self.last + 1))

    def overlaps(self, other: SeedRange) -> bool:
        return self.first <= other.last and other.first <= self.last

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"


@dataclass(frozen=True, slots=True)
class Layout:
    """How one paper's table is read and which of our methods it is compared with.

    Attributes:
        suite: The suite that runs the paper's tasks.
        family: The method family (:mod:`latent_agent.agent.methods`) that is the paper's method here.
        columns: The per-task columns holding the paper's method (the others are baselines).
        scale: What a published value is divided by to give a fraction (100 for percentages).
        source: Where in the paper the columns are, for headers and notes.
        cite: The paper in short, for titles.
        caveat: What a reader must know when comparing with it (how the paper observed and acted, which
            version of its table this is).
        average: The aggregate holding the paper's own printed average of ``columns`` over all its tasks,
            or empty when it prints none.
        grouping: How the paper groups its tasks: ``task_groups`` are its display groups when empty, else the
            ``task_groups`` entry listing every task it evaluated, shown as groups by ``apart``.
        heldout: The ``task_groups`` entry listing the tasks it had no exemplars or demonstrations of, if any.
        apart: Group names for the tasks not held out and the held-out ones (or those of ``shown_apart``), when
            the paper reports them apart; one name when it shows all its tasks in one table.
        shown_apart: The ``task_groups`` entry listing tasks the paper reports apart though it held none out
            (CAAP's six tasks its visual observer was not trained on, which had demonstrations like the others).
        method_columns: Methods of ``family`` compared with other columns than ``columns`` (Synapse's
            multi-task memory, retrieved across tasks, against its column "Ours (multi-task)").
    """

    suite: str
    family: str
    columns: tuple[str, ...]
    scale: float
    source: str
    cite: str
    caveat: str
    average: str = ""
    grouping: str = ""
    heldout: str = ""
    apart: tuple[str, ...] = ()
    shown_apart: str = ""
    method_columns: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def columns_for(self, method: str) -> tuple[str, ...]:
        """The published columns ``method`` (of ``family``) is compared with."""
        return dict(self.method_columns).get(method, self.columns)

    @property
    def all_columns(self) -> tuple[str, ...]:
        """Every published column some method of ``family`` is compared with."""
        return tuple(dict.fromkeys((*self.columns, *(c for _, cs in self.method_columns for c in cs))))


#: Paper key in ``published.json`` -> its layout. The report and the suites read the papers only through this.
LAYOUTS: dict[str, Layout] = {
    "structured_reflection": Layout(
        "miniwob-reflection", "reflection", ("T=1", "T=3", "T=5"), 100.0, "Tables 10-12",
        "Li et al., structured reflection",
        "The paper's agent read compact HTML and acted by element id; an episode counts as solved at T when "
        "one of its first T attempts was, each failed attempt (judged by the environment) followed by a "
        "structured reflection. Ours are read from the same method's trials; with check feedback the page's "
        "reward judges each trial, as in the paper."),
    "synapse": Layout(
        "miniwob-synapse", "exemplars", ("Ours",), 1.0, "Appendix A",
        "Zheng et al., Synapse (first arXiv version)",
        "The paper's agent read raw HTML; \"Ours\" used exemplars of the task itself, \"Ours (multi-task)\" "
        "retrieved them from a memory of 47 tasks (16 unseen). The published columns are the first arXiv "
        "version's table (98.5% over 63 tasks); the final version's table (99.2% over 64) is not available.",
        "Appendix A: Average", "evaluated_by_paper", "unseen_in_multitask_memory", ("Appendix A",),
        method_columns=(("exemplars", ("Ours (multi-task)",)),)),
    "caap": Layout(
        "miniwob-caap", "caap", ("CAAP",), 1.0, "Table 7", "Cho et al., CAAP",
        "The paper's agent saw screenshots only (a visual observer listed the elements) with up to five human "
        "demonstrations per task; its six unseen tasks were unseen only by the visual observer's training data, "
        "not by the prompts' demonstrations; Table 7 was read from an OCR of the paper.",
        "Table 7: Average SR", "evaluated_by_paper",
        apart=("in the observer's training", "unseen by the observer"), shown_apart="unseen_tasks"),
}


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper's MiniWoB++ evaluation, as published.

    Attributes:
        key: Its key in ``published.json``.
        title: Its title.
        model: The model it used, in short (for column headers).
        model_detail: The model as the data file describes it.
        layout: How it is read and compared.
        groups: Its task groups in its order, each with its tasks in its order.
        heldout: Tasks it evaluated without exemplars or demonstrations of their own.
        values: Task -> column -> published value as a fraction (None: printed as unreadable or absent).
        printed_average: Column -> the paper's own printed average over all its tasks (fraction).
        repaired: Task -> why its value of the paper's own column was repaired from garbled text.
        notes: The data file's notes on this paper.
        episodes_per_task: Episodes the paper ran per task.
        counted: What the paper's code counted as a solved episode.
        counted_source: Where that is read from.
    """

    key: str
    title: str
    model: str
    model_detail: str
    layout: Layout
    groups: tuple[tuple[str, tuple[str, ...]], ...]
    heldout: frozenset[str]
    values: Mapping[str, Mapping[str, float | None]]
    printed_average: Mapping[str, float]
    repaired: Mapping[str, str]
    notes: str
    episodes_per_task: int
    counted: Criterion
    counted_source: str

    @property
    def tasks(self) -> tuple[str, ...]:
        """Every task the paper evaluated, in its order."""
        return tuple(task for _, tasks in self.groups for task in tasks)

    def value(self, task: str, column: str) -> float | None:
        """The published value (fraction), or None where the paper has none or it could not be read."""
        return self.values.get(task, {}).get(column)

    def group_of(self, task: str) -> str | None:
        return next((group for group, tasks in self.groups if task in tasks), None)


@dataclass(frozen=True, slots=True)
class MiniwobData:
    """Everything the MiniWoB++ suites and the report beside the papers read.

    Attributes:
        names: The task pages the wheel ships, in file order.
        excluded: Shipped tasks the action set cannot perform -> why.
        seeds: Suite name -> the seeds it evaluates on.
        train: The seeds memories and demonstrations are built from (disjoint from every suite's).
        papers: Paper key -> the paper, in file order.
        needs: What tasks need beyond clicking an element, typing and keys.
    """

    names: tuple[str, ...]
    excluded: Mapping[str, str]
    seeds: Mapping[str, SeedRange]
    train: SeedRange
    papers: Mapping[str, Paper]
    needs: tuple[Need, ...]

    @property
    def performable(self) -> tuple[str, ...]:
        return tuple(n for n in self.names if n not in self.excluded)

    def paper_of_family(self, family: str) -> Paper | None:
        """The paper whose method is the family ``family`` here, if any."""
        return next((p for p in self.papers.values() if p.layout.family == family), None)

    def unmet(self, task: str, space: ActionSpace) -> tuple[Need, ...]:
        """What ``task`` needs that actions ``space`` cannot do (empty: they can do the task)."""
        return tuple(n for n in self.needs if task in n.tasks and not n.met_by(space))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskSuiteError(f"{path}: cannot read ({exc})") from None


def _seed_range(value: Any, where: str) -> SeedRange:
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)
            and 0 <= value[0] <= value[1]):
        raise TaskSuiteError(f"{PROJECT_FILE}: {where} must be [first, last] seeds, got {value!r}")
    return SeedRange(value[0], value[1])


def _groups(layout: Layout, paper: Mapping[str, Any]) -> tuple[tuple[tuple[str, tuple[str, ...]], ...],
                                                               frozenset[str]]:
    """The paper's display groups and its held-out tasks, from its ``task_groups`` as ``layout`` reads them."""
    groups = paper["task_groups"]
    if not layout.grouping:  # the paper's own groups (the reflection paper's, by screens and steps)
        return tuple((name, tuple(tasks)) for name, tasks in groups.items()), frozenset()
    evaluated = tuple(groups[layout.grouping])
    heldout = frozenset(groups[layout.heldout]) if layout.heldout else frozenset()
    if len(layout.apart) == 1:  # one table (Synapse's: its unseen tasks matter only to its multi-task memory)
        return ((layout.apart[0], evaluated),), heldout
    # Reported apart: the held-out tasks, or (CAAP's six unseen by its observer) tasks held out of nothing.
    apart = heldout or frozenset(groups[layout.shown_apart])
    rest, own = layout.apart
    return (((rest, tuple(t for t in evaluated if t not in apart)),
             (own, tuple(t for t in evaluated if t in apart))), heldout)


def _need(value: Any, names: frozenset[str], where: str) -> Need:
    """One entry of the project file's ``needs``, checked."""
    if not (isinstance(value, dict) and isinstance(value.get("need"), str) and isinstance(value.get("why"), str)
            and isinstance(value.get("any_of"), list) and value["any_of"]
            and isinstance(value.get("tasks"), list) and value["tasks"]):
        raise TaskSuiteError(f"{PROJECT_FILE}: {where} must have a need, a why, and non-empty any_of and tasks lists")
    unknown = sorted(str(a) for a in value["any_of"] if a not in WEB_ACTIONS)
    if unknown:
        raise TaskSuiteError(f"{PROJECT_FILE}: {where} ({value['need']}) names {unknown[0]!r}, which is no web "
                             f"action ({', '.join(WEB_ACTIONS)})")
    strange = sorted(str(t) for t in value["tasks"] if t not in names)
    if strange:
        raise TaskSuiteError(f"{PROJECT_FILE}: {where} ({value['need']}) names {strange[0]!r}, which miniwob 1.1.0 "
                             "does not ship")
    return Need(value["need"], frozenset(value["any_of"]), frozenset(value["tasks"]), value["why"])


def _counted(key: str, project: Mapping[str, Any]) -> tuple[Criterion, str]:
    """How paper ``key``'s code counted a success, and where that is read from."""
    entry = project.get("criteria", {}).get(key)
    if not (isinstance(entry, dict) and entry.get("counted") in CRITERIA and isinstance(entry.get("source"), str)):
        raise TaskSuiteError(f"{PROJECT_FILE}: criteria.{key} must say what the paper counted "
                             f"({' or '.join(CRITERIA)}) and where that is read from")
    return entry["counted"], entry["source"]


def _paper(key: str, doc: Mapping[str, Any], project: Mapping[str, Any], names: frozenset[str]) -> Paper:
    layout = LAYOUTS[key]
    groups, heldout = _groups(layout, doc)
    values: dict[str, dict[str, float | None]] = {}
    for task, row in doc["tasks"].items():
        if task not in names:
            raise TaskSuiteError(f"{PUBLISHED_FILE}: {key} names {task!r}, which miniwob 1.1.0 does not ship")
        values[task] = {column: (None if v is None else float(v) / layout.scale) for column, v in row.items()}
    tasks = [t for _, ts in groups for t in ts]
    missing = [t for t in tasks if t not in values]
    if missing:
        raise TaskSuiteError(f"{PUBLISHED_FILE}: {key} groups {', '.join(missing[:3])} but has no row for them")
    average: dict[str, float] = {}
    if layout.average:
        printed = doc["aggregates"][layout.average]
        average = {c: float(printed[c]) / layout.scale for c in layout.all_columns if printed.get(c) is not None}
    counted, source = _counted(key, project)
    return Paper(key=key, title=str(doc["title"]), model=str(project["models"][key]), model_detail=str(doc["model"]),
                 layout=layout, groups=groups, heldout=heldout, values=values, printed_average=average,
                 repaired=dict(project.get("repaired", {}).get(key, {})), notes=str(doc["notes"]),
                 episodes_per_task=int(doc["episodes_per_task"]), counted=counted, counted_source=source)


@cache
def load_miniwob_data() -> MiniwobData:
    """Read and check the three files (once per process).

    Raises:
        TaskSuiteError: A file is unreadable or inconsistent: a task that is not shipped, train seeds that
            overlap a suite's, an exclusion of a task the wheel does not ship, a need naming no web action, a
            paper whose counted success is not given.
    """
    try:
        lines = NAMES_FILE.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TaskSuiteError(f"{NAMES_FILE}: cannot read ({exc})") from None
    names = tuple(line.strip() for line in lines if line.strip())
    project = _read_json(PROJECT_FILE)
    if not isinstance(project, dict) or project.get("schema_version") != SCHEMA_VERSION:
        raise TaskSuiteError(f"{PROJECT_FILE}: not a MiniWoB++ task file of schema_version {SCHEMA_VERSION}")
    excluded = {str(k): str(v) for k, v in project["excluded"].items()}
    unknown = sorted(set(excluded) - set(names))
    if unknown:
        raise TaskSuiteError(f"{PROJECT_FILE}: excludes {', '.join(unknown)}, which miniwob 1.1.0 does not ship")
    ranges = {str(k): _seed_range(v, f"seeds.{k}") for k, v in project["seeds"].items()}
    train = ranges.pop("train")
    clash = sorted(name for name, r in ranges.items() if r.overlaps(train))
    if clash:
        raise TaskSuiteError(f"{PROJECT_FILE}: the train seeds {train} overlap the evaluation seeds of {clash[0]}")
    published = _read_json(PUBLISHED_FILE)["papers"]
    shipped = frozenset(names)
    papers = {key: _paper(key, published[key], project, shipped) for key in published if key in LAYOUTS}
    for paper in papers.values():
        cannot = [t for t in paper.tasks if t in excluded]
        if cannot:
            raise TaskSuiteError(f"{PROJECT_FILE}: excludes {cannot[0]}, which {paper.key} evaluated")
    needs = tuple(_need(v, shipped, f"needs[{i}]") for i, v in enumerate(project.get("needs", [])))
    return MiniwobData(names=names, excluded=excluded, seeds=ranges, train=train, papers=papers, needs=needs)
