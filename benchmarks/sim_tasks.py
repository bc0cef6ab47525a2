"""The simulated phone's task suite: loading and scoring (solutions are replayed by ``steps.replay``).

Tasks live in ``benchmarks/suites/sim_tasks.json``. Each has a goal in words,
success checks (all must hold), partial checks (progress markers) and a
reference solution: scripted steps (:mod:`latent_agent.benchmarks.steps`) that name
elements by their visible text or content description, so they survive layout changes::

    {"open_app": "Settings"}  {"tap": "Network & internet"}  {"scroll_to": "Private DNS"}

For the exemplar-memory protocol (``--method exemplars``) each task also names its ``family`` (the
task template it is an instance of: tasks of one family share their navigation), its ``split``
(``train``: exemplars may be harvested from its episodes; ``eval``: evaluated with the exemplars of its
family's ``train`` tasks; ``heldout``: a family with no ``train`` task at all, the published "novel
tasks") and ``goal_variants`` (the same request in other words: more retrieval keys for a ``train``
task, paraphrased queries for the others). All three are optional in a suite file; the shipped suite
gives every task a family and a split.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.benchmarks.partial import partial_completion
from latent_agent.benchmarks.steps import Step, step_from_json
from latent_agent.device.sim.checks import Check
from latent_agent.errors import TaskSuiteError

if TYPE_CHECKING:
    from latent_agent.device.sim.state import PhoneState

SCHEMA_VERSION = 1
SUITE = Path(__file__).parent / "suites" / "sim_tasks.json"
#: The splits of the exemplar protocol, in the order reports list them.
SPLITS = ("train", "eval", "heldout")


@dataclass(frozen=True, slots=True)
class Task:
    """One task of the suite."""

    id: str
    app: str
    goal: str
    success: tuple[Check, ...]
    partial: tuple[Check, ...]
    solution: tuple[Step, ...]
    tags: tuple[str, ...] = ()
    family: str | None = None
    split: str | None = None
    goal_variants: tuple[str, ...] = ()

    def succeeded(self, state: PhoneState) -> bool:
        return all(c.holds(state) for c in self.success)

    def progress(self, state: PhoneState) -> float | None:
        """Partial completion in ``state``: the share of partial checks that hold, defined once in
        :func:`latent_agent.benchmarks.partial.partial_completion` (a success is not 1.0 by fiat;
        None without checks)."""
        return partial_completion(c.holds(state) for c in self.partial)


def load_suite(path: Path | str = SUITE) -> list[Task]:
    """Read and validate a task-suite file.

    Raises:
        TaskSuiteError: For unreadable JSON, a wrong schema version, duplicate ids
            or a malformed task.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskSuiteError(f"{path}: cannot read task suite ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
        raise TaskSuiteError(f"{path}: expected schema_version {SCHEMA_VERSION}")
    tasks: list[Task] = []
    seen: set[str] = set()
    for i, raw in enumerate(doc.get("tasks", [])):
        where = f"{path.name}: task {i}"
        if not isinstance(raw, dict):
            raise TaskSuiteError(f"{where}: must be an object")
        for key in ("id", "app", "goal"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise TaskSuiteError(f"{where}: missing string {key!r}")
        where = f"{path.name}: task {raw['id']!r}"
        if raw["id"] in seen:
            raise TaskSuiteError(f"{where}: duplicate id")
        seen.add(raw["id"])
        success = tuple(Check.from_json(c, f"{where} success") for c in raw.get("success", []))
        family, split, variants = _protocol_fields(raw, where)
        if not success:
            raise TaskSuiteError(f"{where}: needs at least one success check")
        tasks.append(
            Task(
                id=raw["id"],
                app=raw["app"],
                goal=raw["goal"],
                success=success,
                partial=tuple(Check.from_json(c, f"{where} partial") for c in raw.get("partial", [])),
                solution=tuple(step_from_json(a, f"{where} solution") for a in raw.get("solution", [])),
                tags=tuple(str(t) for t in raw.get("tags", [])),
                family=family,
                split=split,
                goal_variants=variants,
            )
        )
    _check_splits(tasks, path)
    return tasks


def _protocol_fields(raw: dict[str, object], where: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """A task's ``family``, ``split`` and ``goal_variants``, validated (each optional)."""
    raw_family, raw_split, variants = raw.get("family"), raw.get("split"), raw.get("goal_variants", [])
    family = raw_family if isinstance(raw_family, str) and raw_family.strip() else None
    split = raw_split if isinstance(raw_split, str) and raw_split in SPLITS else None
    if raw_family is not None and family is None:
        raise TaskSuiteError(f"{where}: 'family' must be a non-empty string")
    if raw_split is not None and split is None:
        raise TaskSuiteError(f"{where}: 'split' must be one of {', '.join(SPLITS)}, got {raw_split!r}")
    if split is not None and family is None:
        raise TaskSuiteError(f"{where}: a task with a split needs a family")
    if not isinstance(variants, list) or not all(isinstance(v, str) and v.strip() for v in variants):
        raise TaskSuiteError(f"{where}: 'goal_variants' must be a list of non-empty strings")
    return family, split, tuple(str(v) for v in variants)


def _check_splits(tasks: list[Task], path: Path) -> None:
    """A held-out family is held out whole, and an evaluated family has a task to learn from.

    Raises:
        TaskSuiteError: A family mixes ``heldout`` with another split, or has ``eval`` tasks and no ``train`` one.
    """
    splits: dict[str, set[str]] = {}
    for task in tasks:
        if task.family is not None and task.split is not None:
            splits.setdefault(task.family, set()).add(task.split)
    for family, found in sorted(splits.items()):
        if "eval" in found and "train" not in found:
            raise TaskSuiteError(f"{path.name}: family {family!r} has eval tasks but no train task to take exemplars "
                                 "from; make it heldout")
        if "heldout" in found and len(found) > 1:
            others = ", ".join(sorted(found - {"heldout"}))
            raise TaskSuiteError(f"{path.name}: family {family!r} mixes heldout with {others}; a held-out family "
                                 "has no exemplars, so all of its tasks are held out")
