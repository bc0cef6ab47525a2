"""What sweep says is true (issue 33 item 6): a resume with nothing to run says so; a resume of a sweep that was
never planned is one error, not an announcement and then an error; the seeds line speaks only of a number
someone chose."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.cli import main

RUNNER = "tests.benchmarks.runners:solve"


def test_resuming_a_finished_sweep_says_there_is_nothing_to_run(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "zero-shot+",
                 "--devices", "sim", "--llm", "scripted:echo", "--runner", RUNNER, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["sweep", "--out", str(out), "--resume", "--runner", RUNNER]) == 0
    captured = capsys.readouterr()
    assert "nothing to run: all 1 planned episode(s) are recorded" in captured.out
    assert "episodes/hour" not in captured.out and "0/0" not in captured.out + captured.err


def test_resuming_where_nothing_was_planned_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--out", str(tmp_path / "new"), "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [f"latent-agent: error: --suite is required to start a sweep ({tmp_path / 'new'} "
                                "holds none to resume yet)"]


def test_a_union_suite_without_seeds_is_not_told_about_seeds(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    assert main(["sweep", "--suite", "miniwob-papers", "--methods", "zero-shot+", "--devices", "miniwob*2",
                 "--llm", "demo", "--out", str(tmp_path / "p"), "--dry-run"]) == 0
    assert "--seeds" not in capsys.readouterr().err


def test_demos_build_names_the_sweep_option_that_exists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "zero-shot+",
                 "--devices", "sim", "--llm", "demo", "--out", str(sweep), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["demos", "build", "--from", str(sweep), "--llm", "demo", "--out", str(tmp_path / "demos")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("demos: "))
    # The command it suggests is one sweep takes: --methods (sweep has no --method).
    assert "sweep ... --methods caap --demos" in line
