"""Where forms get their content: the episodes of a run, and the tasks' suites.

A run directory is either one episode directory (it holds ``trajectory.jsonl``)
or any directory with episode directories below it, as a sweep writes them.
The benchmark of an episode and its partial-completion questions come from the
sweep's suite registry (:mod:`latent_agent.benchmarks.suite`), so forms, scores and the
sweep report name benchmarks alike (``sim``, ``aitw-webshop``...): a sweep's
``results.jsonl`` says which suite each episode ran; an episode outside a
sweep is looked up by its task id in the registered suites.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.trajectory import TRAJECTORY_FILE, Trajectory, read_trajectory
from latent_agent.benchmarks.results import EpisodeRecord, ResultsLog
from latent_agent.benchmarks.suite import SUITES, load_named_suite
from latent_agent.benchmarks.sweep import ATTEMPTS_DIR
from latent_agent.errors import AnnotationError, ConfigError, SweepStateError

#: Benchmark name of episodes whose task no suite defines.
CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class SuiteTask:
    """What a form needs to know about a task: its suite and partial-completion labels."""

    benchmark: str
    task_id: str
    goal: str
    partial: tuple[str, ...]


def find_episodes(run_dir: Path) -> list[Trajectory]:
    """Every episode under ``run_dir`` (itself included), in path order.

    Raises:
        AnnotationError: If ``run_dir`` is not a directory or holds no episode.
        InputError: If a trajectory is malformed (from :func:`read_trajectory`).
    """
    if not run_dir.is_dir():
        raise AnnotationError(f"{run_dir}: not a directory")
    if (run_dir / TRAJECTORY_FILE).is_file():
        return [read_trajectory(run_dir)]
    # In a sweep directory, interrupted attempts are kept under attempts/ for
    # inspection; they are not episodes of the sweep and must not be rated.
    found = sorted(p.parent for p in run_dir.rglob(TRAJECTORY_FILE)
                   if ATTEMPTS_DIR not in p.relative_to(run_dir).parts)
    if not found:
        raise AnnotationError(f"{run_dir}: no episode found (no {TRAJECTORY_FILE} in it or below it)")
    return [read_trajectory(p) for p in found]


class TaskIndex:
    """Finds the suite task of an episode, loading each registered suite once, when first needed."""

    def __init__(self) -> None:
        self._suites: dict[str, dict[str, SuiteTask]] = {}

    def _suite(self, name: str) -> dict[str, SuiteTask]:
        if name not in self._suites:
            suite = load_named_suite(name)
            self._suites[name] = {t.id: SuiteTask(suite.name, t.id, t.goal, t.partial_questions) for t in suite.tasks}
        return self._suites[name]

    def find(self, task_id: str | None, suite: str | None = None) -> SuiteTask | None:
        """The task ``task_id`` of ``suite`` (as a sweep recorded it), else of the first registered suite having it.

        Raises:
            TaskSuiteError: If a suite's data file is malformed.
        """
        if not task_id:
            return None
        if suite is not None:
            try:
                return self._suite(suite).get(task_id)
            except ConfigError:  # a suite this version no longer registers: fall back to the task id
                pass
        for name, source in SUITES.items():
            if not source.combines_others and task_id in self._suite(name):
                return self._suite(name)[task_id]
        return None


def sweep_records(run_dir: Path) -> list[EpisodeRecord]:
    """The records of the sweep's ``results.jsonl`` in ``run_dir``, in the order written (none outside a sweep).

    Read by the sweep's own reader (:class:`~latent_agent.benchmarks.results.ResultsLog`), so forms see the
    typed records the sweep report sees; a torn last line (a crash mid-write) is left out, as there.

    Raises:
        AnnotationError: If a complete line is not JSON or not an episode record.
    """
    try:
        return ResultsLog(run_dir).load()
    except SweepStateError as exc:
        raise AnnotationError(str(exc)) from None


def by_trajectory(records: Iterable[EpisodeRecord]) -> dict[str, EpisodeRecord]:
    """``records`` by their episode directory (relative to the sweep); a retried episode's last record wins."""
    return {Path(r.trajectory).as_posix(): r for r in records if r.trajectory}
