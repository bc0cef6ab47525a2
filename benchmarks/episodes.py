"""Running one planned episode and turning its trajectory into an :class:`EpisodeRecord`.

The sweep calls an :data:`EpisodeRunner` with an :class:`EpisodeJob`; the
default runner is the agent (:func:`agent_runner`), tests inject others. A
runner writes a trajectory (``agent/trajectory.py``) and returns its
directory; everything the record says is read back from that trajectory and,
for the simulated phone, from the phone's state (automatic checks).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.agent.trajectory import StopReason
from latent_agent.benchmarks.results import SELF_STOPS, EpisodeRecord, EpisodeStatus, PartialAnswer, StopJudgement
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.task_env import task_device
from latent_agent.errors import DeviceError, LLMBudgetExceededError, LLMError

if TYPE_CHECKING:
    from latent_agent.agent.trajectory import StepRecord, Trajectory
    from latent_agent.benchmarks.plan import PlannedEpisode
    from latent_agent.benchmarks.suite import BenchmarkTask
    from latent_agent.device.base import Device

#: Stop reasons after which the episode counts as run (anything else is an errored episode).
FINISHED_REASONS = frozenset({*SELF_STOPS, StopReason.GAVE_UP, StopReason.MAX_STEPS, StopReason.METHOD_CAP,
                              StopReason.REPEATED_ACTIONS, StopReason.TASK_ENDED})
#: Error kind of the stop reasons that end an episode without a result.
ERROR_KINDS = {StopReason.DEVICE_ERROR: "device", StopReason.LLM_ERROR: "llm",
               StopReason.BUDGET_EXHAUSTED: "budget", StopReason.INTERRUPTED: "interrupted"}


def error_kind(exc: BaseException) -> str:
    """``device``, ``budget``, ``llm`` or ``runner`` for an exception a runner raised."""

    if isinstance(exc, DeviceError):
        return "device"
    if isinstance(exc, LLMBudgetExceededError):
        return "budget"
    return "llm" if isinstance(exc, LLMError) else "runner"


@dataclass(frozen=True, slots=True)
class EpisodeJob(EpisodeSettings):
    """Everything a runner needs for one episode: the sweep's settings
    (:class:`~latent_agent.agent.settings.EpisodeSettings`: ``max_steps``, ``grounder``, ``stop_rule``,
    ``name_icons``, ``resources``) and the episode they are given to.

    Attributes:
        planned: The planned episode (task id, method, seed, goal).
        device: The device, already reset.
        client: The LLM client of this worker.
        out_dir: Directory to write the trajectory into (does not exist yet).
        screenshots: Whether steps save screenshots.
        on_step: Call after each step's action was executed, with its step record.
        trial_check: The task's automatic check (:func:`latent_agent.benchmarks.launch.trial_check`, the rule
            ``run`` follows too); None where there is none.
        reset_snapshot: The emulator snapshot the resets between a retrying method's trials load
            (``sweep --snapshot``, as before every episode), or None.
    """

    planned: PlannedEpisode
    device: Device
    client: Any
    out_dir: Path
    screenshots: bool = True
    on_step: Callable[[StepRecord], None] | None = None
    trial_check: Callable[[Device], bool] | None = None
    reset_snapshot: str | None = None


#: Runs one episode; returns the directory that holds its trajectory.
EpisodeRunner = Callable[[EpisodeJob], Path]


def agent_runner(job: EpisodeJob) -> Path:
    """The real runner: :func:`latent_agent.agent.episode.run_episode_sync` with the job's settings.

    It runs on the worker's own client (and that client's event loop), so workers share nothing but
    the budget and the accountant their clients were given.
    """

    # The sweep's settings, less icon naming on the dump (it reads icons from the screenshot).
    settings = replace(job.settings, name_icons=job.name_icons and job.planned.observation != "a11y")
    config = EpisodeConfig(goal=job.planned.goal, method=job.planned.method, task_id=job.planned.task_id,
                           seed=job.planned.seed, screenshots=job.screenshots, trial_check=job.trial_check,
                           reset_snapshot=job.reset_snapshot, observation=job.planned.observation,
                           **settings.as_kwargs())
    result = run_episode_sync(config, job.device, job.client, job.out_dir, on_step=job.on_step)
    return Path(result.directory)


class SuccessTracker:
    """Watches the simulated phone after every step: the first step after which the task held as done."""

    def __init__(self, task: BenchmarkTask, device: Device) -> None:
        self.task = task
        self.device = device
        self.success_step: int | None = None
        self.steps_seen = 0

    def __call__(self, step: StepRecord) -> None:
        self.steps_seen += 1
        state = _sim_state(self.device)
        if self.success_step is None and state is not None and self.task.sim_task is not None \
                and self.task.sim_task.succeeded(state):
            self.success_step = step.index


def _sim_state(device: Device) -> Any:

    return device.state if isinstance(device, SimDevice) else None


def judge_stop(self_stopped: bool, success: bool | None, steps: int, success_step: int | None) -> StopJudgement | None:
    """When the agent stopped relative to when the task was done, where that can be told automatically.

    The step that stops records no action, so stopping right after the task became
    done means ``steps == success_step + 2``.
    """
    if not self_stopped:
        return StopJudgement.DID_NOT_STOP
    if success is None:
        return None
    if not success:
        return StopJudgement.PREMATURE
    if success_step is None:
        return None
    return StopJudgement.RIGHT_TIME if steps <= success_step + 2 else StopJudgement.EXTRA_STEPS


def judge_hosted_stop(self_stopped: bool, done: bool) -> StopJudgement:
    """When an episode of a hosted task stopped, relative to the task's own end.

    The task's end ends the episode (as in the papers' harnesses), so an episode that reached it stopped
    at the right time; one the agent stopped before it stopped prematurely; one stopped by the step limit
    or the repeat rule before it did not stop.
    """
    if done:
        return StopJudgement.RIGHT_TIME
    return StopJudgement.PREMATURE if self_stopped else StopJudgement.DID_NOT_STOP


def record_from_trajectory(*, planned: PlannedEpisode, suite: str, task: BenchmarkTask, device: Device,
                           device_name: str, attempt: int, trajectory: Trajectory, relative_dir: str,
                           tracker: SuccessTracker | None) -> EpisodeRecord:
    """Score a finished trajectory: a hosted task's own reward, automatic checks on the sim, rater
    placeholders elsewhere.

    Raises:
        DeviceError: A hosted task's device does not report its reward.
    """
    end = trajectory.end
    steps = trajectory.steps
    common: dict[str, Any] = {
        "key": planned.key, "suite": suite, "task_id": planned.task_id, "goal": planned.goal,
        "method": planned.method, "seed": planned.seed, "device": device_name, "attempt": attempt,
        "trajectory": relative_dir, "grounding_errors": sum(1 for s in steps if s.grounding_error),
    }
    if end is None:
        return EpisodeRecord(**common, status=EpisodeStatus.ERROR, success=None, steps=len(steps), error_kind="runner",
                             error="the trajectory has no end record (the runner stopped without finishing it)")
    usage = end.usage
    common.update(stop_reason=end.stop_reason, steps=end.steps, llm_calls=usage.calls,
                  prompt_tokens=usage.prompt_tokens, output_tokens=usage.output_tokens, duration_s=end.duration_s)
    if end.stop_reason not in FINISHED_REASONS:
        return EpisodeRecord(**common, status=EpisodeStatus.ERROR, success=None,
                             error=f"{end.stop_reason.value}: {end.detail}".rstrip(": "),
                             error_kind=ERROR_KINDS.get(end.stop_reason, "runner"))
    self_stopped = end.stop_reason in SELF_STOPS

    host = task_device(device) if task.hosted is not None else None
    if host is not None:
        # The page's own judgement and nothing of ours (as the episode recorded it when it ended, else as the
        # page reports it now); a stop before the task ended is a failure.
        reward = end.reward if end.reward is not None else host.task_reward()
        return EpisodeRecord(
            **common, status=EpisodeStatus.FINISHED, success=reward.success, raw_reward=reward.raw,
            time_scaled_reward=reward.time_scaled,
            stop_judgement=judge_hosted_stop(self_stopped, reward.done),
        )
    state = _sim_state(device)
    if task.sim_task is not None and state is not None:
        success: bool | None = task.sim_task.succeeded(state)
        partial = tuple(PartialAnswer(c.describe(), c.holds(state)) for c in task.sim_task.partial)
        success_step = tracker.success_step if tracker is not None and tracker.steps_seen else None
    else:
        success = None
        partial = tuple(PartialAnswer(q, None) for q in task.partial_questions)
        success_step = None
    return EpisodeRecord(
        **common, status=EpisodeStatus.FINISHED, success=success, partial=partial,
        stop_judgement=judge_stop(self_stopped, success, end.steps, success_step), success_step=success_step,
    )


def errored_record(*, planned: PlannedEpisode, suite: str, device_name: str, attempt: int, relative_dir: str,
                   exc: BaseException, out_dir: Path) -> EpisodeRecord:
    """The record of an episode whose runner raised; the traceback goes to ``OUT_DIR/error.txt``."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "error.txt").write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:  # the record below still carries the reason
        pass
    return EpisodeRecord(
        key=planned.key, suite=suite, task_id=planned.task_id, goal=planned.goal, method=planned.method,
        seed=planned.seed, device=device_name, attempt=attempt, status=EpisodeStatus.ERROR, success=None,
        error=f"{type(exc).__name__}: {exc}", error_kind=error_kind(exc), trajectory=relative_dir,
    )
