"""Sweep metrics: per method, per suite and pooled; paired permutation tests; error analysis.

Everything here is a function of :class:`~benchmarks.results.EpisodeRecord`
values (automatic or rater-scored alike):

* **task success** - completed, whether or not the agent stopped;
* **partial completion** - mean fraction of partial-completion questions answered yes (1 for a success);
* **success with strict stop** - completed *and* stopped at the right time;
* **premature stop** - stopped on its own before the task was done;
* **stop rate** - stopped on its own (``completed`` / ``done``) rather than by a limit;
* steps, LLM calls, tokens per episode and wall time per step.

Rates count finished episodes whose value is known; errored episodes (device,
LLM or runner failures) are counted apart and excluded. The ``+`` / ``-``
variant of each reasoning method are compared with a paired, two-sided
permutation test over tasks (each task's mean over seeds), as in the paper.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from benchmarks.plan import METHODS, pair_of
from benchmarks.results import EpisodeRecord, EpisodeStatus, StopJudgement, latest

POOLED = "all suites"
#: Resamples of the randomized permutation test; with at most log2 of this many pairs the test is exact.
N_RESAMPLES = 20_000
#: Decimals the mean difference is rounded to before permutations are compared with the observation.
STATISTIC_DECIMALS = 9


class ErrorCategory(StrEnum):
    """Why an episode failed, where the trajectory tells."""

    ACTION_SELECTION = "action selection"  # a wrong step was chosen (or the agent stopped wrongly)
    GROUNDING = "grounding"  # a chosen step could not be turned into a valid action
    ENVIRONMENT = "environment"  # the device failed
    UNDETERMINED = "undetermined"  # not scored yet, or the LLM / budget / runner failed


@dataclass(frozen=True, slots=True)
class MethodMetrics:
    """The metrics of one method on one suite (or pooled over suites).

    Attributes:
        suite: Suite name, or :data:`POOLED`.
        method: Agent variant.
        episodes: Records (finished and errored).
        errored: Errored episodes (excluded from the rates).
        scored: Finished episodes whose success is known.
        success: Task success rate.
        partial: Mean partial completion.
        strict_success: Rate of success with a stop at the right time.
        premature_stop: Rate of premature stops.
        stop_rate: Rate of stopping on its own.
        steps: Mean steps per finished episode.
        llm_calls: Mean LLM calls per finished episode.
        tokens: Mean tokens per finished episode.
        s_per_step: Wall time per step (total time / total steps).
    """

    suite: str
    method: str
    episodes: int
    errored: int
    scored: int
    success: float | None
    partial: float | None
    strict_success: float | None
    premature_stop: float | None
    stop_rate: float | None
    steps: float | None
    llm_calls: float | None
    tokens: float | None
    s_per_step: float | None


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A paired permutation test of ``+`` against ``-`` for one reasoning method.

    Attributes:
        suite: Suite name, or :data:`POOLED`.
        reasoning: ``zero-shot``, ``cot-sc`` or ``react``.
        metric: ``success`` or ``partial``.
        n: Tasks with a value for both variants.
        plus: Mean over those tasks with latent state.
        minus: Mean over those tasks without.
        p_value: Two-sided p-value (None without pairs).
    """

    suite: str
    reasoning: str
    metric: str
    n: int
    plus: float | None
    minus: float | None
    p_value: float | None


@dataclass(frozen=True, slots=True)
class ErrorCounts:
    """How many episodes of one method failed for each reason."""

    suite: str
    method: str
    counts: tuple[tuple[ErrorCategory, int], ...]

    def get(self, category: ErrorCategory) -> int:
        return dict(self.counts).get(category, 0)


@dataclass(frozen=True, slots=True)
class Metrics:
    """Everything the report shows."""

    methods: tuple[MethodMetrics, ...]
    tests: tuple[PairedTest, ...]
    errors: tuple[ErrorCounts, ...]
    suites: tuple[str, ...]

    def of(self, suite: str, method: str) -> MethodMetrics | None:
        return next((m for m in self.methods if m.suite == suite and m.method == method), None)

    def test(self, suite: str, reasoning: str, metric: str = "success") -> PairedTest | None:
        return next((t for t in self.tests if t.suite == suite and t.reasoning == reasoning and t.metric == metric),
                    None)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def method_metrics(suite: str, method: str, records: Sequence[EpisodeRecord]) -> MethodMetrics:
    """The metrics of one group of records (see the module docstring)."""
    finished = [r for r in records if r.status is EpisodeStatus.FINISHED]
    scored = [r for r in finished if r.success is not None]
    partials = [p for p in (r.partial_score for r in finished) if p is not None]
    strict_known = [r for r in scored if not r.success or r.stop_judgement is not None]
    judged = [r for r in finished if r.stop_judgement is not None]
    steps = sum(r.steps for r in finished)
    return MethodMetrics(
        suite=suite, method=method, episodes=len(records), errored=len(records) - len(finished), scored=len(scored),
        success=_mean([float(bool(r.success)) for r in scored]),
        partial=_mean(partials),
        strict_success=_mean([float(bool(r.success) and r.stop_judgement is StopJudgement.RIGHT_TIME)
                              for r in strict_known]),
        premature_stop=_mean([float(r.stop_judgement is StopJudgement.PREMATURE) for r in judged]),
        stop_rate=_mean([float(r.self_stopped) for r in finished]),
        steps=_mean([float(r.steps) for r in finished]),
        llm_calls=_mean([float(r.llm_calls) for r in finished]),
        tokens=_mean([float(r.tokens) for r in finished]),
        s_per_step=sum(r.duration_s for r in finished) / steps if steps else None,
    )


def error_category(record: EpisodeRecord) -> ErrorCategory | None:
    """Why an episode failed (None for a success)."""
    if record.status is EpisodeStatus.ERROR:
        return ErrorCategory.ENVIRONMENT if record.error_kind == "device" else ErrorCategory.UNDETERMINED
    if record.success is None:
        return ErrorCategory.UNDETERMINED
    if record.success:
        return None
    return ErrorCategory.GROUNDING if record.grounding_errors else ErrorCategory.ACTION_SELECTION


def paired_permutation_test(plus: Sequence[float], minus: Sequence[float], *, n_resamples: int = N_RESAMPLES,
                            seed: int = 0) -> float | None:
    """Two-sided p-value of a paired permutation test on the mean difference (scipy).

    Each pair's two values are swapped at random (``permutation_type="samples"``);
    with ``2**n <= n_resamples`` every one of the 2**n swaps is enumerated, so small
    tables get the exact p-value.

    Returns:
        The p-value, 1.0 when every pair is tied, None without pairs.
    """
    if len(plus) != len(minus):
        raise ValueError(f"paired samples differ in length: {len(plus)} and {len(minus)}")
    if not plus:
        return None
    if len(plus) == 1 or all(a == b for a, b in zip(plus, minus, strict=True)):
        # One pair: both sign patterns are as extreme as the observation (scipy needs two pairs).
        return 1.0
    import numpy as np
    from scipy.stats import permutation_test

    def statistic(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        # Per-task values are fractions (seed means, partial scores): sign patterns whose mean difference
        # equals the observed one exactly can differ from it in the last bits (1/3 + 2/3 - 1 != 0 in
        # floats), and scipy's relative tolerance does not cover an observation near 0. Rounding makes
        # such ties exact, so they count as "as extreme", as they must.
        return np.asarray(np.round(np.mean(x - y, axis=axis), STATISTIC_DECIMALS))

    result = permutation_test((np.asarray(plus, float), np.asarray(minus, float)), statistic,
                              permutation_type="samples", alternative="two-sided", n_resamples=n_resamples,
                              vectorized=True, random_state=seed)
    return float(result.pvalue)


def _per_task(records: Iterable[EpisodeRecord], metric: str) -> dict[tuple[str, str], float]:
    """(suite, task) -> mean of ``metric`` over the task's finished, scored episodes."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        if r.status is not EpisodeStatus.FINISHED:
            continue
        value = (float(r.success) if r.success is not None else None) if metric == "success" else r.partial_score
        if value is not None:
            values[(r.suite, r.task_id)].append(value)
    return {k: sum(v) / len(v) for k, v in values.items()}


def paired_tests(suite: str, records: Sequence[EpisodeRecord], *, n_resamples: int = N_RESAMPLES
                 ) -> list[PairedTest]:
    """``+`` against ``-`` for each reasoning method with both variants in ``records``."""
    by_method: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        by_method[r.method].append(r)
    out: list[PairedTest] = []
    for reasoning in dict.fromkeys(pair_of(m)[0] for m in METHODS):
        plus_records, minus_records = by_method.get(reasoning + "+"), by_method.get(reasoning + "-")
        if not plus_records or not minus_records:
            continue
        for metric in ("success", "partial"):
            plus, minus = _per_task(plus_records, metric), _per_task(minus_records, metric)
            tasks = sorted(set(plus) & set(minus))
            xs, ys = [plus[t] for t in tasks], [minus[t] for t in tasks]
            out.append(PairedTest(suite, reasoning, metric, len(tasks), _mean(xs), _mean(ys),
                                  paired_permutation_test(xs, ys, n_resamples=n_resamples)))
    return out


def _ordered_methods(records: Iterable[EpisodeRecord]) -> list[str]:
    present = {r.method for r in records}
    return [m for m in METHODS if m in present] + sorted(present - set(METHODS))


def compute_metrics(records: Iterable[EpisodeRecord], *, n_resamples: int = N_RESAMPLES) -> Metrics:
    """Metrics of a sweep (or several): per suite and method, pooled over suites, tests and error counts.

    Only the newest attempt of each episode counts.
    """
    current = list(latest(records).values())
    suites = sorted({r.suite for r in current})
    groups: list[tuple[str, list[EpisodeRecord]]] = [(s, [r for r in current if r.suite == s]) for s in suites]
    if len(suites) > 1:
        groups.append((POOLED, current))
    methods: list[MethodMetrics] = []
    tests: list[PairedTest] = []
    errors: list[ErrorCounts] = []
    for suite, group in groups:
        for method in _ordered_methods(group):
            mine = [r for r in group if r.method == method]
            methods.append(method_metrics(suite, method, mine))
            counts: dict[ErrorCategory, int] = defaultdict(int)
            for r in mine:
                category = error_category(r)
                if category is not None:
                    counts[category] += 1
            errors.append(ErrorCounts(suite, method, tuple((c, counts[c]) for c in ErrorCategory)))
        tests.extend(paired_tests(suite, group, n_resamples=n_resamples))
    return Metrics(tuple(methods), tuple(tests), tuple(errors), tuple(suites))
