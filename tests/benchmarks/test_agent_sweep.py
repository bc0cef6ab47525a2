"""End to end with the real agent: ``latent-agent sweep --llm demo`` (the demo oracle behind the local
Gemini stand-in, through google-genai) on two simulated phones, then ``latent-agent report`` with episode pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.methods import METHODS
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.cli import main


def test_real_agent_sweep_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", "clock_stopwatch,settings_dark_theme", "--devices", "sim*2",
                 "--llm", "demo", "--out", str(out), "--no-progress", "--max-steps", "8"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "not a language model" in captured.err  # the demo says what it is
    records = ResultsLog(out).load()
    # Without --demos, "all" leaves out the CAAP variants that would only repeat the demo-less ones' rows.
    left_out = {"caap", "caap-no-cot", "caap-no-rationales"}
    assert "caap, caap-no-cot, caap-no-rationales left out" in captured.err
    assert read_manifest(out).methods == tuple(m for m in METHODS if m not in left_out)
    assert sorted((r.task_id, r.method) for r in records) == sorted(
        (t, m) for t in ("clock_stopwatch", "settings_dark_theme") for m in METHODS if m not in left_out)
    for r in records:
        assert r.status is EpisodeStatus.FINISHED, r.error
        trajectory = read_trajectory(out / r.trajectory)
        assert trajectory.end is not None and trajectory.header.method == r.method
        assert r.llm_calls == trajectory.end.usage.calls > 0 and r.steps == len(trajectory.steps)
        assert r.success is not None and len(r.partial) == (1 if r.task_id == "clock_stopwatch" else 2)
    assert sum(bool(r.success) for r in records) >= 10  # the oracle plays the reference solutions
    assert {r.device for r in records} == {"sim#1", "sim#2"}

    assert main(["report", str(out)]) == 0
    report = out / "report"
    pages = sorted((report / "episodes").glob("*.html"))
    assert len(pages) == len(records)
    md = (report / "report.md").read_text()
    assert "(episodes/clock_stopwatch__react+__s0.html)" in md
    assert "<html" in pages[0].read_text()[:200].lower()


def test_budget_spent_mid_sweep_errors_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", "clock_stopwatch", "--methods", "zero-shot-,zero-shot+",
                 "--devices", "sim", "--llm", "demo", "--out", str(out), "--no-progress", "--no-screenshots",
                 "--budget", "calls=12"])
    assert code == 3, capsys.readouterr().err  # an errored episode: the exit status says so
    records = {r.method: r for r in ResultsLog(out).load()}
    assert records["zero-shot-"].status is EpisodeStatus.FINISHED and records["zero-shot-"].llm_calls == 8
    spent = records["zero-shot+"]
    assert spent.status is EpisodeStatus.ERROR and spent.error_kind == "budget"
    assert "budget" in spent.error
