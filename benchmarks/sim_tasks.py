"""The simulated phone's task suite: loading and scoring (solutions are replayed by ``steps.replay``).

Tasks live in ``benchmarks/suites/sim_tasks.json``. Each has a goal in words,
success checks (all must hold), partial checks (progress markers) and a
reference solution: scripted steps (:mod:`latent_agent.benchmarks.steps`) that name
elements by their visible text or content description, so they survive layout changes::

    {"open_app": "Settings"}  {"tap": "Network & internet"}  {"scroll_to": "Private DNS"}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.benchmarks.steps import Step, step_from_json
from latent_agent.device.sim.checks import Check
from latent_agent.errors import TaskSuiteError

if TYPE_CHECKING:
    from latent_agent.device.sim.state import PhoneState

SCHEMA_VERSION = 1
SUITE = Path(__file__).parent / "suites" / "sim_tasks.json"


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

    def succeeded(self, state: PhoneState) -> bool:
        return all(c.holds(state) for c in self.success)

    def progress(self, state: PhoneState) -> float | None:
        """Partial completion in ``state``: the share of partial checks that hold, defined once in
        :func:`latent_agent.benchmarks.partial.partial_completion` (a success is not 1.0 by fiat;
        None without checks)."""
        from latent_agent.benchmarks.partial import partial_completion

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
            )
        )
    return tasks
