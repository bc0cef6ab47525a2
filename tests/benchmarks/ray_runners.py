"""Module-level runners for the Ray sweep tests (``--runner tests.benchmarks.ray_runners:NAME``): they run in the
device actors, in the worker processes of a Ray cluster on this machine."""

from __future__ import annotations

import os
from pathlib import Path

from latent_agent.benchmarks.episodes import EpisodeJob
from tests.benchmarks.fakes import ReplayRunner

#: The folder (set before the cluster starts, so its worker processes inherit it) where ``crash_once`` marks
#: the episodes it crashed.
CRASH_DIR = "LATENT_AGENT_TEST_CRASH_DIR"
#: The task whose episodes ``crash_once`` crashes the first time.
CRASHING_TASK = "clock_alarm_6am"

#: Solves every task, 0.2 s per step (about a second per episode), so a node or a driver is taken away while
#: episodes run.
slow = ReplayRunner(step_delay_s=0.2)
_solve = ReplayRunner(step_delay_s=0.05)


def crash_once(job: EpisodeJob) -> Path:
    """Solve the task, except the first time an episode of :data:`CRASHING_TASK` runs: then the process dies at
    once (as a crashing device library would take its actor with it)."""
    if job.planned.task_id == CRASHING_TASK:
        marker = Path(os.environ[CRASH_DIR]) / job.planned.key
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(3)
    return _solve(job)


def crash_always(job: EpisodeJob) -> Path:
    """Solve the task, except an episode of :data:`CRASHING_TASK`, which crashes its process every time."""
    if job.planned.task_id == CRASHING_TASK:
        os._exit(3)
    return _solve(job)
