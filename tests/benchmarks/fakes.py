"""Episode runners for sweep tests that do not need the agent.

``ReplayRunner`` plays a scripted agent on the simulated phone: it performs the
task's reference solution (or a prefix of it), one step per action, writing a
real trajectory through :class:`latent_agent.agent.trajectory.TrajectoryWriter` and calling
``on_step`` as the agent does, then stops with the stop reason of its method
(``completed`` for ``+`` methods, ``done`` for ``-``). What it does for a task
and method is decided by ``behaviour`` so tests can make ``+`` beat ``-``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from latent_agent.agent.trajectory import EpisodeEnd, EpisodeHeader, LLMUsage, StepRecord, StopReason, TrajectoryWriter
from latent_agent.benchmarks.episodes import EpisodeJob
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.steps import perform, step_words
from latent_agent.errors import DeviceConnectionError

Behaviour = Literal["solve", "premature", "extra", "no_stop", "grounding", "device_crash", "raise"]


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
        task = self.tasks[planned.task_id]
        actions = list(task.solution)
        if what == "premature":
            actions = actions[: max(0, len(actions) - 1)]
        writer = TrajectoryWriter(job.out_dir, EpisodeHeader(
            episode_id=planned.key, goal=planned.goal, normalized_goal=planned.goal, method=planned.method,
            grounder=job.grounder, llm="fake", device="sim", max_steps=job.max_steps, started_at=time.time(),
            task_id=planned.task_id, seed=planned.seed))
        start = time.monotonic()
        usage = LLMUsage()
        index = 0

        def step(selected: str, *, act: Callable[[], None] | None, grounding_error: str | None = None) -> None:
            nonlocal index, usage
            if self.step_delay_s:
                time.sleep(self.step_delay_s)
            raw = job.device.hierarchy().raw
            screen, _ = writer.save_screen(index, raw, None)
            step_usage = LLMUsage(calls=self.calls_per_step, prompt_tokens=100, output_tokens=10)
            usage = usage + step_usage
            if act is not None:
                act()
                job.device.wait_for_idle()
            record = StepRecord(index=index, screen_file=screen, screenshot_file=None,
                                foreground_package=job.device.foreground_package(), description="",
                                state=None, selected_step=selected, executed=act is not None,
                                grounding_error=grounding_error, usage=step_usage)
            writer.step(record)
            if job.on_step is not None:
                job.on_step(record)
            index += 1

        if what == "grounding":
            step("tap the thing", act=None, grounding_error="no element matches 'the thing'")
        if what == "device_crash":
            step(step_words(actions[0]), act=lambda: perform(job.device, actions[0]))
            writer.end(EpisodeEnd(StopReason.DEVICE_ERROR, index, time.monotonic() - start, usage,
                                  detail="device went offline"))
            return job.out_dir
        for action in actions:
            step(step_words(action), act=lambda a=action: perform(job.device, a))  # type: ignore[misc]
        if what == "extra":
            step("scroll down", act=lambda: job.device.scroll("down"))
            step("scroll up", act=lambda: job.device.scroll("up"))
        if what == "no_stop":
            while index < job.max_steps:
                step("wait", act=lambda: None)
            reason = StopReason.MAX_STEPS
        else:
            step("done", act=None)
            reason = StopReason.COMPLETED if planned.method.endswith("+") else StopReason.DONE
        writer.end(EpisodeEnd(reason, index, time.monotonic() - start, usage))
        return job.out_dir
