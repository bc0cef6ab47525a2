"""Metrics on hand-made tables: rates, paired permutation tests checked by hand, error categories, ratings."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from latent_agent.benchmarks.metrics import (
    MEASURES,
    POOLED,
    ErrorCategory,
    compute_metrics,
    episode_value,
    error_category,
    paired_permutation_test,
)
from latent_agent.benchmarks.ratings import Rating, RootCause, apply_ratings, load_ratings, rated_causes
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, PartialAnswer, StopJudgement
from latent_agent.errors import InputError


def rec(task: str, method: str, success: bool | None, *, seed: int = 0, suite: str = "sim",
        judgement: StopJudgement | None = None, stop: str = "completed", steps: int = 4, calls: int = 8,
        tokens: int = 1000, duration: float = 2.0, partial: tuple[bool | None, ...] = (),
        status: EpisodeStatus = EpisodeStatus.FINISHED, grounding: int = 0, kind: str = "") -> EpisodeRecord:
    return EpisodeRecord(
        key=f"{task}__{method}__s{seed}", suite=suite, task_id=task, goal=task, method=method, seed=seed,
        device="sim#1", attempt=1, status=status, success=success,
        partial=tuple(PartialAnswer(f"q{i}", a) for i, a in enumerate(partial)), stop_judgement=judgement,
        stop_reason=stop, steps=steps, llm_calls=calls, prompt_tokens=tokens - 100, output_tokens=100,
        duration_s=duration, grounding_errors=grounding, error_kind=kind,
    )


def test_permutation_test_against_hand_computation() -> None:
    # Five tasks; + succeeds on tasks 1-3 and 5, - on tasks 3 and 5. Differences: 1, 1, 0, 0, 0.
    # Flipping signs: only the two non-zero differences matter; of their 4 sign patterns the mean
    # difference is as extreme as observed (|0.4|) for (+, +) and (-, -): p = 2/4.
    assert paired_permutation_test([1, 1, 1, 0, 1], [0, 0, 1, 0, 1]) == pytest.approx(0.5)
    # Differences 1, 1, 1, 0, -1, 0: sum 2 over four +-1 terms; patterns with |sum| >= 2:
    # k = 0, 1, 3, 4 positives -> 1 + 4 + 4 + 1 = 10 of 16.
    assert paired_permutation_test([1, 1, 1, 1, 0, 1], [0, 0, 0, 1, 1, 1]) == pytest.approx(10 / 16)
    # Twelve wins in a row: only all-+ and all-- are as extreme: 2 / 2**12.
    assert paired_permutation_test([1] * 12, [0] * 12) == pytest.approx(2 / 4096)
    # Fractional per-task means (seeds averaged), checked by brute force.
    xs, ys = [1.0, 0.5, 1.0, 0.0, 0.5], [0.0, 0.5, 0.5, 0.5, 0.0]
    d = [x - y for x, y in zip(xs, ys, strict=True)]
    observed = abs(sum(d))
    extreme = sum(abs(sum(s * v for s, v in zip(signs, d, strict=True))) >= observed - 1e-12
                  for signs in itertools.product((1, -1), repeat=len(d)))
    assert paired_permutation_test(xs, ys) == pytest.approx(extreme / 2 ** len(d))
    assert paired_permutation_test([1, 0], [1, 0]) == 1.0
    assert paired_permutation_test([], []) is None
    with pytest.raises(ValueError, match="differ in length"):
        paired_permutation_test([1], [1, 0])


def _exact_p(xs: list[Fraction], ys: list[Fraction]) -> float:
    """Two-sided p by enumerating every sign pattern, in exact arithmetic."""
    d = [x - y for x, y in zip(xs, ys, strict=True)]
    observed = abs(sum(d, Fraction(0)))
    extreme = sum(abs(sum((s * v for s, v in zip(signs, d, strict=True)), Fraction(0))) >= observed
                  for signs in itertools.product((1, -1), repeat=len(d)))
    return extreme / float(1 << len(d))


#: Per-task values as they occur: success means over 1-3 seeds and partial-completion shares.
TASK_VALUES = sorted({Fraction(k, n) for n in (1, 2, 3, 4) for k in range(n + 1)})


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TASK_VALUES), st.sampled_from(TASK_VALUES)), min_size=1, max_size=9))
def test_permutation_test_is_exact_for_small_tables(pairs: list[tuple[Fraction, Fraction]]) -> None:
    # Fractional values whose differences cancel (1/3 + 2/3 - 1) tie with the observation only in exact
    # arithmetic; a float comparison used to give p < 1 for a mean difference of exactly 0.
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    p = paired_permutation_test([float(x) for x in xs], [float(y) for y in ys])
    assert p == pytest.approx(_exact_p(xs, ys), abs=1e-12)


def test_permutation_test_ties_and_single_task() -> None:
    assert paired_permutation_test([1.0], [0.0]) == 1.0  # one pair: both signs are as extreme
    assert paired_permutation_test([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]) == 1.0  # all differences zero
    # Mean difference exactly 0 in fractions, not in floats: p must be 1.
    xs = [1, 1, 0, 0.5, 0.25, 1 / 3]
    ys = [0, 0.25, 2 / 3, 0.5, 1, 2 / 3]
    assert paired_permutation_test(xs, ys) == 1.0


def test_large_samples_use_random_resamples_close_to_exact() -> None:
    xs = [1.0] * 14 + [0.0] * 6
    ys = [0.0] * 8 + [1.0] * 6 + [0.0] * 6  # 8 wins, 0 losses, 12 ties: exact p = 2 / 2**8
    assert paired_permutation_test(xs, ys, n_resamples=5000) == pytest.approx(2 / 256, abs=0.006)


def table() -> list[EpisodeRecord]:
    rows = [
        rec("a", "react+", True, judgement=StopJudgement.RIGHT_TIME, partial=(True, True), steps=4, duration=2.0),
        rec("b", "react+", True, judgement=StopJudgement.EXTRA_STEPS, partial=(True, False), steps=6, duration=3.0),
        rec("c", "react+", False, judgement=StopJudgement.PREMATURE, partial=(True, False), steps=2, duration=1.0),
        rec("d", "react+", False, judgement=StopJudgement.DID_NOT_STOP, stop="max_steps", partial=(False, False),
            steps=20, duration=10.0, grounding=2),
        rec("a", "react-", True, judgement=StopJudgement.RIGHT_TIME, stop="done"),
        rec("b", "react-", False, judgement=StopJudgement.PREMATURE, stop="done", partial=(True, True)),
        rec("c", "react-", False, judgement=StopJudgement.PREMATURE, stop="done", partial=(False, False)),
        rec("d", "react-", None, status=EpisodeStatus.ERROR, stop="device_error", kind="device"),
    ]
    return rows


def test_method_metrics_by_hand() -> None:
    metrics = compute_metrics(table())
    plus = metrics.of("sim", "react+")
    assert plus is not None
    assert (plus.episodes, plus.errored, plus.scored) == (4, 0, 4)
    assert plus.success == pytest.approx(0.5)
    # Partial completion is the share of questions answered yes for successes too (b: 1 of 2).
    assert plus.partial == pytest.approx((1 + 0.5 + 0.5 + 0) / 4)
    assert plus.strict_success == pytest.approx(0.25)
    assert plus.premature_stop == pytest.approx(0.25)
    assert plus.stop_rate == pytest.approx(0.75)
    # Stopped on their own: a, b, c; of those, c stopped prematurely.
    assert plus.stopped == 3 and plus.premature_among_stopped == pytest.approx(1 / 3)
    assert plus.steps == pytest.approx(8.0)
    assert plus.llm_calls == pytest.approx(8.0) and plus.tokens == pytest.approx(1000.0)
    assert plus.s_per_step == pytest.approx(16.0 / 32)
    minus = metrics.of("sim", "react-")
    assert minus is not None
    assert (minus.episodes, minus.errored, minus.scored) == (4, 1, 3)
    assert minus.success == pytest.approx(1 / 3)
    assert minus.partial == pytest.approx((1 + 0) / 2)  # a has no partial questions: no value
    assert minus.stopped == 3 and minus.premature_among_stopped == pytest.approx(2 / 3)
    assert minus.premature_stop == pytest.approx(2 / 3)
    # Paired over tasks a, b, c (d has no - value): + = 1, 1, 0; - = 1, 0, 0 -> one win: p = 1.
    test = metrics.test("sim", "react")
    assert test is not None and test.n == 3
    assert test.plus == pytest.approx(2 / 3) and test.minus == pytest.approx(1 / 3)
    assert test.p_value == pytest.approx(1.0)
    assert metrics.test("sim", "zero-shot") is None


def test_error_categories() -> None:
    rows = table()
    assert [error_category(r) for r in rows] == [
        None, None, ErrorCategory.ACTION_SELECTION, ErrorCategory.GROUNDING, None, ErrorCategory.ACTION_SELECTION,
        ErrorCategory.ACTION_SELECTION, ErrorCategory.ENVIRONMENT]
    assert error_category(rec("x", "react+", None)) is ErrorCategory.UNDETERMINED
    assert error_category(rec("x", "react+", None, status=EpisodeStatus.ERROR, kind="llm")) \
        is ErrorCategory.UNDETERMINED
    counts = {e.method: e for e in compute_metrics(rows).errors}
    assert counts["react-"].get(ErrorCategory.ACTION_SELECTION) == 2
    assert counts["react-"].get(ErrorCategory.ENVIRONMENT) == 1


def test_pooled_over_suites_and_seed_means() -> None:
    rows = [rec("a", "zero-shot+", True, seed=0, suite="s1"), rec("a", "zero-shot+", False, seed=1, suite="s1"),
            rec("a", "zero-shot-", False, seed=0, suite="s1"), rec("a", "zero-shot-", False, seed=1, suite="s1"),
            rec("b", "zero-shot+", True, suite="s2"), rec("b", "zero-shot-", False, suite="s2")]
    metrics = compute_metrics(rows)
    assert metrics.suites == ("s1", "s2")
    pooled = metrics.of(POOLED, "zero-shot+")
    assert pooled is not None and pooled.episodes == 3 and pooled.success == pytest.approx(2 / 3)
    test = metrics.test(POOLED, "zero-shot")
    assert test is not None and test.n == 2
    assert test.plus == pytest.approx((0.5 + 1.0) / 2)  # task a's two seeds are averaged first


def test_ratings_fill_unknown_success(tmp_path: Path) -> None:
    rows = [rec("g1", "react+", None, partial=(None,), stop="completed"),
            rec("g1", "react-", None, stop="max_steps", judgement=StopJudgement.DID_NOT_STOP),
            rec("g2", "react-", None, status=EpisodeStatus.ERROR, kind="llm")]
    assert compute_metrics(rows).of("sim", "react+").success is None  # type: ignore[union-attr]
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(json.dumps(r.to_json()) for r in [
        Rating("g1__react+__s0", True, (PartialAnswer("q0", True),), StopJudgement.RIGHT_TIME),
        Rating("g1__react-__s0", False),
        Rating("g2__react-__s0", True),
    ]) + "\n")
    rated = apply_ratings(rows, load_ratings(path))
    assert rated[0].success is True and rated[0].stop_judgement is StopJudgement.RIGHT_TIME
    assert rated[1].success is False and rated[1].stop_judgement is StopJudgement.DID_NOT_STOP
    assert rated[2].status is EpisodeStatus.ERROR and rated[2].success is None  # nothing to rate
    metrics = compute_metrics(rated)
    assert metrics.of("sim", "react+").strict_success == 1.0  # type: ignore[union-attr]
    assert metrics.of("sim", "react-").success == 0.0  # type: ignore[union-attr]


def test_tied_ratings_keep_the_records_own_values() -> None:
    # Two raters split on everything: the consensus is all null, which must not erase what the checks found.
    own = rec("g1", "react+", False, partial=(True, False), judgement=StopJudgement.PREMATURE)
    tie = Rating(own.key, None, (PartialAnswer("q0", None), PartialAnswer("q1", True)), None)
    (rated,) = apply_ratings([own], {own.key: tie})
    assert rated.success is False and rated.stop_judgement is StopJudgement.PREMATURE
    assert rated.partial == (PartialAnswer("q0", True), PartialAnswer("q1", True))
    assert rated.partial_score == 1.0


# Six tasks over two suites, one seed each: + and - of ReAct. Per task (success, stop judgement, partial answers):
#         +                              -
#   t1    S  right time   (y, y)         S  right time  (y, y)      suite s1
#   t2    S  right time   (y, y)         F  premature   (y, n)      suite s1
#   t3    S  extra steps  (y, y)         F  premature   (n, n)      suite s1
#   t4    S  right time   (y, n)         F  did not stop (y, n)     suite s2
#   t5    F  did not stop (n, n)         F  premature   (n, n)      suite s2
#   t6    F  premature    (y, n)         S  extra steps (y, y)      suite s2
FOUR = {
    "t1": (("s1", True, StopJudgement.RIGHT_TIME, (True, True)), (True, StopJudgement.RIGHT_TIME, (True, True))),
    "t2": (("s1", True, StopJudgement.RIGHT_TIME, (True, True)), (False, StopJudgement.PREMATURE, (True, False))),
    "t3": (("s1", True, StopJudgement.EXTRA_STEPS, (True, True)), (False, StopJudgement.PREMATURE, (False, False))),
    "t4": (("s2", True, StopJudgement.RIGHT_TIME, (True, False)), (False, StopJudgement.DID_NOT_STOP, (True, False))),
    "t5": (("s2", False, StopJudgement.DID_NOT_STOP, (False, False)), (False, StopJudgement.PREMATURE, (False, False))),
    "t6": (("s2", False, StopJudgement.PREMATURE, (True, False)), (True, StopJudgement.EXTRA_STEPS, (True, True))),
}


def four_measures_table() -> list[EpisodeRecord]:
    out = []
    for task, ((suite, success, judgement, partial), (m_success, m_judgement, m_partial)) in FOUR.items():
        out.append(rec(task, "react+", success, suite=suite, judgement=judgement, partial=partial,
                       stop="max_steps" if judgement is StopJudgement.DID_NOT_STOP else "completed"))
        out.append(rec(task, "react-", m_success, suite=suite, judgement=m_judgement, partial=m_partial,
                       stop="max_steps" if m_judgement is StopJudgement.DID_NOT_STOP else "done"))
    return out


def test_paired_tests_on_all_four_measures_by_exact_enumeration() -> None:
    metrics = compute_metrics(four_measures_table())
    # Per-task values over t1..t6, + and -:
    per_task = {
        "success": ([1, 1, 1, 1, 0, 0], [1, 0, 0, 0, 0, 1]),
        "partial": ([1, 1, 1, Fraction(1, 2), 0, Fraction(1, 2)], [1, Fraction(1, 2), 0, Fraction(1, 2), 0, 1]),
        "strict_success": ([1, 1, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0]),
        "premature_stop": ([0, 0, 0, 0, 0, 1], [0, 1, 1, 0, 1, 0]),
    }
    # Pooled, worked by hand (only the non-zero differences matter; each sign pattern is equally likely):
    # success: differences 1, 1, 1, -1 (sum 2); of 16 patterns, sums 4, 2, 0, -2, -4 occur 1, 4, 6, 4, 1
    # times; |sum| >= 2 in 10 -> 10/16. partial: 1/2, 1, -1/2 (sum 1); of the 8 patterns only +-(1/2 - 1 + 1/2)
    # = 0 falls short -> 6/8. strict: 1, 1 -> 2/4. premature: -1, -1, -1, 1 (sum -2) -> 10/16.
    hand = {"success": 10 / 16, "partial": 6 / 8, "strict_success": 2 / 4, "premature_stop": 10 / 16}
    for measure, (plus, minus) in per_task.items():
        xs, ys = [Fraction(x) for x in plus], [Fraction(y) for y in minus]
        assert _exact_p(xs, ys) == pytest.approx(hand[measure])
        test = metrics.test(POOLED, "react", measure)
        assert test is not None and test.n == 6, measure
        assert test.p_value == pytest.approx(hand[measure]), measure
        assert test.plus == pytest.approx(float(sum(xs)) / 6) and test.minus == pytest.approx(float(sum(ys)) / 6)
    # Per suite (t1-t3 and t4-t6), by hand: s1 success 1, 1 -> 2/4; s1 partial 1/2, 1 (sum 3/2): only the two
    # all-same-sign patterns reach 3/2 -> 2/4; s1 strict: one difference -> 1; s1 premature -1, -1 -> 2/4.
    # s2 success 1, -1 (sum 0) -> 1; partial -1/2 alone -> 1; strict 1 alone -> 1; premature -1, 1 -> 1.
    expected = {("s1", "success"): 0.5, ("s1", "partial"): 0.5, ("s1", "strict_success"): 1.0,
                ("s1", "premature_stop"): 0.5, ("s2", "success"): 1.0, ("s2", "partial"): 1.0,
                ("s2", "strict_success"): 1.0, ("s2", "premature_stop"): 1.0}
    for (suite, measure), p in expected.items():
        test = metrics.test(suite, "react", measure)
        assert test is not None and test.n == 3 and test.p_value == pytest.approx(p), (suite, measure)
    assert {t.metric for t in metrics.tests} == set(MEASURES)
    assert len(metrics.tests) == 3 * 4  # s1, s2 and pooled, four measures each


def test_stop_analysis_by_hand() -> None:
    metrics = compute_metrics(four_measures_table())
    plus, minus = metrics.of(POOLED, "react+"), metrics.of(POOLED, "react-")
    assert plus is not None and minus is not None
    # + stopped on its own in every task but t5 (step limit); of those five only t6 was premature.
    assert (plus.stopped, plus.stop_rate, plus.premature_among_stopped) == (5, pytest.approx(5 / 6), 1 / 5)
    # - stopped in all but t4; t2, t3 and t5 were premature.
    assert (minus.stopped, minus.stop_rate, minus.premature_among_stopped) == (5, pytest.approx(5 / 6), 3 / 5)
    # The Table 3 premature-stop rate counts every judged episode: 1/6 and 3/6.
    assert plus.premature_stop == pytest.approx(1 / 6) and minus.premature_stop == pytest.approx(3 / 6)


def test_episode_values() -> None:
    success = rec("x", "react+", True, judgement=StopJudgement.EXTRA_STEPS, partial=(True, False, True, True))
    assert [episode_value(success, m) for m in MEASURES] == [1.0, 0.75, 0.0, 0.0]
    unknown = rec("x", "react+", True)  # a success whose stop nobody judged: strict success unknown
    assert episode_value(unknown, "strict_success") is None and episode_value(unknown, "premature_stop") is None
    assert episode_value(rec("x", "react+", False), "strict_success") == 0.0  # a failure never is one
    errored = rec("x", "react+", None, status=EpisodeStatus.ERROR, partial=(True,))
    assert all(episode_value(errored, m) is None for m in MEASURES)
    with pytest.raises(ValueError, match="unknown measure"):
        episode_value(success, "speed")


def test_rater_root_causes_per_method() -> None:
    rows = four_measures_table()
    causes = {"t5__react+__s0": RootCause.GROUNDING, "t6__react+__s0": RootCause.ACTION_SELECTION,
              "t2__react-__s0": RootCause.BOTH, "t3__react-__s0": RootCause.ACTION_SELECTION,
              "t1__react-__s0": RootCause.ENVIRONMENT}  # t1 succeeded: a cause for a success is not counted
    metrics = compute_metrics(rows, causes=causes)
    by = {(c.suite, c.method): c for c in metrics.causes}
    plus, minus = by[(POOLED, "react+")], by[(POOLED, "react-")]
    assert (plus.failures, plus.rated, plus.share(RootCause.GROUNDING), plus.share(RootCause.BOTH)) == (2, 2, 0.5, 0.0)
    # - failed t2-t5 (4); rated t2 (both) and t3 (action selection).
    assert (minus.failures, minus.rated, minus.get(RootCause.ENVIRONMENT)) == (4, 2, 0)
    assert minus.share(RootCause.ACTION_SELECTION) == 0.5 and minus.share(RootCause.BOTH) == 0.5
    assert by[("s2", "react-")].rated == 0 and by[("s2", "react-")].share(RootCause.BOTH) is None
    assert compute_metrics(rows).causes == ()  # no rater causes: no rater error analysis


def test_bad_ratings_files(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    line = json.dumps(Rating("k", True).to_json())
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(InputError, match="rated twice"):
        load_ratings(path)
    path.write_text('{"record": "rating", "schema_version": 1, "key": "k", "success": "yes"}\n')
    with pytest.raises(InputError, match="success true, false or null"):
        load_ratings(path)
    path.write_text('{"record": "rating", "schema_version": 1, "key": "k", "success": true, '
                    '"stop_judgement": "whenever"}\n')
    with pytest.raises(InputError, match="malformed rating"):
        load_ratings(path)
    path.write_text('{"record": "rating", "schema_version": 1, "key": "k", "success": false, '
                    '"error_cause": "bad luck"}\n')
    with pytest.raises(InputError, match="error_cause must be one of action_selection, grounding, both"):
        load_ratings(path)


def test_ratings_carry_root_causes(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    ratings = [Rating("a", False, error_cause=RootCause.GROUNDING), Rating("b", None, error_cause=None)]
    path.write_text("".join(json.dumps(r.to_json()) + "\n" for r in ratings))
    loaded = load_ratings(path)
    assert loaded["a"].error_cause is RootCause.GROUNDING and loaded["b"].error_cause is None
    assert rated_causes(loaded) == {"a": RootCause.GROUNDING}
    # Files written before causes existed still load.
    path.write_text('{"record": "rating", "schema_version": 1, "key": "k", "success": true}\n')
    assert load_ratings(path)["k"].error_cause is None


def test_methods_no_longer_registered_keep_their_rows_bars_and_no_test() -> None:
    from latent_agent.benchmarks.report_charts import chart_groups
    from latent_agent.benchmarks.report_main import metrics_table

    records = [rec("a", "zero-shot-", False), rec("a", "zero-shot+", True), rec("a", "gone+", True),
               rec("b", "zero-shot-", True), rec("b", "zero-shot+", True), rec("b", "gone+", False)]
    metrics = compute_metrics(records, n_resamples=100)
    assert [m.method for m in metrics.methods] == ["zero-shot-", "zero-shot+", "gone+"]
    assert {(t.method, t.baseline) for t in metrics.tests} == {("zero-shot+", "zero-shot-")}
    groups, series = chart_groups(metrics, "sim")
    assert groups == ["Zero-shot", "gone+"] and series["gone+"]["gone+"].method == "gone+"
    assert [row[0] for row in metrics_table(metrics, "sim").rows] == [
        "Zero-shot (no latent state)", "Zero-shot + latent state", "gone+"]
