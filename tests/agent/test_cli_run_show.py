"""``latent-agent run`` (with the offline demo stand-in) and ``latent-agent show``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.trajectory import StopReason, read_trajectory
from latent_agent.cli import main


def test_run_demo_then_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "episode"
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "scripted stand-in" in printed and "not a language model" in printed
    assert "step 4" in printed and 'Tap "Roaming"' in printed and "completed" in printed
    t = read_trajectory(out)
    assert t.end is not None and t.end.stop_reason is StopReason.COMPLETED
    assert t.header.method == "zero-shot+" and t.header.llm == "gemini demo-oracle"

    assert main(["show", str(out)]) == 0
    page = (out / "episode.html").read_text(encoding="utf-8")
    shots = re.findall(r'src="data:image/png;base64,', page)
    assert len(shots) == len(t.steps)
    assert "src=\"http" not in page and str(tmp_path) not in page and "/tmp/" not in page
    assert "local-" not in page  # the stand-in's key
    assert "Tapped &quot;Roaming&quot;, which turned it off." in page
    assert "I may be lying" in page  # the folded prompts


def test_run_refuses_goals_the_demo_does_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Order a pizza", "--device", "sim", "--llm", "demo", "--out", "unused"]) == 2
    assert "knows only the sim suite's goals" in capsys.readouterr().err
    assert not Path("unused").exists()


def test_show_refuses_a_directory_without_trajectory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(tmp_path)]) == 2
    assert "no trajectory file" in capsys.readouterr().err
