"""Each method family on MiniWoB++ click-button, played by the scripted demo oracle, judged by the task's reward."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import TapStep
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.base import Device
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.device.task_env import task_device
from latent_agent.llm.scripted import ScriptedModel

#: click-button from seed 3 asks for its "no" button.
SEED = 3


def rewarded(phone: Device) -> bool:
    """The reflection methods' oracle feedback: the task's own reward."""
    judged = task_device(phone)
    return judged is not None and judged.task_reward().success


@pytest.mark.parametrize(("method", "observation"), [
    ("zero-shot+", "a11y"), ("zero-shot-", "a11y"), ("react+", "a11y"), ("reflection-check", "a11y"),
    ("exemplars", "a11y"), ("caap", "screen"),
])
def test_each_method_family_ends_with_the_tasks_reward(miniwob: MiniWobDevice, tmp_path: Path, method: str,
                                                       observation: str) -> None:
    goal = miniwob.load_task("click-button", SEED)
    assert goal == 'Click on the "no" button.'
    # The oracle follows a task's reference solution; this one is the page's: tap the button the goal names.
    task = Task(id="click-button", app="", goal=goal, success=(), partial=(), solution=(TapStep("no"),))
    client = ScriptedModel(responder=DemoOracle(tasks=[task]), model="demo")
    config = EpisodeConfig(goal=goal, method=method, max_steps=5, seed=SEED, observation=observation,
                           trial_check=rewarded, task_id="click-button")
    try:
        result = run_episode_sync(config, miniwob, client, tmp_path / "ep")
    finally:
        client.close()
    assert result.stop_reason is StopReason.TASK_ENDED, result.detail
    assert result.reward is not None and result.reward.success
    end = read_trajectory(tmp_path / "ep").end
    assert end is not None and end.reward == result.reward
