"""Sweep metrics: per method, per suite and pooled; paired permutation tests; stop and error analysis.

Everything here is a function of :class:`~latent_agent.benchmarks.results.EpisodeRecord`
values (automatic or rater-scored alike). The four measures of the paper's
Table 3 (:data:`MEASURES`), each a per-episode value (:func:`episode_value`):

* **task success** - completed, whether or not the agent stopped;
* **partial completion** - the share of the task's partial-completion questions
  answered yes (:func:`latent_agent.benchmarks.partial.partial_completion`, for successes too);
* **success with strict stop** - completed *and* stopped at the right time;
* **premature stop** - stopped on its own before the task was done (over every
  episode whose stopping is judged, as in Table 3).

The stop analysis adds the **stop rate** (stopped on its own, ``completed`` /
``done``, rather than at the step limit or on repeated actions, among the
episodes the agent could stop: those whose task page did not end them first,
as MiniWoB++ pages do when their task is over) and the **premature stops among
the episodes that stopped**. Steps, LLM calls, tokens per episode and wall time
per step complete the table.

Rates count finished episodes whose value is known; errored episodes (device,
LLM or runner failures) are counted apart and excluded. The ``+`` / ``-``
variant of each reasoning method are compared on each of the four measures with
a paired, two-sided permutation test over tasks (each task's mean over seeds),
as in the paper.

The error analysis comes in two kinds: the automatic category every record
gets from its trajectory (:func:`error_category`, a guess), and, when raters
assigned each failure its primary root cause (``annotate export --kind
errors``), the share of failures per cause (:class:`CauseCounts`, the paper's
Fig. 3).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from latent_agent.agent.methods import METHODS, pairs
from latent_agent.agent.trajectory import StopReason
from latent_agent.benchmarks.ratings import RootCause
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, StopJudgement, latest

POOLED = "all suites"
#: The paper's Table 3 measures, each tested + against - (see the module docstring).
MEASURES = ("success", "partial", "strict_success", "premature_stop")
#: Resamples of the randomized permutation test; with at most log2 of this many pairs the test is exact.
N_RESAMPLES = 20_000
#: Decimals the mean difference is rounded to before permutations are compared with the observation.
STATISTIC_DECIMALS = 9


class ErrorCategory(StrEnum):
    """Why an episode failed, as far as the trajectory tells: an automatic guess, not a rater's judgement."""

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
        premature_stop: Rate of premature stops (over episodes whose stopping is judged).
        stop_rate: Rate of stopping on its own (before the step limit), among the finished episodes the task
            did not end (None when it ended them all).
        stopped: Finished episodes that stopped on their own.
        task_ended: Finished episodes the task itself ended (a MiniWoB++ page, once its task is over).
        premature_among_stopped: Rate of premature stops among the episodes that stopped on their own
            and whose stopping is judged.
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
    stopped: int
    premature_among_stopped: float | None
    steps: float | None
    llm_calls: float | None
    tokens: float | None
    s_per_step: float | None
    task_ended: int = 0


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A paired permutation test of a method against its baseline (``+`` against ``-``).

    Attributes:
        suite: Suite name, or :data:`POOLED`.
        reasoning: The method's family: ``zero-shot``, ``cot-sc``, ``react`` or a registered one.
        metric: One of :data:`MEASURES`.
        n: Tasks with a value for both methods.
        plus: Mean over those tasks of the method (with latent state).
        minus: Mean over those tasks of its baseline (without).
        p_value: Two-sided p-value (None without pairs).
        method: The method tested (``zero-shot+``).
        baseline: The baseline it was tested against (``zero-shot-``).
    """

    suite: str
    reasoning: str
    metric: str
    n: int
    plus: float | None
    minus: float | None
    p_value: float | None
    method: str = ""
    baseline: str = ""


@dataclass(frozen=True, slots=True)
class ErrorCounts:
    """How many episodes of one method failed for each reason."""

    suite: str
    method: str
    counts: tuple[tuple[ErrorCategory, int], ...]

    def get(self, category: ErrorCategory) -> int:
        return dict(self.counts).get(category, 0)


@dataclass(frozen=True, slots=True)
class CauseCounts:
    """Raters' primary root causes of one method's failures (the paper's Fig. 3).

    Attributes:
        suite: Suite name, or :data:`POOLED`.
        method: Agent variant.
        failures: Finished episodes that failed.
        rated: Failures a rater assigned a cause to.
        counts: Rated failures per cause.
    """

    suite: str
    method: str
    failures: int
    rated: int
    counts: tuple[tuple[RootCause, int], ...]

    def get(self, cause: RootCause) -> int:
        return dict(self.counts).get(cause, 0)

    def share(self, cause: RootCause) -> float | None:
        """Share of the rated failures with this cause (None when none is rated)."""
        return self.get(cause) / self.rated if self.rated else None


@dataclass(frozen=True, slots=True)
class Metrics:
    """Everything the report shows."""

    methods: tuple[MethodMetrics, ...]
    tests: tuple[PairedTest, ...]
    errors: tuple[ErrorCounts, ...]
    suites: tuple[str, ...]
    causes: tuple[CauseCounts, ...] = ()

    def of(self, suite: str, method: str) -> MethodMetrics | None:
        return next((m for m in self.methods if m.suite == suite and m.method == method), None)

    def test(self, suite: str, reasoning: str, metric: str = "success") -> PairedTest | None:
        return next((t for t in self.tests if t.suite == suite and t.reasoning == reasoning and t.metric == metric),
                    None)

    def test_of(self, suite: str, method: str, metric: str = "success") -> PairedTest | None:
        """The test of ``method`` against its baseline, if it was made."""
        return next((t for t in self.tests if t.suite == suite and t.method == method and t.metric == metric), None)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def episode_value(record: EpisodeRecord, measure: str) -> float | None:
    """One episode's value of a Table 3 measure (1.0 / 0.0, or a share), None when unknown or errored.

    Raises:
        ValueError: For a measure not in :data:`MEASURES`.
    """
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}; expected one of {', '.join(MEASURES)}")
    if record.status is not EpisodeStatus.FINISHED:
        return None
    if measure == "success":
        return None if record.success is None else float(record.success)
    if measure == "partial":
        return record.partial_score
    if measure == "strict_success":
        if record.success is None:
            return None
        if not record.success:
            return 0.0  # a failure is never a strict success, whenever it stopped
        return None if record.stop_judgement is None else float(record.stop_judgement is StopJudgement.RIGHT_TIME)
    return None if record.stop_judgement is None else float(record.stop_judgement is StopJudgement.PREMATURE)


def _measure(records: Iterable[EpisodeRecord], measure: str) -> float | None:
    return _mean([v for v in (episode_value(r, measure) for r in records) if v is not None])


def method_metrics(suite: str, method: str, records: Sequence[EpisodeRecord]) -> MethodMetrics:
    """The metrics of one group of records (see the module docstring)."""
    finished = [r for r in records if r.status is EpisodeStatus.FINISHED]
    scored = [r for r in finished if r.success is not None]
    stopped = [r for r in finished if r.self_stopped]
    # A page that ends its episode when the task is over leaves the agent nothing to stop.
    stoppable = [r for r in finished if r.stop_reason is not StopReason.TASK_ENDED]
    steps = sum(r.steps for r in finished)
    return MethodMetrics(
        suite=suite, method=method, episodes=len(records), errored=len(records) - len(finished), scored=len(scored),
        success=_measure(finished, "success"),
        partial=_measure(finished, "partial"),
        strict_success=_measure(finished, "strict_success"),
        premature_stop=_measure(finished, "premature_stop"),
        stop_rate=_mean([float(r.self_stopped) for r in stoppable]),
        stopped=len(stopped),
        premature_among_stopped=_measure(stopped, "premature_stop"),
        steps=_mean([float(r.steps) for r in finished]),
        llm_calls=_mean([float(r.llm_calls) for r in finished]),
        tokens=_mean([float(r.tokens) for r in finished]),
        s_per_step=sum(r.duration_s for r in finished) / steps if steps else None,
        task_ended=len(finished) - len(stoppable),
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


#: The root cause a rater would pick for each automatic category (undetermined has none).
_GUESSED_CAUSES = {ErrorCategory.ACTION_SELECTION: RootCause.ACTION_SELECTION, ErrorCategory.GROUNDING:
                   RootCause.GROUNDING, ErrorCategory.ENVIRONMENT: RootCause.ENVIRONMENT}


def guessed_cause(record: EpisodeRecord) -> RootCause | None:
    """The automatic category of a failure expressed as a rater's root cause: a guess to show raters, no more."""
    category = error_category(record)
    return _GUESSED_CAUSES.get(category) if category is not None else None


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
    from scipy.stats import permutation_test  # the stats extra: only a report with tests needs it

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
    """(suite, task) -> mean of ``metric`` over the task's finished episodes with a known value."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        value = episode_value(r, metric)
        if value is not None:
            values[(r.suite, r.task_id)].append(value)
    return {k: sum(v) / len(v) for k, v in values.items()}


def paired_tests(suite: str, records: Sequence[EpisodeRecord], *, n_resamples: int = N_RESAMPLES
                 ) -> list[PairedTest]:
    """Each registered method against its baseline (``+`` against ``-``) on each of :data:`MEASURES`.

    A pair is tested when both methods are in ``records``; a task enters the test of a measure when
    both have a value for it. The test's ``reasoning`` is the method's family.
    """
    by_method: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        by_method[r.method].append(r)
    out: list[PairedTest] = []
    for method, baseline in pairs():
        reasoning = method.family.name
        plus_records, minus_records = by_method.get(method.name), by_method.get(baseline.name)
        if not plus_records or not minus_records:
            continue
        for metric in MEASURES:
            plus, minus = _per_task(plus_records, metric), _per_task(minus_records, metric)
            tasks = sorted(set(plus) & set(minus))
            xs, ys = [plus[t] for t in tasks], [minus[t] for t in tasks]
            out.append(PairedTest(suite, reasoning, metric, len(tasks), _mean(xs), _mean(ys),
                                  paired_permutation_test(xs, ys, n_resamples=n_resamples), method.name,
                                  baseline.name))
    return out


def _ordered_methods(records: Iterable[EpisodeRecord]) -> list[str]:
    present = {r.method for r in records}
    return [m for m in METHODS if m in present] + sorted(present - set(METHODS))


def cause_counts(suite: str, method: str, records: Sequence[EpisodeRecord],
                 causes: Mapping[str, RootCause]) -> CauseCounts:
    """Raters' root causes of the failures among ``records`` (episode key -> cause).

    A cause given for an episode that is not a failure (a later rating judged it a success) is not counted.
    """
    failures = [r for r in records if r.status is EpisodeStatus.FINISHED and r.success is False]
    rated = [causes[r.key] for r in failures if r.key in causes]
    return CauseCounts(suite, method, len(failures), len(rated),
                       tuple((c, sum(1 for x in rated if x is c)) for c in RootCause))


def compute_metrics(records: Iterable[EpisodeRecord], *, n_resamples: int = N_RESAMPLES,
                    causes: Mapping[str, RootCause] | None = None) -> Metrics:
    """Metrics of a sweep (or several): per suite and method, pooled over suites, tests and error counts.

    Only the newest attempt of each episode counts.

    Args:
        records: The sweep's records (rater verdicts already applied, if any).
        n_resamples: Resamples of the permutation tests.
        causes: Raters' primary root cause per failed episode key; without it there is no rater error analysis.
    """
    current = list(latest(records).values())
    suites = sorted({r.suite for r in current})
    groups: list[tuple[str, list[EpisodeRecord]]] = [(s, [r for r in current if r.suite == s]) for s in suites]
    if len(suites) > 1:
        groups.append((POOLED, current))
    methods: list[MethodMetrics] = []
    tests: list[PairedTest] = []
    errors: list[ErrorCounts] = []
    rated_causes: list[CauseCounts] = []
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
            if causes:
                rated_causes.append(cause_counts(suite, method, mine, causes))
        tests.extend(paired_tests(suite, group, n_resamples=n_resamples))
    return Metrics(tuple(methods), tuple(tests), tuple(errors), tuple(suites), tuple(rated_causes))
