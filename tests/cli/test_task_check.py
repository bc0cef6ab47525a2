"""``run`` says whether the task was really done (issue 24 item 6): on the simulated phone, a goal that is a
task's goal word for word, or one named by ``--task``, is checked by the task's automatic check when the
episode ends; the summary prints it beside the agent's own stop reason and the end record keeps it. An
unknown ``--task`` is refused in one line before anything is written."""

from __future__ import annotations

from pathlib import Path

from latent_agent.agent.pages.episode_page import render_html
from latent_agent.agent.trajectory import read_trajectory
from tests.cli.helpers import cli, one_line

GOAL = "Turn off data roaming"


def _stopped(stdout: str) -> str:
    """The summary's stop line (the stop reason, the check beside it)."""
    return next(line for line in stdout.splitlines() if line.strip().startswith("stopped"))


def test_a_done_task_is_checked_and_passes(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    done = cli("run", GOAL, "--device", "sim", "--llm", "demo", "--no-screenshots", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "completed (task check: passed)" in _stopped(done.stdout), done.stdout
    end = read_trajectory(out).end
    assert end is not None and end.task_check is True
    assert "(task check: passed)" in render_html(read_trajectory(out))


def test_a_task_cut_short_fails_its_check_whatever_the_agent_says(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    done = cli("run", GOAL, "--device", "sim", "--llm", "demo", "--no-screenshots", "--max-steps", "1",
               "--out", str(out))
    assert "max_steps (task check: failed)" in _stopped(done.stdout), done.stdout
    end = read_trajectory(out).end
    assert end is not None and end.task_check is False


def test_task_names_the_check_for_a_goal_in_other_words(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    done = cli("run", "Switch roaming off", "--task", "settings_roaming_off", "--device", "sim", "--llm",
               "scripted:echo", "--no-screenshots", "--max-steps", "1", "--out", str(out))
    assert "(task check: failed)" in _stopped(done.stdout), done.stdout + done.stderr
    t = read_trajectory(out)
    assert t.header.task_id == "settings_roaming_off" and t.end is not None and t.end.task_check is False


def test_a_goal_that_is_no_task_has_no_check(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    done = cli("run", "Do something no task asks", "--device", "sim", "--llm", "scripted:echo", "--no-screenshots",
               "--max-steps", "1", "--out", str(out))
    assert "task check" not in done.stdout, done.stdout
    end = read_trajectory(out).end
    assert end is not None and end.task_check is None


def test_an_unknown_task_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    done = cli("run", GOAL, "--task", "settings_roaming_of", "--device", "sim", "--llm", "demo", "--out", str(out))
    assert done.returncode == 2
    assert "--task 'settings_roaming_of': the simulated phone has no task of that id" in one_line(done.stderr)
    assert not out.exists()
    # Elsewhere the id is only recorded, but it must still be a task of some suite; refused before connecting.
    done = cli("run", "Open the settings", "--task", "no-such-task", "--device", "adb:nonexistent", "--llm", "demo",
               "--out", str(out))
    assert done.returncode == 2
    assert "--task 'no-such-task' is no task of any suite" in one_line(done.stderr)
    assert "daemon" not in done.stderr and not out.exists()
