"""The one scripted trajectory maker: a task's reference solution played on a phone and recorded.

No LLM is involved: the "agent" commands scripted steps (:mod:`latent_agent.benchmarks.steps`),
each said in the selectors' words, and performs them through the agent's own dispatch. The
trajectories are real ones in every other respect (dumps, screenshots, grounded actions, the
trajectory schema), which makes them the material for demos, the annotation pipeline's tests
and export benchmark (:func:`record_sim_episode`, latent-state estimates written in the style a
``+`` agent writes them), and the sweep tests' scripted runners (``tests/benchmarks/fakes.py``,
with the failure behaviours of :func:`solution_script`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from latent_agent.agent.latent_state.state import LatentState
from latent_agent.agent.trajectory import (
    EpisodeEnd,
    EpisodeHeader,
    LLMUsage,
    StepRecord,
    StopReason,
    TrajectoryWriter,
)
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.steps import ScrollStep, Step, WaitStep, past_tense, perform, step_words
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import TaskSuiteError

NO_MISTAKES = "No mistakes have been made."
#: What a scripted episode's last step says when the solution is done.
COMPLETE = "The task is complete."

#: How a scripted player deviates from the solution: ``solve`` plays it all; ``premature`` stops one
#: step short; ``extra`` scrolls down and up after it; ``no_stop`` waits until the step limit;
#: ``grounding`` begins with a step that cannot be grounded; ``device_crash`` loses the device after
#: the first step.
Behaviour = Literal["solve", "premature", "extra", "no_stop", "grounding", "device_crash"]


@dataclass(frozen=True, slots=True)
class ScriptedStep:
    """One step of a scripted episode.

    Attributes:
        words: The step as a selector would have said it.
        step: What is performed; None when nothing is (the final step, an ungroundable one).
        grounding_error: Why nothing could be grounded, for a step that is not performed.
    """

    words: str
    step: Step | None = None
    grounding_error: str | None = None


def solution_script(solution: Sequence[Step], behaviour: Behaviour = "solve", *, max_steps: int = 20,
                    final: str = "done") -> tuple[tuple[ScriptedStep, ...], StopReason | None, str]:
    """The script of a player that follows ``solution`` with ``behaviour``.

    Returns:
        The steps, the stop reason that ends the episode (None: the method's own stop, which the
        caller knows) and its detail.
    """
    played = [ScriptedStep(step_words(s), s) for s in solution]
    if behaviour == "device_crash":
        return tuple(played[:1]), StopReason.DEVICE_ERROR, "device went offline"
    if behaviour == "premature":
        played = played[:-1]
    if behaviour == "grounding":
        played.insert(0, ScriptedStep("tap the thing", grounding_error="no element matches 'the thing'"))
    if behaviour == "extra":
        played += [ScriptedStep("Scroll down", ScrollStep("down")), ScriptedStep("Scroll up", ScrollStep("up"))]
    if behaviour == "no_stop":
        played += [ScriptedStep("Wait", WaitStep())] * max(0, max_steps - len(played))
        return tuple(played), StopReason.MAX_STEPS, f"reached the step limit ({max_steps})"
    return (*played, ScriptedStep(final)), None, ""


def _summary(device: Device) -> str:
    tree = device.hierarchy().tree
    labels = [n.text or n.content_desc for root in tree.roots for n in root.iter() if n.text or n.content_desc]
    shown = ", ".join(dict.fromkeys(labels[:8]))
    return f"A {device.foreground_package()} screen showing {shown}."


def record_script(
    writer: TrajectoryWriter,
    device: Device,
    script: Sequence[ScriptedStep],
    *,
    end: StopReason,
    detail: str = "",
    latent: bool = False,
    screenshots: bool = False,
    usage_per_step: LLMUsage | None = None,
    step_delay_s: float = 0.0,
    on_step: Callable[[StepRecord], None] | None = None,
) -> None:
    """Play ``script`` on ``device`` and record every step, then the end, through ``writer``.

    Each step observes the screen, performs its scripted step (if any) and is then recorded and
    handed to ``on_step``, as the agent's steps are.

    Args:
        writer: The episode's writer (its header written).
        device: The phone, in the state the episode starts from.
        script: The steps.
        end: The stop reason recorded at the end.
        detail: Its detail.
        latent: Write latent-state estimates in the style a ``+`` agent writes them.
        screenshots: Save a screenshot per step.
        usage_per_step: LLM cost recorded for each step (none by default: no model is asked).
        step_delay_s: Sleep per step (stands in for the model's wait).
        on_step: Called with each step's record after it is written.

    Raises:
        ElementNotFoundError: A scripted step's element is not on the screen.
        DeviceError: The device failed.
    """
    start = time.monotonic()
    usage = usage_per_step or LLMUsage()
    done: list[str] = []
    for index, scripted in enumerate(script):
        if step_delay_s:
            time.sleep(step_delay_s)
        hierarchy = device.hierarchy()
        screen, shot = writer.save_screen(index, hierarchy.raw, device.screenshot() if screenshots else None)
        package = device.foreground_package()
        state = None
        if latent:
            state = LatentState(
                previous_action=past_tense(script[index - 1].words) if index else None,
                screen_summary=_summary(device),
                progression="\n".join(f"{i}. {d}" for i, d in enumerate(done, 1)) or "Nothing has been done yet.",
                mistakes=NO_MISTAKES,
                completion="No, the goal is not complete yet." if scripted.step else "Yes, the goal is complete.",
            )
        sent = perform(device, scripted.step) if scripted.step is not None else ()
        if scripted.step is not None:
            device.wait_for_idle()
            done.append(past_tense(scripted.words))
        record = StepRecord(
            index=index, screen_file=screen, screenshot_file=shot, foreground_package=package, description="",
            state=state, selected_step=scripted.words, action=sent[0] if sent else None,
            executed=scripted.step is not None, grounding_error=scripted.grounding_error, usage=usage,
        )
        writer.step(record)
        if on_step is not None:
            on_step(record)
    total = LLMUsage()
    for _ in script:
        total = total + usage
    writer.end(EpisodeEnd(end, len(script), time.monotonic() - start, total, detail))


def record_sim_episode(
    directory: Path,
    task_id: str,
    *,
    seed: int = 0,
    method: str = "+ZS",
    min_steps: int = 0,
    episode_id: str | None = None,
) -> Path:
    """Replay ``task_id``'s reference solution on a :class:`SimDevice` and record the trajectory.

    Args:
        directory: New episode directory.
        task_id: A task of the sim suite.
        seed: Simulator seed.
        method: Method name written in the header.
        min_steps: Pad the episode with scroll-down/scroll-up pairs after the
            solution until it has at least this many steps.
        episode_id: Header id (default: ``<task_id>-s<seed>``).

    Returns:
        ``directory``.

    Raises:
        TaskSuiteError: If the task does not exist.
    """
    tasks = {t.id: t for t in load_suite()}
    if task_id not in tasks:
        raise TaskSuiteError(f"no sim task {task_id!r}")
    task = tasks[task_id]
    plan: list[Step] = list(task.solution)
    while len(plan) + 1 < min_steps:
        plan += [ScrollStep("down"), ScrollStep("up")]
    plan = plan[: max(len(task.solution), min_steps - 1)]
    script, _, _ = solution_script(plan, final=COMPLETE)
    header = EpisodeHeader(
        episode_id=episode_id or f"{task_id}-s{seed}", goal=task.goal, normalized_goal=task.goal, method=method,
        grounder="list", llm="scripted", device="sim", max_steps=len(script) + 4, started_at=time.time(),
        task_id=task_id, seed=seed,
    )
    record_script(TrajectoryWriter(directory, header), SimDevice(seed=seed), script, end=StopReason.COMPLETED,
                  latent=True, screenshots=True)
    return directory
