"""The paper's benchmark tasks: the ten goals per benchmark that the latent-state paper prints.

Two files, kept apart so that what is quoted and what is written here never mix:

* ``suites/data/latent_state_paper/appendix_g_tasks.json`` - the paper's goals (App. G) and the
  partial-completion questions it prints (App. I, Table 5), verbatim;
* ``suites/paper_tasks.json`` - the project's part, matched to the paper's goals by their exact
  string: for PixelHelp, the simulated phone's task that plays each goal (its reference solution),
  success checks where the paper's goal asks for something else than the sim task's, and the partial
  checks whose labels are the questions (the printed ones verbatim); for AitW and A-50, questions for
  the goals the paper prints none for.

Every task says where its questions come from (:data:`QUESTIONS_PAPER` or :data:`QUESTIONS_PROJECT`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.device.sim.checks import Check
from latent_agent.errors import TaskSuiteError

if TYPE_CHECKING:
    from latent_agent.benchmarks.sim_tasks import Task as SimTask

HERE = Path(__file__).parent / "suites"
PAPER_FILE = HERE / "data" / "latent_state_paper" / "appendix_g_tasks.json"
PROJECT_FILE = HERE / "paper_tasks.json"
SCHEMA_VERSION = 1
#: The paper's benchmark key in its data file -> the suite that runs it.
BENCHMARKS: dict[str, str] = {"pixelhelp": "pixelhelp", "aitw": "aitw-paper", "a50": "a50"}
#: Where the partial-completion questions of a task come from.
QUESTIONS_PAPER = "paper (App. I, Table 5)"
QUESTIONS_PROJECT = "project (the paper prints none for this goal)"


@dataclass(frozen=True, slots=True)
class PaperTask:
    """One of the paper's goals with its questions (and, for PixelHelp, its sim task).

    Attributes:
        benchmark: The paper's benchmark key (``pixelhelp``, ``aitw``, ``a50``).
        index: Position in the paper's list (0-based), which the task id is built from.
        goal: The goal exactly as the paper prints it.
        questions: Partial-completion questions.
        question_source: :data:`QUESTIONS_PAPER` or :data:`QUESTIONS_PROJECT`.
        sim_task: For PixelHelp: the sim task carrying the paper's goal, its checks and solution.
    """

    benchmark: str
    index: int
    goal: str
    questions: tuple[str, ...]
    question_source: str
    sim_task: SimTask | None = None

    @property
    def id(self) -> str:
        return f"{BENCHMARKS[self.benchmark]}-{self.index + 1:02d}"


def _read(path: Path) -> dict[str, object]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskSuiteError(f"{path}: cannot read ({exc})") from None
    if not isinstance(doc, dict):
        raise TaskSuiteError(f"{path}: expected a JSON object")
    return doc


def _entries(doc: Mapping[str, object], key: str, where: str) -> list[dict[str, object]]:
    entries = doc.get(key)
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("goal"), str)
                                                for e in entries):
        raise TaskSuiteError(f"{where}: {key!r} must be a list of objects with a string 'goal'")
    return entries


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(q, str) and q.strip() for q in value):
        raise TaskSuiteError(f"{where}: expected a list of non-empty strings")
    return tuple(value)


def _sim_task(entry: Mapping[str, object], goal: str, printed: tuple[str, ...], sim: Mapping[str, SimTask],
              where: str) -> tuple[SimTask, tuple[str, ...]]:
    task_id = entry.get("sim_task")
    if not isinstance(task_id, str) or task_id not in sim:
        raise TaskSuiteError(f"{where}: 'sim_task' must name a task of the sim suite, got {task_id!r}")
    base = sim[task_id]
    partial = tuple(Check.from_json(c, f"{where} partial") for c in _list(entry.get("partial"), where))
    success = tuple(Check.from_json(c, f"{where} success") for c in _list(entry.get("success", []), where))
    labels = tuple(c.describe() for c in partial)
    if not partial or any(not c.label for c in partial):
        raise TaskSuiteError(f"{where}: every partial check needs a label (the question it answers)")
    if printed and labels != printed:
        raise TaskSuiteError(f"{where}: the partial checks' labels must be the paper's printed questions "
                             f"{list(printed)}, got {list(labels)}")
    return replace(base, goal=goal, success=success or base.success, partial=partial), labels


def _list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise TaskSuiteError(f"{where}: expected a list of checks")
    return value


def load_paper_tasks(paper_file: Path = PAPER_FILE, project_file: Path = PROJECT_FILE) -> tuple[PaperTask, ...]:
    """Every paper task of the three benchmarks, in the paper's order.

    Raises:
        TaskSuiteError: If a file is malformed, the project's file misses one of the paper's goals
            or names one the paper does not have, gives questions for a goal the paper prints them for
            (or none for one it does not), or a PixelHelp sim mapping does not hold together.
    """
    paper, project = _read(paper_file), _read(project_file)
    if project.get("schema_version") != SCHEMA_VERSION:
        raise TaskSuiteError(f"{project_file}: expected schema_version {SCHEMA_VERSION}")
    benchmarks = paper.get("benchmarks")
    if not isinstance(benchmarks, dict):
        raise TaskSuiteError(f"{paper_file}: expected an object 'benchmarks'")
    sim = {t.id: t for t in load_suite()}
    out: list[PaperTask] = []
    for key in BENCHMARKS:
        printed_entries = _entries(benchmarks, key, paper_file.name)
        own = {str(e["goal"]): e for e in _entries(project, key, project_file.name)}
        goals = [str(e["goal"]) for e in printed_entries]
        unknown = sorted(set(own) - set(goals))
        if unknown:
            raise TaskSuiteError(f"{project_file.name}: {key}: goals the paper does not list: {unknown}")
        for index, printed_entry in enumerate(printed_entries):
            goal = goals[index]
            where = f"{project_file.name}: {key}: {goal!r}"
            printed = _strings(printed_entry.get("partial_questions", []), f"{paper_file.name}: {key}: {goal!r}")
            entry = own.get(goal)
            if entry is None:
                raise TaskSuiteError(f"{project_file.name}: {key}: the paper's goal {goal!r} is missing")
            source = QUESTIONS_PAPER if printed else QUESTIONS_PROJECT
            if key == "pixelhelp":
                sim_task, questions = _sim_task(entry, goal, printed, sim, where)
                out.append(PaperTask(key, index, goal, questions, source, sim_task))
                continue
            if printed and "questions" in entry:
                raise TaskSuiteError(f"{where}: the paper prints this goal's questions; the project adds none")
            questions = printed or _strings(entry.get("questions"), f"{where}: 'questions'")
            out.append(PaperTask(key, index, goal, questions, source))
    return tuple(out)


def pixelhelp_sim_tasks() -> tuple[SimTask, ...]:
    """The sim tasks that play the paper's PixelHelp goals (goal = the paper's string)."""
    return tuple(t.sim_task for t in load_paper_tasks() if t.sim_task is not None)
