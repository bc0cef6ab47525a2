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

The provenance of every data file is in ``benchmarks/suites/SOURCES.md``.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

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

    @property
    def automatic(self) -> bool:
        """Whether success is checked automatically (else raters judge it)."""
        return self.sim_task is not None


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
        import fnmatch

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

        Raises:
            ConfigError: An unknown split, or no task of the suite is in those splits (a suite without
                sim tasks has no splits).
        """
        from latent_agent.benchmarks.sim_tasks import SPLITS

        unknown = sorted(set(splits) - set(SPLITS))
        if unknown or not splits:
            raise ConfigError(f"unknown split {', '.join(unknown) or '(none)'}; choose from {', '.join(SPLITS)}")
        chosen = [t for t in self.tasks if t.sim_task is not None and t.sim_task.split in splits]
        if not chosen:
            raise ConfigError(f"no task of suite {self.name!r} is in split {','.join(splits)} (only the sim suite's "
                              "tasks have splits)")
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
    """A registry entry: what a suite is and how to load it."""

    description: str
    load: Callable[[], Suite]


def _sim() -> Suite:
    from latent_agent.benchmarks.sim_tasks import load_suite

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
    from latent_agent.benchmarks.paper_tasks import BENCHMARKS, PAPER_FILE, load_paper_tasks

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
        )
        for t in load_paper_tasks() if key is None or t.benchmark == key
    )
    return Suite(name, SUITES[name].description, tasks, needs_sim=key == "pixelhelp")


#: Suite name -> how to load it. Adding a suite is one entry.
SUITES: dict[str, SuiteSource] = {
    "sim": SuiteSource("the simulated phone's tasks, scored automatically", _sim),
    "aitw-general": SuiteSource("Android-in-the-Wild General test goals (DigiRL split), rated by people",
                                _aitw_general),
    "aitw-webshop": SuiteSource("Android-in-the-Wild WebShopping test goals (DigiRL split), rated by people",
                                _aitw_webshop),
    "aitw": SuiteSource("Android-in-the-Wild General + WebShopping test goals, rated by people", _aitw_both),
    "androidworld": SuiteSource("AndroidWorld's 116 task templates, rated by people", _androidworld),
    "pixelhelp": SuiteSource("the latent-state paper's ten PixelHelp goals, on the sim, scored automatically",
                             lambda: _paper_suite("pixelhelp", "pixelhelp")),
    "aitw-paper": SuiteSource("the latent-state paper's ten Android-in-the-Wild goals, rated by people",
                              lambda: _paper_suite("aitw-paper", "aitw")),
    "a50": SuiteSource("the latent-state paper's ten Android-50 goals (third-party apps), rated by people",
                       lambda: _paper_suite("a50", "a50")),
    "paper": SuiteSource("pixelhelp, aitw-paper and a50 together, each reported as its own benchmark",
                         lambda: _paper_suite("paper", None)),
}


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
