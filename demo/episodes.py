"""Record trajectories on the simulated phone by replaying a task's reference solution.

No LLM is involved: the "agent" commands the solution's steps and its
latent-state estimates are written from what happened, in the style a
``+`` agent writes them. The trajectories are real ones in every other
respect (sim dumps and screenshots, grounded actions, the trajectory schema),
which makes them the material for demos, tests and the export benchmark of
the annotation pipeline.
"""

from __future__ import annotations

import time
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.agent.trajectory import (
    EpisodeEnd,
    EpisodeHeader,
    LatentState,
    LLMUsage,
    StepRecord,
    StopReason,
    TrajectoryWriter,
)
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.steps import ScrollStep, past_tense, perform, resolve, step_words
from latent_agent.device.base import Device
from latent_agent.errors import TaskSuiteError

NO_MISTAKES = "No mistakes have been made."


def _summary(device: Device) -> str:
    tree = device.hierarchy().tree
    labels = [n.text or n.content_desc for root in tree.roots for n in root.iter() if n.text or n.content_desc]
    shown = ", ".join(dict.fromkeys(labels[:8]))
    return f"A {device.foreground_package()} screen showing {shown}."


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
    from latent_agent.device.sim.device import SimDevice

    tasks = {t.id: t for t in load_suite()}
    if task_id not in tasks:
        raise TaskSuiteError(f"no sim task {task_id!r}")
    task = tasks[task_id]
    plan = list(task.solution)
    while len(plan) + 1 < min_steps:
        plan += [ScrollStep("down"), ScrollStep("up")]
    plan = plan[: max(len(task.solution), min_steps - 1)]
    device = SimDevice(seed=seed)
    header = EpisodeHeader(
        episode_id=episode_id or f"{task_id}-s{seed}", goal=task.goal, normalized_goal=task.goal, method=method,
        grounder="list", llm="scripted", device="sim", max_steps=len(plan) + 5, started_at=time.time(),
        task_id=task_id, seed=seed,
    )
    writer = TrajectoryWriter(directory, header)
    done: list[str] = []
    for index in range(len(plan) + 1):
        hierarchy = device.hierarchy()
        screen, shot = writer.save_screen(index, hierarchy.raw, device.screenshot())
        last = index == len(plan)
        latent = LatentState(
            previous_action=past_tense(step_words(plan[index - 1])) if index else None,
            screen_summary=_summary(device),
            progression="\n".join(f"{i}. {d}" for i, d in enumerate(done, 1)) or "Nothing has been done yet.",
            mistakes=NO_MISTAKES,
            completion="Yes, the goal is complete." if last else "No, the goal is not complete yet.",
        )
        action = None if last else resolve(plan[index], clean_tree(hierarchy.tree))
        writer.step(StepRecord(
            index=index, screen_file=screen, screenshot_file=shot, foreground_package=device.foreground_package(),
            description="", state=latent, selected_step="The task is complete." if last else step_words(plan[index]),
            action=action, executed=not last,
        ))
        if not last:
            perform(device, plan[index])
            device.wait_for_idle()
            done.append(past_tense(step_words(plan[index])))
    writer.end(EpisodeEnd(StopReason.COMPLETED, len(plan) + 1, 0.0, LLMUsage()))
    return directory
