"""What `run` records of the episode it ran (issue 33 item 5): the task its goal is, and the device's seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.cli import main
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.errors import ConfigError, DeviceError


def test_a_goal_that_is_a_sim_task_is_recorded_as_that_task(tmp_path: Path) -> None:
    # The goal is the sim suite's settings_roaming_off: its check runs, and the record says which task it was.
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--no-screenshots",
                 "--out", str(tmp_path / "ep")]) == 0
    header = read_trajectory(tmp_path / "ep").header
    assert header.task_id == "settings_roaming_off"


def test_a_miniwob_page_reports_the_seed_of_its_task() -> None:
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    try:
        device = MiniWobDevice()
    except (ConfigError, DeviceError) as exc:
        pytest.skip(f"no browser for MiniWoB++ here: {exc}")
    with device:
        assert device.seed is None  # nothing loaded yet
        device.load_task("click-button", 1004)
        assert device.seed == 1004
        device.reset(seed=1005)
        assert device.seed == 1005
