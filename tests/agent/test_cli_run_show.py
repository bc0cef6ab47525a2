"""``latent-agent run`` (with the offline demo stand-in) and ``latent-agent show``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from latent_agent.agent.pages.episode_page import unpack_folds
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.cli import main


def test_run_demo_then_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "episode"
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "scripted stand-in" in printed and "not a language model" in printed
    assert "step 4" in printed and 'Tap "Roaming"' in printed and "completed" in printed
    t = read_trajectory(out)
    assert t.end is not None and t.end.stop_reason is StopReason.COMPLETED
    assert t.header.method == "zero-shot+" and t.header.llm == "demo demo-oracle"

    assert main(["show", str(out)]) == 0
    page = (out / "episode.html").read_text(encoding="utf-8")
    shots = re.findall(r'href="data:image/webp;base64,', page)
    assert len(shots) == len(t.steps)
    assert "href=\"http" not in page and str(tmp_path) not in page and "/tmp/" not in page
    assert "Tapped &quot;Roaming&quot;." in page  # the last inferred previous action
    folded = json.dumps(unpack_folds(page))  # the prompts and answers, packed into the page
    assert "I may be lying" in folded
    assert "local-" not in page and "local-" not in folded  # the stand-in's key


def test_run_refuses_goals_the_demo_does_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Order a pizza", "--device", "sim", "--llm", "demo", "--out", "unused"]) == 2
    assert "knows only the sim suite's goals" in capsys.readouterr().err
    assert not Path("unused").exists()


def test_show_refuses_a_directory_without_trajectory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(tmp_path)]) == 2
    assert "no trajectory file" in capsys.readouterr().err


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short finished episode with screenshots (the in-process oracle, no HTTP)."""
    from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    out = tmp_path_factory.mktemp("show") / "ep"
    run_episode_sync(EpisodeConfig("Turn off data roaming", "zero-shot-", max_steps=2), SimDevice(),
                     ScriptedModel(responder=DemoOracle()), out)
    return out


def _copy(episode: Path, to: Path) -> Path:
    import shutil

    shutil.copytree(episode, to)
    (to / "episode.html").unlink(missing_ok=True)
    return to


def _not_an_episode(root: Path, kind: str) -> Path:
    if kind == "missing":
        return root / "missing"
    if kind == "file":
        (root / "file.txt").write_text("x")
        return root / "file.txt"
    (root / "a").mkdir()
    (root / "a" / "trajectory.jsonl").write_text("[1, 2]\n")
    return root / "a"


@pytest.mark.parametrize(("kind", "message"), [
    ("missing", "missing: no such directory"),
    ("file", "file.txt: not a directory"),
    ("not-json-object", r"trajectory.jsonl:1: malformed record \(a JSON list, not an object\)"),
])
def test_show_names_what_is_wrong_in_one_line(kind: str, message: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(_not_an_episode(tmp_path, kind))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("latent-agent: error:")
    assert re.search(message, err), err


def test_show_renders_a_half_written_episode_with_a_torn_screenshot(
    episode: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    half = _copy(episode, tmp_path / "half")
    lines = (half / "trajectory.jsonl").read_text().splitlines(keepends=True)
    assert len(lines) == 4  # header, two steps, end
    # A crash mid-step: the end record never came, the second step's line and screenshot are torn.
    (half / "trajectory.jsonl").write_text("".join(lines[:2]) + lines[2][:50])
    shot = half / "screens" / "step_000.png"
    shot.write_bytes(shot.read_bytes()[:100])
    assert main(["show", str(half), "-o", "-"]) == 0
    page = capsys.readouterr().out
    assert "unfinished" in page and "Step 0" in page and "Step 1" not in page
    assert "screens/step_000.png unreadable" in page


def test_show_never_embeds_files_from_outside_the_episode(episode: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    moved = _copy(episode, tmp_path / "ep")
    path = moved / "trajectory.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    outside = tmp_path / "secret.png"
    outside.write_bytes((moved / "screens" / "step_001.png").read_bytes())
    records[1]["screenshot_file"] = "../secret.png"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["show", str(moved), "-o", "-"]) == 0
    page = capsys.readouterr().out
    assert page.count("data:image/webp;base64,") == 1 and "../secret.png is outside the episode: not shown" in page


def test_show_reports_an_unwritable_output(episode: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(episode), "-o", str(tmp_path / "no" / "such" / "dir" / "page.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write the page" in err and "No such file or directory" in err


@pytest.mark.parametrize("llm", ["demo", "scripted:echo"])
def test_run_refuses_a_ten_thousand_character_goal_in_one_short_line(
    llm: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    goal = "Turn off data roaming " * 455
    assert main(["run", goal, "--device", "sim", "--llm", llm, "--out", str(tmp_path / "ep")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 300, err[:400]
    assert not (tmp_path / "ep").exists()


def test_run_refuses_an_unusable_out_before_asking_the_model(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo",
                 "--out", str(tmp_path / "file")]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "is a file, not a directory" in captured.err
    assert "step 0" not in captured.out


def test_ctrl_c_keeps_the_finished_steps(tmp_path: Path) -> None:
    """SIGINT to a real ``latent-agent run`` process talking to a slow demo stand-in (``demo@SECONDS``)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "ep"
    process = subprocess.Popen(
        [sys.executable, "-m", "latent_agent.cli", "run", "Turn off data roaming", "--device", "sim",
         "--llm", "demo@0.15", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
        # A shell that started pytest in the background may ignore SIGINT; the run must not inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        trajectory = out / "trajectory.jsonl"
        while time.monotonic() < deadline and (
                not trajectory.is_file() or trajectory.read_text().count('"record": "step"') < 2):
            assert process.poll() is None, process.communicate()
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    # Said once, with what is kept (on stdout, below), not again by the entry point.
    assert stderr == "", stderr
    # The command is as it can be typed here (.venv/bin/latent-agent when the venv is not activated).
    assert re.search(rf"interrupted; the finished steps are in {re.escape(str(out))} "
                     rf"\((\S*/)?latent-agent show {re.escape(str(out))}\)\n", stdout), stdout
    t = read_trajectory(out)
    assert len(t.steps) >= 2 and t.end is not None and t.end.stop_reason is StopReason.INTERRUPTED
    assert main(["show", str(out), "-o", str(tmp_path / "page.html")]) == 0
