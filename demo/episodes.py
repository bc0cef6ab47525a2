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

from latent_agent.agent.trajectory import (
    EpisodeEnd,
    EpisodeHeader,
    LatentState,
    LLMUsage,
    StepRecord,
    StopReason,
    TrajectoryWriter,
)
from latent_agent.benchmarks.sim_tasks import Action as SolutionStep
from latent_agent.benchmarks.sim_tasks import find_element, load_suite, perform
from latent_agent.device.base import Device
from latent_agent.errors import TaskSuiteError
from latent_agent.grounder.actions import (
    Action,
    Click,
    InputText,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    NavigateHome,
    OpenApp,
    Scroll,
    Wait,
)

NO_MISTAKES = "No mistakes have been made."


def _commanded(step: SolutionStep) -> str:
    words = {
        "tap": f"Click on \u201c{step.arg}\u201d", "long_press": f"Long press on \u201c{step.arg}\u201d",
        "scroll": f"Scroll {step.arg}", "scroll_to": f"Scroll down to \u201c{step.arg}\u201d",
        "type": f"Type \u201c{step.arg}\u201d", "key": f"Press {step.arg.capitalize()}",
        "open_app": f"Open the {step.arg} app", "launch": f"Open {step.arg.replace('_', ' ')}", "wait": "Wait",
    }
    return words[step.kind]


def _performed(step: SolutionStep) -> str:
    words = {
        "tap": f"Clicked on \u201c{step.arg}\u201d", "long_press": f"Long pressed on \u201c{step.arg}\u201d",
        "scroll": f"Scrolled {step.arg}", "scroll_to": f"Scrolled down to \u201c{step.arg}\u201d",
        "type": f"Typed \u201c{step.arg}\u201d", "key": f"Pressed {step.arg.capitalize()}",
        "open_app": f"Opened the {step.arg} app", "launch": f"Opened {step.arg.replace('_', ' ')}",
        "wait": "Waited",
    }
    return words[step.kind]


def _grounded(device: Device, step: SolutionStep) -> Action:
    """The grounder action equivalent to a scripted step, located on the current screen."""
    if step.kind in ("tap", "long_press"):
        node = find_element(device, step.arg)
        assert node.bounds is not None
        return Click(*node.bounds.center) if step.kind == "tap" else LongPress(*node.bounds.center)
    if step.kind in ("scroll", "scroll_to"):
        return Scroll("down" if step.kind == "scroll_to" else step.arg)  # type: ignore[arg-type]
    if step.kind == "type":
        return InputText(step.arg)
    if step.kind == "key":
        keys: dict[str, Action] = {"back": NavigateBack(), "home": NavigateHome(), "enter": KeyboardEnter()}
        return keys.get(step.arg, Wait())
    if step.kind == "open_app":
        return OpenApp(step.arg)
    if step.kind == "launch":
        return LaunchAdbActivity(step.arg)  # type: ignore[arg-type]
    return Wait()


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
        plan += [SolutionStep("scroll", "down"), SolutionStep("scroll", "up")]
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
            previous_action=_performed(plan[index - 1]) if index else None,
            screen_summary=_summary(device),
            progression="\n".join(f"{i}. {d}" for i, d in enumerate(done, 1)) or "Nothing has been done yet.",
            mistakes=NO_MISTAKES,
            completion="Yes, the goal is complete." if last else "No, the goal is not complete yet.",
        )
        action = None if last else _grounded(device, plan[index])
        writer.step(StepRecord(
            index=index, screen_file=screen, screenshot_file=shot, foreground_package=device.foreground_package(),
            description="", state=latent, selected_step="The task is complete." if last else _commanded(plan[index]),
            action=action, executed=not last,
        ))
        if not last:
            perform(device, plan[index])
            device.wait_for_idle()
            done.append(_performed(plan[index]))
    writer.end(EpisodeEnd(StopReason.COMPLETED, len(plan) + 1, 0.0, LLMUsage()))
    return directory
