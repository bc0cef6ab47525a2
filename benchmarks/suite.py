"""Benchmark suites: named lists of tasks a sweep can run, each with its provenance.

Registered suites (:data:`SUITES`):

* ``sim`` - the simulated phone's tasks (``benchmarks/suites/sim_tasks.json``),
  scored automatically by their declarative checks; the partial checks are the
  partial-completion questions.
* ``aitw-general``, ``aitw-webshop`` and ``aitw`` (both) - Android-in-the-Wild
  goals (the General and WebShopping test splits as the DigiRL project
  published them, ``suites/data/aitw_digirl``). Human raters score them.
* ``androidworld`` - AndroidWorld's 116 task templates
  (``suites/data/android_world``); parameterized templates need values from a
  ``--task-params`` file before they can run. Human raters score them unless an
  AndroidWorld evaluator is attached.
* ``pixelhelp``, ``aitw-paper`` and ``a50`` - the ten goals per benchmark that the
  latent-state paper prints (:mod:`latent_agent.benchmarks.paper_tasks`), with its printed
  partial-completion questions and the project's own where it prints none.
  ``pixelhelp`` runs on the simulated phone with automatic checks; the other two
  need a real phone with their apps and are scored by raters. ``paper`` is all three;
  each of its episodes is reported under its own benchmark.
* ``miniwob`` - every MiniWoB++ task page ``miniwob`` 1.1.0 ships that the action set can perform;
  ``miniwob-reflection``, ``miniwob-synapse`` and ``miniwob-caap`` - the tasks of the structured-reflection,
  Synapse and CAAP papers, with their groups and seeds; ``miniwob-papers`` - their union
  (:mod:`latent_agent.benchmarks.miniwob_tasks`). A device that hosts judged tasks loads each task with
  the episode's seed; the page's own reward judges it (no check of ours).

The provenance of every data file is in ``benchmarks/suites/SOURCES.md``.
"""

from __future__ import annotations

import fnmatch
import json
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.benchmarks.miniwob_tasks import (
    ALL_SUITE,
    EVAL,
    HELDOUT,
    NAMES_FILE,
    PUBLISHED_FILE,
    load_miniwob_data,
)
from latent_agent.benchmarks.paper_tasks import BENCHMARKS, PAPER_FILE, load_paper_tasks
from latent_agent.benchmarks.sim_tasks import SPLITS, load_suite
from latent_agent.errors import ConfigError, TaskSuiteError

if TYPE_CHECKING:
    from latent_agent.benchmarks.sim_tasks import Task as SimTask

DATA = Path(__file__).parent / "suites" / "data"
#: ``question_source`` of the sim suite: its partial checks' labels, written with the tasks.
QUESTIONS_SIM = "project (the sim task's partial checks)"
#: ``question_source`` of AitW WebShopping goals: derived from the goal's clauses.
QUESTIONS_CLAUSES = "project (the goal's clauses)"


@dataclass(frozen=True, slots=True)
class BenchmarkTask:
    """One task of a suite.

    Attributes:
        id: Unique within the suite; stable across releases of the data file.
        goal: What the user asks, in words (a template while ``params`` are unfilled).
        app: The app the task is about, when the source says.
        partial_questions: Yes/no questions about partial completion (a rater answers them,
            or the sim's partial checks do).
        source: Where the task comes from (file and line or entry).
        tags: Free-form labels (difficulty, split, the source's tags).
        params: Placeholders of a parameterized goal that still need values.
        sim_task: The sim suite's task with its automatic checks, for ``sim`` tasks.
        question_source: Who wrote the partial-completion questions (the paper, or the project
            and how), so forms and reports can keep the two apart.
        benchmark: The suite whose results the task counts towards, when it differs from the
            suite being run (the tasks of ``paper`` count towards ``pixelhelp``, ``aitw-paper``
            and ``a50``); None for the suite itself.
        seeds: The seeds the task is evaluated on; empty when the sweep's ``--seeds N`` gives them
            (0 .. N-1).
        train_seeds: The seeds memories and demonstrations of the task are built from; never one of
            ``seeds`` (empty when the task defines none).
        split: Its split of the exemplar protocol (``train``, ``eval``, ``heldout``), when it has one.
        hosted: The task a device hosting judged tasks loads for it (``load_task``), whose own reward
            then judges the episode; None for tasks played on a phone.
    """

    id: str
    goal: str
    app: str | None
    partial_questions: tuple[str, ...]
    source: str
    tags: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    sim_task: SimTask | None = None
    question_source: str = ""
    benchmark: str | None = None
    seeds: tuple[int, ...] = ()
    train_seeds: tuple[int, ...] = ()
    split: str | None = None
    hosted: str | None = None

    @property
    def automatic(self) -> bool:
        """Whether success is judged automatically, by a check of ours or the hosted task's reward (else
        raters judge it)."""
        return self.sim_task is not None or self.hosted is not None


@dataclass(frozen=True, slots=True)
class Suite:
    """A named task list.

    Attributes:
        name: Registry name (``sim``, ``aitw``, ...).
        description: One line for listings and reports.
        tasks: The tasks, in a fixed order.
        needs_sim: Whether the tasks' checks read the simulated phone's state (so
            the sweep must run them on ``sim`` devices to score them).
    """

    name: str
    description: str
    tasks: tuple[BenchmarkTask, ...]
    needs_sim: bool = False

    def task(self, task_id: str) -> BenchmarkTask:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise ConfigError(f"suite {self.name!r} has no task {task_id!r}")

    def select(self, patterns: Sequence[str] = (), tags: Sequence[str] = ()) -> Suite:
        """The tasks whose id matches one of ``patterns`` (fnmatch) and that carry every tag in ``tags``.

        Raises:
            ConfigError: If nothing is left.
        """

        chosen = [
            t for t in self.tasks
            if (not patterns or any(fnmatch.fnmatchcase(t.id, p) for p in patterns))
            and all(tag in t.tags for tag in tags)
        ]
        if not chosen:
            raise ConfigError(
                f"no task of suite {self.name!r} matches --tasks {','.join(patterns) or '*'}"
                + (f" --tag {','.join(tags)}" if tags else "")
            )
        return replace(self, tasks=tuple(chosen))

    def split(self, splits: Sequence[str]) -> Suite:
        """The tasks of the exemplar protocol's ``splits`` (``train``, ``eval``, ``heldout``; see
        :mod:`latent_agent.benchmarks.sim_tasks`).

        A task with train seeds of its own (MiniWoB++) is in ``train`` on those seeds, unless it is held
        out, and in its own split on its evaluation seeds; the two are never in one suite, so a memory
        is never built from a seed it is evaluated on.

        Raises:
            ConfigError: An unknown split, ``train`` together with another split for tasks with train seeds,
                or no task of the suite is in those splits (a suite without sim or MiniWoB++ tasks has no
                splits).
        """

        unknown = sorted(set(splits) - set(SPLITS))
        if unknown or not splits:
            raise ConfigError(f"unknown split {', '.join(unknown) or '(none)'}; choose from {', '.join(SPLITS)}")
        seeded = any(t.train_seeds for t in self.tasks)
        if seeded and "train" in splits and len(set(splits)) > 1:
            raise ConfigError(f"suite {self.name!r}: --split train runs the tasks' train seeds and "
                              f"{','.join(s for s in splits if s != 'train')} their evaluation seeds; run them in "
                              "separate sweeps")
        chosen = [replace(t, seeds=t.train_seeds) if seeded and "train" in splits else t
                  for t in self.tasks
                  if t.split is not None and (t.split in splits or (
                      "train" in splits and bool(t.train_seeds) and t.split != "heldout"))]
        if not chosen:
            raise ConfigError(f"no task of suite {self.name!r} is in split {','.join(splits)} (only the sim suite's "
                              "and the MiniWoB++ suites' tasks have splits)")
        return replace(self, tasks=tuple(chosen))

    def with_params(self, values: Mapping[str, Mapping[str, str]]) -> Suite:
        """Fill parameterized goals from ``values`` (task id -> placeholder -> text).

        Raises:
            ConfigError: For a task id not in the suite or a value for an unknown placeholder.
        """
        by_id = {t.id: t for t in self.tasks}
        for task_id, given in values.items():
            if task_id not in by_id:
                raise ConfigError(f"--task-params names {task_id!r}, which is not a task of suite {self.name!r}")
            task = by_id[task_id]
            unknown = sorted(set(given) - set(task.params))
            if unknown:
                raise ConfigError(f"--task-params {task_id}: {task.id} has no placeholder {', '.join(unknown)}; "
                                  f"it has {', '.join(task.params) or 'none'}")
            goal = task.goal
            for name, value in given.items():
                goal = goal.replace("{" + name + "}", str(value))
            by_id[task_id] = replace(task, goal=goal, params=tuple(p for p in task.params if p not in given))
        return replace(self, tasks=tuple(by_id[t.id] for t in self.tasks))

    def runnable(self) -> tuple[BenchmarkTask, ...]:
        """Tasks whose goal has no unfilled placeholder."""
        return tuple(t for t in self.tasks if not t.params)


@dataclass(frozen=True, slots=True)
class SuiteSource:
    """A registry entry: what a suite is and how to load it.

    Attributes:
        description: One line for listings and reports.
        load: Loads the suite.
        combines_others: It only combines other registered suites (``aitw``, ``paper``): its tasks belong to
            those, so an episode found by its task id alone counts towards them, never towards it.
        sim_task_list: Its tasks are the simulated phone's task list under their own ids
            (:func:`latent_agent.benchmarks.sim_tasks.load_suite`), with reference solutions, families and splits:
            CAAP demonstrations are recorded from its solutions (``demos build --suite``) and exemplar memories
            harvested from its episodes by their task's family and split.
    """

    description: str
    load: Callable[[], Suite]
    combines_others: bool = False
    sim_task_list: bool = False


def _sim() -> Suite:

    tasks = tuple(
        BenchmarkTask(
            id=t.id,
            goal=t.goal,
            app=t.app,
            partial_questions=tuple(c.describe() for c in t.partial),
            source=f"sim_tasks.json:{t.id}",
            tags=t.tags,
            sim_task=t,
            question_source=QUESTIONS_SIM,
            split=t.split,
        )
        for t in load_suite()
    )
    return Suite("sim", SUITES["sim"].description, tasks, needs_sim=True)


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskSuiteError(f"{path}: cannot read ({exc})") from None
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]


_CLAUSES = re.compile(r",\s*(?:and\s+)?")


def webshop_subgoals(goal: str) -> tuple[str, ...]:
    """Partial-completion questions for a WebShopping goal ("Go to X, search for Y, and select the first entry").

    These goals are explicit sequences, so each clause but the last is a sub-goal a
    rater can check ("Did the agent go to X?"); single-clause goals have none.
    """
    clauses = [c.strip() for c in _CLAUSES.split(goal) if c.strip()]
    return tuple(f"Did the agent {c[0].lower()}{c[1:]}?" for c in clauses[:-1])


def _aitw(split: str) -> tuple[BenchmarkTask, ...]:
    path = DATA / "aitw_digirl" / f"{split}_test.txt"
    seen: set[str] = set()
    tasks: list[BenchmarkTask] = []
    for number, goal in _lines(path):
        if goal in seen:  # a repeated goal would be the same task twice
            continue
        seen.add(goal)
        tasks.append(
            BenchmarkTask(
                id=f"aitw-{split}-{number:03d}",
                goal=goal,
                app=None,
                partial_questions=webshop_subgoals(goal) if split == "webshop" else (),
                question_source=QUESTIONS_CLAUSES if split == "webshop" else "",
                source=f"aitw_digirl/{path.name}:{number}",
                tags=(f"aitw-{split}",),
            )
        )
    return tuple(tasks)


def _aitw_general() -> Suite:
    return Suite("aitw-general", SUITES["aitw-general"].description, _aitw("general"))


def _aitw_webshop() -> Suite:
    return Suite("aitw-webshop", SUITES["aitw-webshop"].description, _aitw("webshop"))


def _aitw_both() -> Suite:
    return Suite("aitw", SUITES["aitw"].description, _aitw("general") + _aitw("webshop"))


def _placeholders(template: str) -> tuple[str, ...]:
    names: list[str] = []
    for _, field, _, _ in string.Formatter().parse(template):
        if field and field not in names:
            names.append(field)
    return tuple(names)


def _androidworld() -> Suite:
    path = DATA / "android_world" / "task_metadata.json"
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskSuiteError(f"{path}: cannot read ({exc})") from None
    if not isinstance(entries, list):
        raise TaskSuiteError(f"{path}: expected a list of tasks")
    tasks: list[BenchmarkTask] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("task_name"), str) \
                or not isinstance(entry.get("task_template"), str):
            raise TaskSuiteError(f"{path}: entry {i} needs string task_name and task_template")
        template = entry["task_template"]
        tasks.append(
            BenchmarkTask(
                id=entry["task_name"],
                goal=template,
                app=None,
                partial_questions=(),
                source=f"android_world/task_metadata.json:{entry['task_name']}",
                tags=(str(entry.get("difficulty", "")), *(str(t) for t in entry.get("tags", []))),
                params=_placeholders(template),
            )
        )
    return Suite("androidworld", SUITES["androidworld"].description, tuple(tasks))


def _paper_suite(name: str, key: str | None) -> Suite:
    """One of the paper's benchmarks (``key``), or all three (None) with each task's own benchmark."""

    tasks = tuple(
        BenchmarkTask(
            id=t.id,
            goal=t.goal,
            app=t.sim_task.app if t.sim_task is not None else None,
            partial_questions=t.questions,
            source=f"latent_state_paper/{PAPER_FILE.name}:{t.benchmark}[{t.index}]",
            tags=("paper", BENCHMARKS[t.benchmark]),
            sim_task=t.sim_task,
            question_source=t.question_source,
            benchmark=BENCHMARKS[t.benchmark] if key is None else None,
            split=t.sim_task.split if t.sim_task is not None else None,
        )
        for t in load_paper_tasks() if key is None or t.benchmark == key
    )
    return Suite(name, SUITES[name].description, tasks, needs_sim=key == "pixelhelp")


def hosted_goal(task: str) -> str:
    """The planned goal of a hosted task: the page states the real one when the episode loads it."""
    return f"MiniWoB++ {task}: the task page's instruction for the episode's seed"


def _hosted(name: str, seeds: Sequence[int], split: str, tags: Sequence[str], source: str) -> BenchmarkTask:

    return BenchmarkTask(id=name, goal=hosted_goal(name), app=None, partial_questions=(), source=source,
                         tags=tuple(tags), seeds=tuple(seeds), train_seeds=load_miniwob_data().train.seeds,
                         split=split, hosted=name)


def _memberships(name: str) -> tuple[str, ...]:
    """Tags of a MiniWoB++ task: each paper suite holding it, and its group there."""

    tags: list[str] = []
    for paper in load_miniwob_data().papers.values():
        group = paper.group_of(name)
        if group is not None:
            tags += [paper.layout.suite, group]
    return tuple(dict.fromkeys(tags))


def _miniwob() -> Suite:

    data = load_miniwob_data()
    seeds = data.seeds[ALL_SUITE].seeds
    tasks = tuple(_hosted(name, seeds, EVAL, ("miniwob", *_memberships(name)),
                          f"miniwob/{NAMES_FILE.name}:{data.names.index(name) + 1}") for name in data.performable)
    return Suite(ALL_SUITE, SUITES[ALL_SUITE].description, tasks)


def _miniwob_paper(key: str) -> Suite:

    paper = load_miniwob_data().papers[key]
    seeds = load_miniwob_data().seeds[paper.layout.suite].seeds
    tasks = tuple(_hosted(name, seeds, HELDOUT if name in paper.heldout else EVAL, (group,),
                          f"miniwob_papers/{PUBLISHED_FILE.name}:{key}:{name}")
                  for group, names in paper.groups for name in names)
    return Suite(paper.layout.suite, SUITES[paper.layout.suite].description, tasks)


def _miniwob_papers() -> Suite:
    """The union of the paper suites: each task once, on the seeds of every paper suite holding it."""

    data = load_miniwob_data()
    order = dict.fromkeys(task for paper in data.papers.values() for task in paper.tasks)
    tasks: list[BenchmarkTask] = []
    for name in order:
        holding = [p for p in data.papers.values() if name in p.tasks]
        seeds = sorted({seed for p in holding for seed in data.seeds[p.layout.suite].seeds})
        # Held out only where no paper had its exemplars or demonstrations: a memory may then be built from it.
        split = HELDOUT if all(name in p.heldout for p in holding) else EVAL
        tasks.append(_hosted(name, seeds, split, _memberships(name),
                             f"miniwob_papers/{PUBLISHED_FILE.name}:{','.join(p.key for p in holding)}:{name}"))
    return Suite("miniwob-papers", SUITES["miniwob-papers"].description, tuple(tasks))


#: Suite name -> how to load it. Adding a suite is one entry (or, from outside, :func:`register_suite`).
SUITES: dict[str, SuiteSource] = {
    "sim": SuiteSource("the simulated phone's tasks, scored automatically", _sim, sim_task_list=True),
    "aitw-general": SuiteSource("Android-in-the-Wild General test goals (DigiRL split), rated by people",
                                _aitw_general),
    "aitw-webshop": SuiteSource("Android-in-the-Wild WebShopping test goals (DigiRL split), rated by people",
                                _aitw_webshop),
    "aitw": SuiteSource("Android-in-the-Wild General + WebShopping test goals, rated by people", _aitw_both,
                        combines_others=True),
    "androidworld": SuiteSource("AndroidWorld's 116 task templates, rated by people", _androidworld),
    "pixelhelp": SuiteSource("the latent-state paper's ten PixelHelp goals, on the sim, scored automatically",
                             lambda: _paper_suite("pixelhelp", "pixelhelp")),
    "aitw-paper": SuiteSource("the latent-state paper's ten Android-in-the-Wild goals, rated by people",
                              lambda: _paper_suite("aitw-paper", "aitw")),
    "a50": SuiteSource("the latent-state paper's ten Android-50 goals (third-party apps), rated by people",
                       lambda: _paper_suite("a50", "a50")),
    "paper": SuiteSource("pixelhelp, aitw-paper and a50 together, each reported as its own benchmark",
                         lambda: _paper_suite("paper", None), combines_others=True),
    "miniwob": SuiteSource("every MiniWoB++ 1.1.0 task the action set can perform, judged by the page's reward",
                           _miniwob),
    "miniwob-reflection": SuiteSource("the structured-reflection paper's 43 MiniWoB++ tasks in its three groups, "
                                      "seeds 1000-1024", lambda: _miniwob_paper("structured_reflection")),
    "miniwob-synapse": SuiteSource("the Synapse paper's 63 MiniWoB++ tasks, 50 seeds",
                                   lambda: _miniwob_paper("synapse")),
    "miniwob-caap": SuiteSource("the CAAP paper's 73 MiniWoB++ tasks, 50 seeds", lambda: _miniwob_paper("caap")),
    "miniwob-papers": SuiteSource("the MiniWoB++ tasks of the reflection, Synapse and CAAP papers together, each on "
                                  "every paper's seeds", _miniwob_papers),
}


def register_suite(name: str, source: SuiteSource) -> None:
    """Add ``source`` to the registry under ``name`` (registering the same entry again is harmless).

    A suite defined outside this module (a plugin, a test) is then what ``sweep --suite``, ``run --task`` and the
    reports know, as a built-in one is.

    Raises:
        ConfigError: ``name`` is taken by another suite.
    """
    if SUITES.get(name, source) != source:
        raise ConfigError(f"suite {name!r} is registered already")
    SUITES[name] = source


def sim_task_list_suites() -> tuple[str, ...]:
    """The registered suites whose tasks are the simulated phone's task list (:attr:`SuiteSource.sim_task_list`)."""
    return tuple(name for name, source in SUITES.items() if source.sim_task_list)


def load_named_suite(name: str) -> Suite:
    """Load a registered suite.

    Raises:
        ConfigError: For an unknown name (the message lists the registered ones).
        TaskSuiteError: If its data file is malformed.
    """
    source = SUITES.get(name)
    if source is None:
        raise ConfigError(f"unknown suite {name!r}; available: {', '.join(SUITES)}")
    return source.load()


def checked_tasks() -> dict[str, SimTask]:
    """The tasks of every registered suite that the simulated phone's checks judge, by the suite's task id.

    ``run --task ID`` and ``run GOAL`` on a device with state checks find their check here, so a suite registered
    from outside has its tasks checked as the built-in ones are. An id held by more than one suite stands for the
    first suite's task (the ``sim`` suite's own, then the paper's ``pixelhelp`` wording of the same tasks).
    """
    found: dict[str, SimTask] = {}
    for source in SUITES.values():
        for task in source.load().tasks:
            if task.sim_task is not None:
                found.setdefault(task.id, task.sim_task)
    return found


def load_task_params(path: Path) -> dict[str, dict[str, str]]:
    """Read a ``--task-params`` file: ``{"TaskName": {"placeholder": "value", ...}, ...}``.

    Raises:
        ConfigError: If the file is unreadable or not of that shape.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--task-params {path}: cannot read ({exc})") from None
    if not isinstance(doc, dict) or not all(
        isinstance(v, dict) and all(isinstance(x, str | int | float) for x in v.values()) for v in doc.values()
    ):
        raise ConfigError(f"--task-params {path}: expected an object of task id -> {{placeholder: value}}")
    return {str(k): {str(p): str(x) for p, x in v.items()} for k, v in doc.items()}
