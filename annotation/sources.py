"""Where forms get their content: the episodes of a run, and the tasks' suites.

A run directory is either one episode directory (it holds ``trajectory.jsonl``)
or any directory with episode directories below it, as a sweep writes them.
Partial-completion questions come from the suite that defines the episode's
task: every ``benchmarks/suites/*.json`` file with ``{"tasks": [{"id": ...,
"partial": [...]}]}`` is searched, a partial entry being either a check
object with a ``"label"`` or a plain string.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agent.trajectory import TRAJECTORY_FILE, Trajectory, read_trajectory
from latent_agent.errors import AnnotationError, TaskSuiteError

SUITES_DIR = Path(__file__).resolve().parent.parent / "benchmarks" / "suites"
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
    from benchmarks.sweep import ATTEMPTS_DIR

    found = sorted(p.parent for p in run_dir.rglob(TRAJECTORY_FILE)
                   if ATTEMPTS_DIR not in p.relative_to(run_dir).parts)
    if not found:
        raise AnnotationError(f"{run_dir}: no episode found (no {TRAJECTORY_FILE} in it or below it)")
    return [read_trajectory(p) for p in found]


def _partial_label(raw: object, where: str) -> str:
    if isinstance(raw, str) and raw.strip():
        return raw.strip()
    if isinstance(raw, dict):
        label = raw.get("label") or raw.get("question")
        if isinstance(label, str) and label.strip():
            return label.strip()
    raise TaskSuiteError(f"{where}: a partial-completion entry needs a non-empty label, got {raw!r}")


def load_suite_tasks(suites_dir: Path = SUITES_DIR) -> dict[str, SuiteTask]:
    """Index every task of every suite file by id.

    Raises:
        TaskSuiteError: For an unreadable suite file or a task id defined twice.
    """
    tasks: dict[str, SuiteTask] = {}
    for path in sorted(suites_dir.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise TaskSuiteError(f"{path}: cannot read task suite ({exc})") from None
        raw_tasks = doc.get("tasks") if isinstance(doc, dict) else None
        if not isinstance(raw_tasks, list):
            continue  # not a task suite (some suite files hold other tables)
        benchmark = str(doc.get("name") or path.stem)
        for n, raw in enumerate(raw_tasks):
            if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
                raise TaskSuiteError(f"{path.name}: task {n} has no string id")
            task_id = raw["id"]
            where = f"{path.name}: task {task_id!r}"
            if task_id in tasks:
                raise TaskSuiteError(f"{where}: also defined in suite {tasks[task_id].benchmark!r}")
            partial = tuple(_partial_label(p, where) for p in raw.get("partial") or ())
            tasks[task_id] = SuiteTask(benchmark, task_id, str(raw.get("goal", "")), partial)
    return tasks


RESULTS_FILE = "results.jsonl"


def episode_keys(run_dir: Path) -> dict[str, str]:
    """Sweep episode keys by trajectory directory (relative to ``run_dir``), from ``results.jsonl``.

    Lines without a string ``key`` and ``trajectory`` (errored episodes) are
    skipped; a retried episode's last line wins.

    Raises:
        AnnotationError: If the file exists but a line is not JSON.
    """
    path = run_dir / RESULTS_FILE
    if not path.is_file():
        return {}
    keys: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnnotationError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            continue
        key, trajectory = obj.get("key"), obj.get("trajectory")
        if isinstance(key, str) and isinstance(trajectory, str) and trajectory:
            keys[Path(trajectory).as_posix()] = key
    return keys
