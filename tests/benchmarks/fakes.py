"""Episode runners for sweep tests that do not need the agent.

``ReplayRunner`` is the one scripted trajectory maker (:mod:`latent_agent.demo.episodes`) as a
sweep runner: it plays the task's reference solution (or a deviation from it) on the job's
phone, one step per action, calling ``on_step`` as the agent does, then stops with the stop
reason of its method (``completed`` for ``+`` methods, ``done`` for ``-``). What it does for a
task and method is decided by ``behaviour`` so tests can make ``+`` beat ``-``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from latent_agent.agent.trajectory import EpisodeHeader, LLMUsage, StopReason, TrajectoryWriter
from latent_agent.benchmarks.episodes import EpisodeJob
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.demo.episodes import Behaviour as ScriptBehaviour
from latent_agent.demo.episodes import record_script, solution_script
from latent_agent.errors import DeviceConnectionError

#: The scripted player's behaviours, and ``raise`` (the runner fails before the episode starts).
Behaviour = ScriptBehaviour | Literal["raise"]


def always_solve(task_id: str, method: str, seed: int) -> Behaviour:
    return "solve"


@dataclass
class ReplayRunner:
    """A scripted agent: see the module docstring.

    Attributes:
        behaviour: What to do for (task id, method, seed).
        step_delay_s: Sleep per step (stands in for the LLM wait).
        calls_per_step: LLM calls recorded per step.
    """

    behaviour: Callable[[str, str, int], Behaviour] = always_solve
    step_delay_s: float = 0.0
    calls_per_step: int = 2

    def __post_init__(self) -> None:
        self.tasks = {t.id: t for t in load_suite()}

    def __call__(self, job: EpisodeJob) -> Path:
        planned = job.planned
        what = self.behaviour(planned.task_id, planned.method, planned.seed)
        if what == "raise":
            raise DeviceConnectionError("adb connection reset by peer (simulated)")
        script, end, detail = solution_script(self.tasks[planned.task_id].solution, what, max_steps=job.max_steps)
        writer = TrajectoryWriter(job.out_dir, EpisodeHeader(
            episode_id=planned.key, goal=planned.goal, normalized_goal=planned.goal, method=planned.method,
            grounder=job.grounder, llm="fake", device="sim", max_steps=job.max_steps, started_at=time.time(),
            task_id=planned.task_id, seed=planned.seed))
        if end is None:
            end = StopReason.COMPLETED if planned.method.endswith("+") else StopReason.DONE
        record_script(writer, job.device, script, end=end, detail=detail, step_delay_s=self.step_delay_s,
                      usage_per_step=LLMUsage(calls=self.calls_per_step, prompt_tokens=100, output_tokens=10),
                      on_step=job.on_step)
        return job.out_dir
