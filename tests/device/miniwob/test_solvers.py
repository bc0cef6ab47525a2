"""MiniWoB++ judged by its own reward: scripted solvers reach raw reward 1.0; a wrong tap fails."""

from __future__ import annotations

import pytest

from latent_agent.device.miniwob.device import MiniWobDevice
from tests.device.miniwob.conftest import open_device
from tests.device.miniwob.solvers import SOLVERS, find, solve, tap

SEEDS = range(1000, 1005)


@pytest.mark.parametrize("task", list(SOLVERS))
def test_the_reference_solver_reaches_full_reward_on_every_seed(miniwob: MiniWobDevice, task: str) -> None:
    rewards = {seed: solve(miniwob, task, seed) for seed in SEEDS}
    failed = {seed: r for seed, r in rewards.items() if not (r.done and r.raw == 1.0 and r.success)}
    assert not failed, f"{task}: {failed}"
    assert all(0.0 < r.time_scaled <= r.raw for r in rewards.values())


def test_a_wrong_tap_fails_the_episode(miniwob: MiniWobDevice) -> None:
    for seed in SEEDS:  # a screen with a button besides the one asked for
        goal = miniwob.load_task("click-button", seed)
        wanted = goal.split('"')[1]
        others = [n for n in miniwob.hierarchy().tree.iter() if n.class_name.endswith("Button") and n.text != wanted]
        if others:
            break
    assert not miniwob.task_reward().done
    tap(miniwob, others[0])
    reward = miniwob.task_reward()
    assert reward.done and reward.raw == -1.0 and not reward.success


def test_a_partial_reward_is_not_success(miniwob: MiniWobDevice) -> None:
    # click-checkboxes rewards each box: submitting with one box wrong gives a partial reward.
    for seed in SEEDS:
        miniwob.load_task("click-checkboxes", seed)
        boxes = [n for n in miniwob.hierarchy().tree.iter() if n.class_name.endswith("CheckBox")]
        if len(boxes) >= 3:
            break
    tap(miniwob, boxes[0])
    tap(miniwob, find(miniwob, lambda n: n.text == "Submit", "Submit"))
    reward = miniwob.task_reward()
    assert reward.done and reward.raw not in (1.0, -1.0) and not reward.success


def test_the_timer_is_lifted_and_time_scales_only_the_recorded_reward() -> None:
    # A page of its own, on a fake clock (Playwright's), so the task's 10 s can pass in an instant.
    with open_device() as device:
        device._page.run(lambda page: page.clock.install())
        goal = device.load_task("click-button", 1001)
        device._page.run(lambda page: page.clock.run_for(12_000))  # past click-button's EPISODE_MAX_TIME
        assert not device.task_reward().done, "the task's timer ended the episode"
        button = find(device, lambda n: n.class_name.endswith("Button") and n.text == goal.split('"')[1], "button")
        assert button.bounds is not None
        device.tap(*button.bounds.center)
        reward = device.task_reward()
    assert reward.done and reward.raw == 1.0 and reward.success
    assert reward.time_scaled == 0.0  # 12 s of a 10 s task: the reward the papers' harness recorded
