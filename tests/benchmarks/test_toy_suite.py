"""A benchmark suite defined and registered here, in a test module, runs through `run`, `sweep` and `report`.

Nothing outside this file knows the toy: it proves that a new suite is its loader plus one registry entry
(docs/architecture.md, "A new benchmark suite"). Its tasks have ids of their own and are checked automatically
on the simulated phone: two play a sim task (the demo stand-in knows their goals), and one asks what no check
can judge, so raters would (its episode is not scored).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.suite import (
    SUITES,
    BenchmarkTask,
    Suite,
    SuiteSource,
    checked_tasks,
    load_named_suite,
    register_suite,
)
from latent_agent.cli import main
from latent_agent.errors import ConfigError

NAME = "toy-pair"
#: The toy's task ids -> the sim task each plays.
PLAYS = {"toy-roaming": "settings_roaming_off", "toy-dark": "settings_dark_theme"}
#: A task no check judges: its episode is for raters.
RATED = BenchmarkTask("toy-rated", "Turn off data roaming", None, ("Is data roaming off?",), "test_toy_suite.py")


def _load() -> Suite:
    sim = {t.id: t for t in load_suite()}
    checked = tuple(BenchmarkTask(task_id, sim[plays].goal, sim[plays].app, ("Is it done?",), "test_toy_suite.py",
                                  tags=("toy",), sim_task=sim[plays])
                    for task_id, plays in PLAYS.items())
    return Suite(NAME, SUITES[NAME].description, (*checked, RATED), needs_sim=True)


SOURCE = SuiteSource("two sim tasks under ids of their own, and one for raters", _load)


@pytest.fixture
def toy() -> Iterator[str]:
    register_suite(NAME, SOURCE)
    try:
        yield NAME
    finally:
        del SUITES[NAME]


def test_registering_is_idempotent_and_a_clash_is_refused(toy: str) -> None:
    register_suite(toy, SOURCE)
    assert SUITES[toy] is SOURCE
    with pytest.raises(ConfigError, match="suite 'toy-pair' is registered already"):
        register_suite(toy, SuiteSource("another", _load))
    with pytest.raises(ConfigError, match="suite 'sim' is registered already"):
        register_suite("sim", SOURCE)
    assert [t.id for t in load_named_suite(toy).tasks] == [*PLAYS, RATED.id]


def test_the_toys_checked_tasks_join_the_built_in_ones(toy: str) -> None:
    checked = checked_tasks()
    assert {task: checked[task].id for task in PLAYS} == PLAYS
    assert RATED.id not in checked  # no check: nothing for run to judge it by
    # A built-in suite's id keeps its own task; the paper's wording of a sim task stays the paper's.
    assert checked["settings_roaming_off"].goal == "Turn off data roaming"
    assert checked["pixelhelp-02"].goal == "Turn notification dots on"


def test_sim_tasks_lists_the_toys_checked_tasks(toy: str, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["sim", "tasks", "--suite", toy, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["sim_task"]) for r in rows] == list(PLAYS.items())
    assert main(["sim", "tasks", "--suite", "aitw"]) == 2  # a suite raters judge has nothing to list
    assert "suite 'aitw' has no task the simulated phone checks" in capsys.readouterr().err


def test_run_checks_a_task_of_the_toy_by_its_id(toy: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ep"
    code = main(["run", "Turn off data roaming", "--task", "toy-roaming", "--device", "sim", "--llm", "demo",
                 "--no-screenshots", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    t = read_trajectory(out)
    assert t.end is not None and t.end.stop_reason is StopReason.COMPLETED and t.end.task_check is True
    # An id no registered suite has is still refused before anything is written.
    assert main(["run", "Turn off data roaming", "--task", "toy-nothing", "--device", "sim", "--llm", "demo",
                 "--no-screenshots", "--out", str(tmp_path / "none")]) == 2
    assert not (tmp_path / "none").exists()


def test_sweep_and_report_of_the_toy(toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", toy, "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
                 "--out", str(out), "--no-progress", "--no-screenshots"])
    assert code == 0, capsys.readouterr().err
    records = {r.task_id: r for r in ResultsLog(out).load()}
    assert sorted(records) == sorted([*PLAYS, RATED.id])
    assert all(r.suite == toy and r.status is EpisodeStatus.FINISHED for r in records.values())
    assert [records[task].success for task in PLAYS] == [True, True]
    assert records[RATED.id].success is None  # no check: raters judge it

    assert main(["report", str(out)]) == 0
    md = (out / "report" / "report.md").read_text(encoding="utf-8")
    assert f"suite {toy}" in md
    for task in records:
        assert f"(episodes/{task}__zero-shot-__s0.html)" in md
