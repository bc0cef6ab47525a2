"""Metrics on hand-made tables: rates, paired permutation tests checked by hand, error categories, ratings."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.metrics import POOLED, ErrorCategory, compute_metrics, error_category, paired_permutation_test
from benchmarks.ratings import Rating, apply_ratings, load_ratings
from benchmarks.results import EpisodeRecord, EpisodeStatus, PartialAnswer, StopJudgement
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
        rec("a", "react+", True, judgement=StopJudgement.RIGHT_TIME, steps=4, duration=2.0),
        rec("b", "react+", True, judgement=StopJudgement.EXTRA_STEPS, steps=6, duration=3.0),
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
    assert plus.partial == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert plus.strict_success == pytest.approx(0.25)
    assert plus.premature_stop == pytest.approx(0.25)
    assert plus.stop_rate == pytest.approx(0.75)
    assert plus.steps == pytest.approx(8.0)
    assert plus.llm_calls == pytest.approx(8.0) and plus.tokens == pytest.approx(1000.0)
    assert plus.s_per_step == pytest.approx(16.0 / 32)
    minus = metrics.of("sim", "react-")
    assert minus is not None
    assert (minus.episodes, minus.errored, minus.scored) == (4, 1, 3)
    assert minus.success == pytest.approx(1 / 3)
    assert minus.partial == pytest.approx((1 + 1 + 0) / 3)
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
