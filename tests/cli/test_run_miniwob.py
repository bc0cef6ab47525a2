"""``run --device miniwob:TASK``: the goal comes from the task, its reward judges, bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.device.task_env import TaskReward
from tests.cli.helpers import cli, one_line
from tests.device.miniwob.conftest import open_device

#: click-button from seed 3 asks for the "no" button, the first of its screen (tests below check it).
SEED = "3"


@pytest.fixture(scope="module")
def buttons() -> dict[str, tuple[int, int]]:
    """Where click-button's buttons are from seed 3 (skips when no browser can be launched)."""
    with open_device() as device:
        assert device.load_task("click-button", int(SEED)) == 'Click on the "no" button.'
        return {n.text: n.bounds.center for n in device.hierarchy().tree.iter()
                if n.class_name.endswith("Button") and n.bounds is not None}


@pytest.fixture
def no_button(buttons: dict[str, tuple[int, int]]) -> tuple[int, int]:
    return buttons["no"]


def _run(tmp_path: Path, x: int, y: int) -> tuple[str, Path]:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(['Click on the "no" button.', 'Tap the "no" button.',
                                   json.dumps({"action_type": "click", "x": x, "y": y})]))
    out = tmp_path / "ep"
    done = cli("run", "--device", "miniwob:click-button", "--seed", SEED, "--llm", f"scripted:{replies}",
               "--method", "zero-shot-", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return done.stdout, out


def test_the_goal_comes_from_the_task_and_its_reward_judges(tmp_path: Path, no_button: tuple[int, int]) -> None:
    stdout, out = _run(tmp_path, *no_button)
    assert "starting from task click-button loaded from seed 3" in stdout
    assert "task_ended" in stdout and "raw 1, time-scaled" in stdout and "success" in stdout
    trajectory = read_trajectory(out)
    assert trajectory.header.goal == 'Click on the "no" button.' and trajectory.header.seed == 3
    assert trajectory.header.task_id == "click-button"
    assert trajectory.end is not None and trajectory.end.stop_reason is StopReason.TASK_ENDED
    reward = trajectory.end.reward
    assert isinstance(reward, TaskReward) and reward.success and 0 < reward.time_scaled < 1


def test_a_wrong_tap_ends_the_episode_failed(tmp_path: Path, buttons: dict[str, tuple[int, int]]) -> None:
    other = next(label for label in buttons if label != "no")
    stdout, out = _run(tmp_path, *buttons[other])
    trajectory = read_trajectory(out)
    assert trajectory.end is not None and trajectory.end.reward is not None
    assert trajectory.end.stop_reason is StopReason.TASK_ENDED and trajectory.end.reward.raw == -1.0
    assert "failure" in stdout


def test_an_old_end_record_without_a_reward_still_loads(tmp_path: Path, no_button: tuple[int, int]) -> None:
    _, out = _run(tmp_path, *no_button)
    path = out / "trajectory.jsonl"
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    del end["reward"]
    path.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    trajectory = read_trajectory(out)
    assert trajectory.end is not None and trajectory.end.reward is None


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["--device", "miniwob:click-buton"], {}, "unknown MiniWoB++ task 'click-buton'; close matches: click-button"),
    (["Click the button", "--device", "miniwob:click-button"], {},
     "takes its goal from the task; leave out the goal 'Click the button'"),
    (["--device", "sim"], {}, "GOAL is required with --device sim"),
    (["--device", "miniwob:click-button", "--seed", "x1"], {}, "--seed needs an integer, not 'x1'"),
    (["--device", "miniwob:click-button", "--noise", "paper"], {}, "cannot add the simulated phone's noise"),
    (["--device", "miniwob"], {}, "name the task to run: --device miniwob:TASK"),
    (["Turn it off", "--device", "adb:emulator-5554", "--seed", "3"], {}, "has no seeded start state"),
    (["--device", "miniwob:click-button"], {"LATENT_AGENT_CHROMIUM": "/nonexistent/chromium"},
     "install it with `sudo apt-get install chromium`"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, argv: list[str], env: dict[str, str],
                                                          message: str) -> None:
    out = tmp_path / "ep"
    done = cli("run", *argv, "--llm", "scripted:echo", "--out", str(out), env=env)
    assert done.returncode == 2, done.stderr
    assert message in one_line(done.stderr)
    assert not out.exists()


def test_a_page_that_does_not_load_is_one_line_exit_2(tmp_path: Path, buttons: dict[str, tuple[int, int]]) -> None:
    pages = tmp_path / "html"
    (pages / "miniwob").mkdir(parents=True)
    (pages / "miniwob" / "broken-task.html").write_text("<html><body><div id='wrap'></div></body></html>")
    out = tmp_path / "ep"
    done = cli("run", "--device", "miniwob:broken-task", "--llm", "scripted:echo", "--out", str(out),
               env={"LATENT_AGENT_MINIWOB_HTML": str(pages)})
    assert done.returncode == 2, done.stderr
    assert "broken-task.html did not load: it defines no MiniWoB++ task" in one_line(done.stderr)
    assert not out.exists()


def test_back_is_refused_and_recorded_and_stopping_before_the_task_ends_fails(
        tmp_path: Path, buttons: dict[str, tuple[int, int]]) -> None:
    back = json.dumps({"action_type": "navigate_back"})
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(['Click on the "no" button.', "Go back.", back, "You should be done."]))
    out = tmp_path / "ep"
    done = cli("run", "--device", "miniwob:click-button", "--seed", SEED, "--llm", f"scripted:{replies}",
               "--method", "zero-shot-", "--out", str(out))
    assert done.returncode == 0, done.stderr
    trajectory = read_trajectory(out)
    first = trajectory.steps[0]
    assert not first.executed and first.execution_error is not None
    assert "has no BACK key" in first.execution_error
    assert trajectory.end is not None and trajectory.end.stop_reason is StopReason.DONE
    assert trajectory.end.reward == TaskReward(raw=0.0, time_scaled=0.0, done=False)
    assert "failure: the agent stopped before the task ended" in " ".join(done.stdout.split())
