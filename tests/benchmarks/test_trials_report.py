"""The report's multi-trial table: success at T trials per feedback protocol, trials used, calls by kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.benchmarks.trials import KINDS, TrialEpisode, trial_episode, trial_rows
from latent_agent.cli.main import main

NO_CALLS = dict.fromkeys(KINDS, 0)


def _episode(used: int, success: bool | None, *, budget: int = 5, feedback: str = "self",
             checked: tuple[bool | None, ...] = (), calls: dict[str, int] | None = None) -> TrialEpisode:
    return TrialEpisode("reflection-t5", feedback, budget, used, success, checked, calls or NO_CALLS)


def test_success_at_t_counts_an_episode_from_the_trial_it_stopped_in() -> None:
    second = _episode(2, True)
    assert [second.success_at(t) for t in (1, 2, 3, 5)] == [False, True, True, True]
    failed = _episode(5, False)
    assert [failed.success_at(t) for t in (1, 3, 5)] == [False, False, False]
    assert _episode(1, None).success_at(1) is None


def test_a_failure_that_used_the_whole_budget_says_nothing_about_a_larger_one() -> None:
    assert _episode(3, False, budget=3).success_at(5) is None
    assert _episode(3, False, budget=3).success_at(3) is False
    assert _episode(1, False, budget=3).success_at(5) is False  # the retries ended early: more trials change nothing
    assert _episode(1, True, budget=1).success_at(5) is True


def test_a_trial_record_that_carries_the_check_is_believed() -> None:
    # A self-feedback trial the agent did not judge done, whose phone the check found done.
    assert _episode(3, True, checked=(False, True)).success_at(2) is True
    assert _episode(3, True, checked=(False, True)).success_at(1) is False


def test_rows_never_pool_feedback_protocols_and_average_calls() -> None:
    calls = {"planning": 4, "paraphrase": 0, "reflection": 1, "grounding": 6, "other": 1}
    rows = trial_rows([_episode(1, True, calls=calls), _episode(2, True, feedback="check", calls=calls),
                       _episode(3, False, calls=dict.fromkeys(KINDS, 2))])
    assert [(r.feedback, r.episodes) for r in rows] == [("self", 2), ("check", 1)]
    self_row = rows[0]
    assert self_row.success_at[0] == (1, 2, 1)
    assert self_row.trials_used == 2.0
    assert self_row.calls == {"planning": 3.0, "paraphrase": 1.0, "reflection": 1.5, "grounding": 4.0, "other": 1.5}
    assert rows[1].success_at[0] == (0, 1, 1) and rows[1].success_at[1] == (1, 1, 3)


@pytest.mark.usefixtures("capsys")
def test_a_demo_sweep_reports_each_protocol_and_leaves_other_methods_out(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", "settings_roaming_off,clock_stopwatch", "--devices", "sim",
                 "--methods", "reflection-t1,reflection-check,zero-shot+", "--llm", "demo", "--out", str(out),
                 "--no-screenshots", "--no-progress"])
    assert code == 0
    records = ResultsLog(out).load()
    reflected = [r for r in records if r.method == "reflection-check"]
    episode = trial_episode(reflected[0], read_trajectory(out / reflected[0].trajectory))
    assert episode is not None and episode.feedback == "check" and episode.budget == 3
    assert episode.calls["planning"] >= 1 and episode.calls["grounding"] >= 1
    zero = next(r for r in records if r.method == "zero-shot+")
    assert trial_episode(zero, read_trajectory(out / zero.trajectory)) is None
    assert main(["report", str(out)]) == 0
    report = (out / "report" / "report.md").read_text(encoding="utf-8")
    table = report.split("### Multi-trial methods", 1)[1].split("###", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "Feedback" not in line]
    assert len(rows) == 2
    assert any("| self |" in r and "(T=1)" in r for r in rows)
    assert any("| check |" in r for r in rows)
    assert not any("zero-shot" in r.lower() or "Zero-shot" in r for r in rows)
    t1 = next(r for r in rows if "| self |" in r)
    assert "(2/2)" in t1.split(" | ")[3]  # the demo solves both tasks in its one trial


def test_the_table_gives_success_at_t_1_3_5_per_protocol_trials_used_and_calls_by_kind() -> None:
    from latent_agent.benchmarks.report_trials import trials_table

    calls = {"planning": 5, "paraphrase": 0, "reflection": 2, "grounding": 7, "other": 1}
    episodes = [
        _episode(1, True, calls=calls),                                  # self: done in trial 1
        _episode(3, True, calls=calls),                                  # self: done in trial 3
        _episode(2, True, feedback="check", calls=calls),                # check: done in trial 2
        _episode(5, False, feedback="check", budget=5, calls=calls),     # check: never, all five trials
    ]
    table = trials_table(trial_rows(episodes))
    assert table.headers == ("Agent", "Feedback", "Episodes", "Success, T=1", "Success, T=3", "Success, T=5",
                             "Trials used", "Planning calls", "Paraphrase calls", "Reflection calls",
                             "Grounding calls", "Other calls")
    by_feedback = {row[1]: row for row in table.rows}
    assert set(by_feedback) == {"self", "check"}  # one row per protocol, never pooled
    assert by_feedback["self"][2:] == ("2", "50.0% (1/2)", "100.0% (2/2)", "100.0% (2/2)", "2.00",
                                       "5.0", "0.0", "2.0", "7.0", "1.0")
    assert by_feedback["check"][2:7] == ("2", "0.0% (0/2)", "50.0% (1/2)", "50.0% (1/2)", "3.50")
