"""``latent-agent sweep`` and ``latent-agent report`` end to end (scripted runner), partial sweeps, bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from latent_agent.agent.methods import selector_methods
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.plan import SweepPlan, write_manifest
from latent_agent.benchmarks.ratings import Rating
from latent_agent.benchmarks.report import build_report
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.benchmarks.suite import load_named_suite
from latent_agent.cli import main
from latent_agent.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*argv: str) -> int:
    return main(list(argv))


def sweep_args(out: Path, *extra: str) -> list[str]:
    return ["sweep", "--suite", "sim", "--tasks", "clock_*", "--devices", "sim*3", "--llm", "scripted:echo",
            "--out", str(out), "--runner", "tests.benchmarks.runners:plus_wins", "--no-progress",
            "--no-screenshots", "--methods", ",".join(selector_methods()), *extra]


def test_sweep_then_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    assert run_cli(*sweep_args(out, "--seeds", "2")) == 0
    assert "120 episode(s) run (0 errored)" in capsys.readouterr().out
    assert len(ResultsLog(out).load()) == 10 * 6 * 2
    assert run_cli("report", str(out)) == 0
    md = (out / "report" / "report.md").read_text()
    html = (out / "report" / "report.html").read_text()
    assert "| Zero-shot + latent state | 100.0% | 0.250 |" in md  # 3 of 10 tasks won, none lost: p = 2/8
    assert "| Zero-shot (no latent state) | 70.0% |  |" in md
    assert "Episodes recorded: 120 of 120 planned" in md
    assert "<table>" in html and "Zero-shot + latent state" in html
    chart = out / "report" / "charts" / "success_sim.png"
    with Image.open(chart) as image:
        assert image.format == "PNG" and image.size[0] > 300
    assert "charts/success_sim.png" in md and 'src="charts/success_sim.png"' in html
    # Every episode row links to something that exists.
    links = [line.split("](", 1)[1].split(")", 1)[0] for line in md.splitlines() if line.startswith("| [")]
    assert len(links) == 120
    assert all((out / "report" / link).exists() for link in links)


def test_report_on_a_partial_sweep_and_with_ratings(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    assert run_cli(*sweep_args(out)) == 0
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:13]) + lines[13][:40])  # partial, with a torn line
    files = build_report(out, render_episodes=False)
    md = files.markdown.read_text()
    assert "Episodes recorded: 13 of 60 planned (partial sweep: 47 not run yet)" in md
    first = ResultsLog(out).load()[0]
    ratings = {first.key: Rating(first.key, False)}
    rated = build_report(out, tmp_path / "rated", ratings=ratings, render_episodes=False).markdown.read_text()
    assert "rater scores applied to 1 episode(s)" in rated
    stray = {**ratings, "other__react+__s9": Rating("other__react+__s9", True)}
    rated = build_report(out, tmp_path / "rated2", ratings=stray, render_episodes=False).markdown.read_text()
    assert "rater scores applied to 1 episode(s) (1 rating(s) name episodes not recorded here)" in rated
    # Ratings of another sweep altogether: an error, not a report that silently ignores them.
    with pytest.raises(InputError, match="none of the 1 rating"):
        build_report(out, tmp_path / "rated3", ratings={"x": Rating("x", True)}, render_episodes=False)


def test_report_tests_all_four_measures_and_shows_stops_and_rater_causes(tmp_path: Path) -> None:
    from latent_agent.benchmarks.ratings import RootCause
    from tests.benchmarks.test_metrics import four_measures_table

    log = ResultsLog(tmp_path)
    for record in four_measures_table():  # p-values worked out by hand in test_metrics
        log.append(record)
    plain = build_report(tmp_path, tmp_path / "plain", render_episodes=False).markdown.read_text()
    assert "raters' primary root cause" not in plain and "causes_" not in plain  # no rater causes given
    ratings = {"t5__react+__s0": Rating("t5__react+__s0", None, error_cause=RootCause.GROUNDING),
               "t6__react+__s0": Rating("t6__react+__s0", None, error_cause=RootCause.ACTION_SELECTION),
               "t2__react-__s0": Rating("t2__react-__s0", None, error_cause=RootCause.BOTH)}
    files = build_report(tmp_path, tmp_path / "rated", ratings=ratings, render_episodes=False)
    md = files.markdown.read_text()
    # Pooled Table 3 row of ReAct +: each measure with its own p (10/16, 6/8, 2/4, 10/16).
    assert "| ReAct + latent state | 66.7% | 0.625 | 66.7% | 0.750 | 50.0% | 0.500 | 16.7% | 0.625 |" in md
    assert "| all suites | ReAct | Premature stop | 6 | 50.0% | 16.7% | 0.625 |" in md
    assert "| all suites | ReAct | Success, strict stop | 6 | 16.7% | 50.0% | 0.500 |" in md
    # Stop analysis: no task ended an episode; 5 of 6 stopped in both; premature among them 3/5 without and 1/5
    # with latent state.
    assert "| all suites | ReAct (no latent state) | 6 | 0 | 5 | 83.3% | 60.0% |" in md
    assert "| all suites | ReAct + latent state | 6 | 0 | 5 | 83.3% | 20.0% |" in md
    # The raters' error analysis (Fig. 3): shares of rated failures; the automatic categories stay labelled a guess.
    assert "| all suites | ReAct + latent state | 2 | 2 | 50.0% | 50.0% | 0.0% | 0.0% |" in md
    assert "| all suites | ReAct (no latent state) | 4 | 1 | 0.0% | 0.0% | 100.0% | 0.0% |" in md
    assert "Error categories, automatic guess" in md and "raters' root causes for 3 failure(s)" in md
    # A cause given for an episode that succeeded (t1) is not counted, and the summary says so.
    ratings["t1__react+__s0"] = Rating("t1__react+__s0", None, error_cause=RootCause.ENVIRONMENT)
    again = build_report(tmp_path, tmp_path / "rated2", ratings=ratings, render_episodes=False).markdown.read_text()
    assert ("raters' root causes for 3 failure(s) (1 root cause(s) not counted: their episodes are not failures "
            "here)") in again
    assert "share of the task's partial-completion questions answered yes" in md
    chart = files.markdown.parent / "charts" / "causes_all_suites.png"
    assert chart in files.charts and "![primary root causes of failures](charts/causes_all_suites.png)" in md
    with Image.open(chart) as image:
        assert image.format == "PNG"


def test_resume_via_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    assert run_cli(*sweep_args(out)) == 0
    capsys.readouterr()
    args = ["sweep", "--devices", "sim", "--llm", "scripted:echo", "--out", str(out), "--runner",
            "tests.benchmarks.runners:solve", "--no-progress", "--resume"]
    assert run_cli(*args) == 0  # suite, methods, seeds come from the manifest
    assert "nothing to run: all 60 planned episode(s) are recorded" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--budget", "calls=ten"], "calls must be an integer"),
    (["--budget", "dollars=3"], "expected calls=N"),
    (["--methods", "zero-shot"], "unknown method 'zero-shot'; did you mean zero-shot- or zero-shot+?"),
    (["--methods", ""], "--methods is empty"),
    (["--seeds", "0"], "--seeds must be >= 1"),
    (["--tasks", "nothing*"], "no task of suite 'sim'"),
])
def test_bad_sweep_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                           message: str) -> None:
    assert run_cli(*sweep_args(tmp_path / "s", *extra)) == 2
    assert message in capsys.readouterr().err


def test_bad_runner_and_devices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = sweep_args(tmp_path / "s")
    args[args.index("tests.benchmarks.runners:plus_wins")] = "tests.benchmarks.runners:nobody"
    assert run_cli(*args) == 2
    assert "cannot import" in capsys.readouterr().err
    args = sweep_args(tmp_path / "s")
    args[args.index("sim*3")] = "sim:4"
    assert run_cli(*args) == 2
    assert "seeded by each episode's seed" in capsys.readouterr().err


def test_report_of_a_non_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("report", str(tmp_path)) == 2
    assert "not a sweep directory" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # no report folder in a directory that is not a sweep
    missing = tmp_path / "typo"
    assert run_cli("report", str(missing)) == 2
    assert "not a sweep directory" in capsys.readouterr().err
    assert not missing.exists()


def test_sweep_out_that_is_a_file_or_a_foreign_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    base = ["sweep", "--suite", "sim", "--tasks", "clock_alarm_6am", "--devices", "sim", "--llm", "scripted:echo",
            "--runner", "tests.benchmarks.runners:solve", "--no-progress", "--methods", "react+"]
    assert run_cli(*base, "--out", str(notes)) == 2
    err = capsys.readouterr().err
    assert "is a file" in err and "Traceback" not in err
    assert run_cli(*base, "--out", str(tmp_path), "--resume") == 2
    assert "holds no sweep" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # not even a lock file is left behind
    # A plan mismatch is the one line on stderr, before any LLM client is opened (--llm demo announces itself).
    sweep_dir = tmp_path / "sweep"
    assert run_cli(*base, "--out", str(sweep_dir)) == 0
    capsys.readouterr()
    demo = [*base[:base.index("--llm") + 1], "demo", *base[base.index("--llm") + 2:]]
    assert run_cli(*demo, "--out", str(sweep_dir), "--resume", "--max-steps", "3") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "holds a different sweep: max_steps: planned 20, asked 3; llm: planned 'scripted:echo'" in err[0]


def test_report_of_a_sweep_with_nothing_recorded_yet(tmp_path: Path) -> None:
    suite = load_named_suite("sim").select(["clock_alarm_6am"])
    write_manifest(tmp_path, SweepPlan.build("sim", [(t.id, t.goal) for t in suite.tasks], ["react+", "react-"], 1,
                                             "scripted:echo", EpisodeSettings(max_steps=5)))
    assert run_cli("report", str(tmp_path)) == 0
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Episodes recorded: 0 of 2 planned (partial sweep: 2 not run yet)" in text


def test_parameterized_tasks_are_skipped_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    params = tmp_path / "params.json"
    params.write_text(json.dumps({"ClockTimerEntry": {"hours": "0", "minutes": "5", "seconds": "0"}}))
    out = tmp_path / "aw"
    args = ["sweep", "--suite", "androidworld", "--tasks", "Clock*,AudioRecorder*", "--devices", "sim",
            "--llm", "scripted:echo",
            "--out", str(out), "--runner", "tests.benchmarks.runners:solve", "--no-progress", "--methods",
            "react+", "--task-params", str(params), "--max-steps", "2"]
    code = run_cli(*args)
    captured = capsys.readouterr()
    assert "1 parameterized task(s) of androidworld skipped" in captured.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert {e["task_id"] for e in manifest["episodes"]} == {"ClockStopWatchPausedVerify", "ClockStopWatchRunning",
                                                            "ClockTimerEntry", "AudioRecorderRecordAudio"}
    timer = next(e for e in manifest["episodes"] if e["task_id"] == "ClockTimerEntry")
    assert timer["goal"] == "Create a timer with 0 hours, 5 minutes, and 0 seconds. Do not start the timer."
    # The scripted runner only knows sim tasks, so these episodes error; the sweep records them, goes on, and
    # says so in its exit status.
    assert code == 3
    assert all(r.status.value == "error" and "KeyError" in r.error for r in ResultsLog(out).load())


def test_runner_module_is_importable_from_the_repo() -> None:
    assert (ROOT / "tests" / "benchmarks" / "runners.py").exists() and os.path.isdir(ROOT / "benchmarks")
