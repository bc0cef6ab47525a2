"""CAAP demonstrations from recorded episodes: the successful train-seed episodes of a sweep.

CAAP's demonstrations were recorded by a person on seeds apart from the evaluated ones. A MiniWoB++ task
has no reference solution to replay, so its demonstrations are the episodes of a sweep on the task's train
seeds (3000-3999) that the page's reward judged successful, whichever method played them. An episode is
taken when harvesting would take it for an exemplar memory (:class:`~latent_agent.benchmarks.harvest.
TaskOrigins`: finished, successful, in the ``train`` split; never an evaluation seed or a held-out task).
Each executed step of its last trial becomes one action in script form: the catalogue function, the
attributes of the listed element under the action's point on the screen the step was decided on (read
back from the saved dump), and its other arguments; the element lists before and after it come from the
same dumps (after the last action the task had ended, and no screen was recorded: the list is empty).
One demonstration is kept per task and goal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.load import parse_any
from latent_agent.agent.caap.demos import TaskInfo
from latent_agent.agent.caap.elements import UIElement, build_elements
from latent_agent.agent.caap.scripts import script_action
from latent_agent.agent.episode import MAX_GOAL_CHARS
from latent_agent.agent.episode_files import check_trajectory_size, read_screen, screen_path
from latent_agent.agent.trajectory import StepRecord, Trajectory, read_trajectory
from latent_agent.benchmarks.demos import RecordedAction, RecordedDemo
from latent_agent.benchmarks.harvest import TaskOrigins, episode_directory
from latent_agent.benchmarks.results import RESULTS_FILE, EpisodeStatus, ResultsLog, latest
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.errors import InputError, SweepStateError


@dataclass(frozen=True, slots=True)
class EpisodeDemos:
    """The demonstrations recorded from sweeps, the tasks they came from, and how many episodes were skipped why."""

    demos: tuple[RecordedDemo, ...]
    tasks: tuple[TaskInfo, ...]
    skipped: Counter[str]


def _elements(trajectory: Trajectory, step: StepRecord) -> tuple[UIElement, ...]:
    raw = read_screen(trajectory.directory, step)  # inside the episode, and not larger than a screen
    return build_elements(clean_tree(parse_any(raw, source=str(screen_path(trajectory.directory, step)))))


def record_episode(trajectory: Trajectory, task_id: str, family: str | None) -> RecordedDemo:
    """The demonstration an episode's last trial gives.

    Raises:
        InputError: The trajectory names a screen outside its folder, or executed nothing.
        ParseError: A screen dump cannot be parsed.
        OSError: A screen dump cannot be read.
    """
    last = max((s.trial for s in trajectory.steps), default=0)
    steps = [s for s in trajectory.steps
             if s.trial == last and s.executed and s.action is not None and s.execution_error is None]
    if not steps:
        raise InputError(f"{trajectory.directory}: the episode executed no step")
    screens = [_elements(trajectory, s) for s in steps]
    actions = []
    for i, step in enumerate(steps):
        assert step.action is not None
        after = screens[i + 1] if i + 1 < len(screens) else ()
        actions.append(RecordedAction(script_action(step.action, screens[i]), screens[i], after))
    return RecordedDemo(task_id, trajectory.header.goal, family, tuple(actions))


def demos_from_sweeps(runs: Sequence[Path]) -> EpisodeDemos:
    """The demonstrations of the successful train-split episodes of the sweeps ``runs``.

    Raises:
        SweepStateError: A directory is not a sweep, or it names a trajectory outside it (as ``report`` refuses).
    """
    known = TaskOrigins(load_suite())
    demos: list[RecordedDemo] = []
    tasks: dict[str, TaskInfo] = {}
    seen: set[tuple[str, str]] = set()
    skipped: Counter[str] = Counter()
    for run in runs:
        if not (run / RESULTS_FILE).is_file():
            raise SweepStateError(f"{run} is not a sweep directory (it has no {RESULTS_FILE})")
        for record in sorted(latest(ResultsLog(run).load()).values(), key=lambda r: r.key):
            origin = known.origin(record)
            if record.status is not EpisodeStatus.FINISHED or not record.success:
                skipped["not a success"] += 1
                continue
            if origin is None or origin.split != "train":
                skipped["not a train-split episode"] += 1
                continue
            directory = episode_directory(run, record)  # refuses the sweep when it leads outside
            try:
                check_trajectory_size(directory)
                trajectory = read_trajectory(directory)
                if len(trajectory.header.goal) > MAX_GOAL_CHARS:
                    skipped["goal longer than a run accepts"] += 1
                    continue
                if (record.task_id, trajectory.header.goal) in seen:
                    skipped["same task and goal as a demonstration kept"] += 1
                    continue
                demo = record_episode(trajectory, record.task_id, origin.family)
            except (InputError, OSError) as exc:
                skipped[f"unreadable ({type(exc).__name__})"] += 1
                continue
            seen.add((record.task_id, demo.goal))
            demos.append(demo)
            tasks.setdefault(record.task_id, TaskInfo(record.task_id, demo.goal, origin.family))
    return EpisodeDemos(tuple(demos), tuple(tasks.values()), skipped)
