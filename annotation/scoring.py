"""``annotate score``: the paper's Table 2 and Table 3 from rater answers, with baselines and agreement.

Every rating counts once: with several raters per item, accuracies pool the
ratings (an item rated by three raters contributes three ratings).

**Table 2** (latent forms) gives, per benchmark and in total, the accuracy of
each latent-state aspect: the share of ratings judging the estimate right.
The screen summary has three rows (accurate high-level description; no
incorrect information; none disregarding positions). For three aspects a
naive baseline is scored from the same ratings, and so is the accuracy on the
*hard cases*, the steps where the baseline is wrong:

* previous action: the baseline says the performed action is the commanded
  one. The agent's inferred previous action *says the same* as the commanded
  step as the paper's App. J decides it: fuzzywuzzy's simple ratio of the two
  raw strings (rapidfuzz ``fuzz.ratio``: no lower-casing, no punctuation
  stripping) exceeds 80, and the inferred action does not contain "do not"
  (a literal, case-sensitive test of the inferred action only; the commanded
  step may say "do not"). Where they say the same, the baseline is right
  exactly when the rater judged the inference right; where they differ and
  the inference was judged right, the baseline is wrong (the performed action was not the commanded
  one: a hard case). Where they differ and the inference was judged wrong,
  the truth is not known; the baseline is counted right (its most favourable
  reading) and the count is reported as ``baseline_undetermined``.
* mistakes: the baseline says no mistake was ever made; the agent's
  assessment agrees when it says there are no mistakes.
* completion: the baseline says the goal is never complete; the agent's
  estimate agrees when it starts with "No".

For mistakes and completion the judgement is binary, so the baseline is right
exactly when (agent agrees with it) == (rater judged the agent right).

**Table 3** (e2e forms) gives, per benchmark and method: completion regardless
of stopping, success (completed and stopped at the right time), the share of
each stopping judgement, and mean partial completion (share of a task's
partial-completion questions answered yes, :func:`latent_agent.benchmarks.partial.partial_completion`,
the same function the sweep's metrics use).

**Error analysis** (errors forms, the paper's Fig. 3) gives, per benchmark and
method, the share of ratings naming each primary root cause of a failure
(action selection, grounding, both, environment), and how often the raters
picked the project's automatic guess where the page showed one. The guess is
never counted as an answer: only what raters chose is.

**Agreement**: for each question, over the items two or more raters
answered: raw agreement, mean pairwise Cohen's kappa and Fleiss' kappa (over
the items with the most common number of raters).
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

from rapidfuzz import fuzz

from latent_agent.agent.latent_state.chain import is_complete, no_mistakes
from latent_agent.annotation.agreement import cohen_kappa, fleiss_kappa
from latent_agent.annotation.forms import SCHEMA_VERSION, LatentContext, read_json
from latent_agent.annotation.importer import Rated
from latent_agent.annotation.questions import (
    COMPLETED,
    COMPLETION_CORRECT,
    ERROR_CAUSE,
    MISTAKES_CORRECT,
    NEXT_ACTION_MISTAKE,
    NO,
    PARTIAL_PREFIX,
    PREVIOUS_ACTION_CORRECT,
    PROGRESSION_CORRECT,
    STOPPING,
    SUMMARY_ACCURATE,
    SUMMARY_INCORRECT,
    SUMMARY_INCORRECT_IGNORING_POSITION,
    YES,
    FormKind,
    Stopping,
)
from latent_agent.atomic_write import write_atomic
from latent_agent.benchmarks.partial import partial_completion
from latent_agent.benchmarks.ratings import RootCause
from latent_agent.errors import AnnotationError

SCORES_FILE = "scores.json"
RECORD = "annotation_scores"
ALL = "all"
#: App. J: fuzzy simple ratio (0-100) of the raw strings above which the inferred and commanded action say the same.
SAME_ACTION_RATIO = 80.0
#: App. J: an inferred action containing this (literally) never says the same as the commanded one.
NEGATION = "do not"


class Aspect(StrEnum):
    """Rows of Table 2."""

    PREVIOUS_ACTION = "previous_action"
    SCREEN_SUMMARY = "screen_summary"
    SUMMARY_NO_INCORRECT = "summary_no_incorrect"
    SUMMARY_NO_INCORRECT_IGNORING_POSITION = "summary_no_incorrect_ignoring_position"
    PROGRESSION = "progression"
    MISTAKES = "mistakes"
    COMPLETION = "completion"


#: aspect -> (question, answer meaning the estimate is right)
ASPECT_QUESTIONS: dict[Aspect, tuple[str, str]] = {
    Aspect.PREVIOUS_ACTION: (PREVIOUS_ACTION_CORRECT.id, YES),
    Aspect.SCREEN_SUMMARY: (SUMMARY_ACCURATE.id, YES),
    Aspect.SUMMARY_NO_INCORRECT: (SUMMARY_INCORRECT.id, NO),
    Aspect.SUMMARY_NO_INCORRECT_IGNORING_POSITION: (SUMMARY_INCORRECT_IGNORING_POSITION.id, NO),
    Aspect.PROGRESSION: (PROGRESSION_CORRECT.id, YES),
    Aspect.MISTAKES: (MISTAKES_CORRECT.id, YES),
    Aspect.COMPLETION: (COMPLETION_CORRECT.id, YES),
}


@dataclass(frozen=True, slots=True)
class AspectScore:
    """One cell group of Table 2: an aspect on a benchmark (or ``"all"``).

    Attributes:
        benchmark: Benchmark name, or ``"all"``.
        aspect: The latent-state aspect.
        ratings: Ratings the accuracy is computed from.
        accuracy: Share of ratings judging the agent's estimate right.
        baseline: Accuracy of the naive baseline (``None`` for aspects without one).
        baseline_undetermined: Ratings where the baseline's correctness is unknown (counted right).
        hard_ratings: Ratings of hard cases (the baseline is wrong).
        hard_accuracy: The agent's accuracy on them (``None`` when there are none).
    """

    benchmark: str
    aspect: Aspect
    ratings: int
    accuracy: float
    baseline: float | None = None
    baseline_undetermined: int = 0
    hard_ratings: int = 0
    hard_accuracy: float | None = None


@dataclass(frozen=True, slots=True)
class MistakeRate:
    """Share of the agent's actions raters judged mistakes (the "next action a mistake?" question)."""

    benchmark: str
    ratings: int
    rate: float


@dataclass(frozen=True, slots=True)
class E2EScore:
    """One row of Table 3: a method on a benchmark (or ``"all"``)."""

    benchmark: str
    method: str
    episodes: int
    ratings: int
    completed: float
    success: float
    stopping: Mapping[str, float]
    partial: float | None


@dataclass(frozen=True, slots=True)
class EpisodeScore:
    """Rater verdicts on one episode, for ``latent-agent report`` to join with ``results.jsonl``.

    Values are shares of this episode's ratings (1.0 or 0.0 with one rater).
    """

    episode_id: str
    form_id: str
    benchmark: str
    method: str
    task_id: str | None
    seed: int | None
    trajectory: str
    raters: tuple[str, ...]
    completed: float
    success: float
    stopping: Mapping[str, float]
    partial: float | None


@dataclass(frozen=True, slots=True)
class CauseScore:
    """The raters' error analysis of one method on a benchmark (or ``"all"``).

    Attributes:
        benchmark: Benchmark name, or ``"all"``.
        method: Agent method.
        episodes: Failed episodes rated.
        ratings: Ratings (an episode rated by two raters counts twice).
        shares: Share of the ratings naming each root cause (every :class:`RootCause` value).
        guessed: Ratings of pages that showed an automatic guess.
        guess_agreement: Share of those ratings that named the guessed cause (``None`` without any).
    """

    benchmark: str
    method: str
    episodes: int
    ratings: int
    shares: Mapping[str, float]
    guessed: int
    guess_agreement: float | None


@dataclass(frozen=True, slots=True)
class Agreement:
    """Inter-rater agreement on one question."""

    kind: FormKind
    question: str
    items: int
    raters: int
    percent_agreement: float
    cohen_kappa: float | None
    fleiss_kappa: float | None
    fleiss_items: int


@dataclass(frozen=True, slots=True)
class Scores:
    """Everything ``annotate score`` computes (and writes to ``scores.json``)."""

    table2: tuple[AspectScore, ...]
    mistake_rates: tuple[MistakeRate, ...]
    table3: tuple[E2EScore, ...]
    episodes: tuple[EpisodeScore, ...]
    agreement: tuple[Agreement, ...]
    causes: tuple[CauseScore, ...] = ()


# -- judgements -------------------------------------------------------------------------


def same_action(inferred: str, commanded: str) -> bool:
    """Whether the inferred previous action says the same as the commanded step: the App. J baseline's test.

    The ratio is computed on the strings as the agent wrote them: a processor that lower-cases or strips
    punctuation would match pairs the paper's baseline does not (``"click on wi-fi."`` against
    ``"Click on Wi-Fi"`` scores 75.9, not 100).
    """
    if NEGATION in inferred:
        return False
    return fuzz.ratio(inferred, commanded) > SAME_ACTION_RATIO


def says_no_mistakes(assessment: str) -> bool:
    """Whether a mistake assessment says no (uncorrected) mistake has been made, read by the chain's own test."""
    return no_mistakes(assessment)


def says_complete(estimate: str) -> bool:
    """Whether a completion estimate says the goal is complete: the ``+`` agents' own stop rule.

    Judged exactly as the agent judged it (``**Yes**`` and ``"Yes"`` count), so the baseline is compared
    with what the agent actually concluded.
    """
    return is_complete(estimate)


@dataclass(frozen=True, slots=True)
class _Judged:
    """The baseline's verdict on one rating: right or not, and whether that is known."""

    right: bool
    determined: bool = True


def _baseline(aspect: Aspect, ctx: LatentContext, agent_right: bool) -> _Judged | None:
    if aspect is Aspect.PREVIOUS_ACTION:
        if ctx.previous_action is None or ctx.commanded is None:
            return None
        if same_action(ctx.previous_action, ctx.commanded):
            return _Judged(agent_right)
        return _Judged(True, determined=False) if not agent_right else _Judged(False)
    if aspect is Aspect.MISTAKES:
        return _Judged(says_no_mistakes(ctx.mistakes) == agent_right)
    if aspect is Aspect.COMPLETION:
        if ctx.completion is None:
            return None
        return _Judged((not says_complete(ctx.completion)) == agent_right)
    return None


# -- tables ------------------------------------------------------------------------------


def _share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def _table2(rated: Sequence[Rated]) -> tuple[list[AspectScore], list[MistakeRate]]:
    # (benchmark, aspect) -> list of (agent right, baseline verdict or None)
    cells: dict[tuple[str, Aspect], list[tuple[bool, _Judged | None]]] = defaultdict(list)
    mistakes: dict[str, list[bool]] = defaultdict(list)
    for r in rated:
        if r.form.kind is not FormKind.LATENT:
            continue
        bench = r.form.episode.benchmark
        for item in r.form.items:
            assert item.latent is not None
            for a in r.answers:
                values = a.answers[item.item_id]
                for aspect, (qid, right_value) in ASPECT_QUESTIONS.items():
                    if qid not in values:
                        continue
                    right = values[qid] == right_value
                    verdict = _baseline(aspect, item.latent, right)
                    for b in (bench, ALL):
                        cells[(b, aspect)].append((right, verdict))
                if NEXT_ACTION_MISTAKE.id in values:
                    for b in (bench, ALL):
                        mistakes[b].append(values[NEXT_ACTION_MISTAKE.id] == YES)
    rows = []
    for (bench, aspect), ratings in sorted(cells.items(), key=lambda kv: (kv[0][0] == ALL, kv[0][0],
                                                                           list(Aspect).index(kv[0][1]))):
        verdicts = [(right, v) for right, v in ratings if v is not None]
        hard = [right for right, v in verdicts if not v.right]
        rows.append(AspectScore(
            benchmark=bench, aspect=aspect, ratings=len(ratings), accuracy=_share([r for r, _ in ratings]),
            baseline=_share([v.right for _, v in verdicts]) if verdicts else None,
            baseline_undetermined=sum(not v.determined for _, v in verdicts),
            hard_ratings=len(hard), hard_accuracy=_share(hard) if hard else None,
        ))
    ordered = sorted(mistakes.items(), key=lambda kv: (kv[0] == ALL, kv[0]))
    rates = [MistakeRate(b, len(v), _share(v)) for b, v in ordered]
    return rows, rates


@dataclass(frozen=True, slots=True)
class _E2ERating:
    completed: bool
    stopping: str
    partial: float | None


def _e2e_rating(values: Mapping[str, str]) -> _E2ERating:
    partial = partial_completion(v == YES for k, v in values.items() if k.startswith(PARTIAL_PREFIX))
    return _E2ERating(values[COMPLETED.id] == YES, values[STOPPING.id], partial)


def _summarize(ratings: Sequence[_E2ERating]) -> tuple[float, float, dict[str, float], float | None]:
    partial = [r.partial for r in ratings if r.partial is not None]
    return (
        _share([r.completed for r in ratings]),
        _share([r.completed and r.stopping == Stopping.RIGHT_TIME.value for r in ratings]),
        {s.value: _share([r.stopping == s.value for r in ratings]) for s in Stopping},
        sum(partial) / len(partial) if partial else None,
    )


def _table3(rated: Sequence[Rated]) -> tuple[list[E2EScore], list[EpisodeScore]]:
    groups: dict[tuple[str, str], list[_E2ERating]] = defaultdict(list)
    episodes_in: dict[tuple[str, str], set[str]] = defaultdict(set)
    per_episode = []
    for r in rated:
        if r.form.kind is not FormKind.E2E:
            continue
        ep = r.form.episode
        ratings = [_e2e_rating(a.answers[r.form.items[0].item_id]) for a in r.answers]
        for key in ((ep.benchmark, ep.method), (ALL, ep.method)):
            groups[key].extend(ratings)
            episodes_in[key].add(r.form.form_id)
        completed, success, stopping, partial = _summarize(ratings)
        per_episode.append(EpisodeScore(ep.episode_id, r.form.form_id, ep.benchmark, ep.method, ep.task_id,
                                        ep.seed, ep.trajectory, tuple(a.rater for a in r.answers), completed,
                                        success, stopping, partial))
    rows = []
    for (bench, method), ratings in sorted(groups.items(), key=lambda kv: (kv[0][0] == ALL, kv[0])):
        completed, success, stopping, partial = _summarize(ratings)
        rows.append(E2EScore(bench, method, len(episodes_in[(bench, method)]), len(ratings), completed, success,
                             stopping, partial))
    return rows, per_episode


def _causes(rated: Sequence[Rated]) -> list[CauseScore]:
    # (benchmark, method) -> list of (cause named, guess shown or None)
    groups: dict[tuple[str, str], list[tuple[str, str | None]]] = defaultdict(list)
    episodes_in: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in rated:
        if r.form.kind is not FormKind.ERRORS:
            continue
        (item,) = r.form.items
        ep = r.form.episode
        for key in ((ep.benchmark, ep.method), (ALL, ep.method)):
            groups[key].extend((a.answers[item.item_id][ERROR_CAUSE.id], item.guess) for a in r.answers)
            episodes_in[key].add(r.form.form_id)
    rows = []
    for (bench, method), ratings in sorted(groups.items(), key=lambda kv: (kv[0][0] == ALL, kv[0])):
        guessed = [named == guess for named, guess in ratings if guess is not None]
        rows.append(CauseScore(
            bench, method, len(episodes_in[(bench, method)]), len(ratings),
            {c.value: _share([named == c.value for named, _ in ratings]) for c in RootCause},
            len(guessed), _share(guessed) if guessed else None,
        ))
    return rows


def _agreement(rated: Sequence[Rated]) -> list[Agreement]:
    # (kind, question) -> item key -> rater -> label
    labels: dict[tuple[FormKind, str], dict[tuple[str, str], dict[str, str]]] = defaultdict(dict)
    for r in rated:
        for item in r.form.items:
            for a in r.answers:
                for qid, value in a.answers[item.item_id].items():
                    group = "partial" if qid.startswith(PARTIAL_PREFIX) else qid
                    key = (r.form.form_id, f"{item.item_id}:{qid}")
                    labels[(r.form.kind, group)].setdefault(key, {})[a.rater] = value
    out = []
    for (kind, question), items in sorted(labels.items(), key=lambda kv: (kv[0][0].value, kv[0][1])):
        shared = {k: v for k, v in items.items() if len(v) >= 2}
        if not shared:
            continue
        raters = sorted({rater for v in shared.values() for rater in v})
        agree = [len(set(v.values())) == 1 for v in shared.values()]
        kappas = []
        for x, y in itertools.combinations(raters, 2):
            common = [v for v in shared.values() if x in v and y in v]
            if common:
                kappa = cohen_kappa([v[x] for v in common], [v[y] for v in common])
                if kappa is not None:
                    kappas.append(kappa)
        counts: dict[int, int] = defaultdict(int)
        for v in shared.values():
            counts[len(v)] += 1
        m = max(counts, key=lambda c: (counts[c], c))
        fleiss_items = [list(v.values()) for v in shared.values() if len(v) == m]
        out.append(Agreement(kind, question, len(shared), len(raters), _share(agree),
                             sum(kappas) / len(kappas) if kappas else None, fleiss_kappa(fleiss_items),
                             len(fleiss_items)))
    return out


def score(rated: Sequence[Rated]) -> Scores:
    """Compute every table from imported answers (see the module docstring for definitions)."""
    table2, rates = _table2(rated)
    table3, episodes = _table3(rated)
    return Scores(tuple(table2), tuple(rates), tuple(table3), tuple(episodes), tuple(_agreement(rated)),
                  tuple(_causes(rated)))


# -- scores.json ---------------------------------------------------------------------------


def scores_to_json(scores: Scores) -> dict[str, object]:
    def rows(items: Iterable[object]) -> list[object]:
        return [asdict(x) for x in items]  # type: ignore[call-overload]

    return {
        "record": RECORD, "schema_version": SCHEMA_VERSION,
        "table2": rows(scores.table2), "mistake_rates": rows(scores.mistake_rates),
        "table3": rows(scores.table3), "episodes": rows(scores.episodes), "agreement": rows(scores.agreement),
        "causes": rows(scores.causes),
    }


def write_scores(scores: Scores, scores_dir: Path) -> Path:
    """Write ``SCORES_DIR/scores.json`` (derived from the answers, so it is replaced atomically)."""
    path = scores_dir / SCORES_FILE
    write_atomic(path, json.dumps(scores_to_json(scores), ensure_ascii=False, indent=1) + "\n")
    return path


def load_episode_scores(path: Path) -> tuple[EpisodeScore, ...]:
    """Per-episode rater verdicts from a ``scores.json`` (what ``latent-agent report`` joins on).

    Raises:
        AnnotationError: If the file is not a scores file of this schema version.
    """
    obj = read_json(path)
    if not isinstance(obj, dict) or obj.get("record") != RECORD or obj.get("schema_version") != SCHEMA_VERSION:
        raise AnnotationError(f"{path}: not an {RECORD} file of schema_version {SCHEMA_VERSION}")
    out = []
    for n, raw in enumerate(obj.get("episodes", [])):
        try:
            out.append(EpisodeScore(
                episode_id=str(raw["episode_id"]), form_id=str(raw["form_id"]), benchmark=str(raw["benchmark"]),
                method=str(raw["method"]), task_id=raw["task_id"], seed=raw["seed"],
                trajectory=str(raw["trajectory"]), raters=tuple(raw["raters"]),
                completed=float(raw["completed"]), success=float(raw["success"]),
                stopping={str(k): float(v) for k, v in raw["stopping"].items()},
                partial=None if raw["partial"] is None else float(raw["partial"]),
            ))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise AnnotationError(f"{path}: episodes[{n}] is malformed ({exc!r})") from None
    return tuple(out)


# -- text tables -----------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _kappa(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def format_scores(scores: Scores) -> str:
    """The tables as plain text, for the terminal."""
    out: list[str] = []
    if scores.table2:
        out.append("Table 2: latent-state accuracy (share of ratings judging the estimate right)")
        out += _table(
            ["benchmark", "aspect", "n", "accuracy", "baseline", "undetermined", "hard n", "hard accuracy"],
            [[s.benchmark, s.aspect.value, str(s.ratings), _pct(s.accuracy), _pct(s.baseline),
              str(s.baseline_undetermined) if s.baseline is not None else "-", str(s.hard_ratings)
              if s.baseline is not None else "-", _pct(s.hard_accuracy)] for s in scores.table2])
        if scores.mistake_rates:
            out.append("")
            out.append("Actions judged mistakes")
            out += _table(["benchmark", "n", "rate"],
                          [[m.benchmark, str(m.ratings), _pct(m.rate)] for m in scores.mistake_rates])
    if scores.table3:
        if out:
            out.append("")
        out.append("Table 3: end-to-end (rater judgements)")
        out += _table(
            ["benchmark", "method", "episodes", "ratings", "completed", "success", "right time", "premature",
             "extra steps", "did not stop", "partial"],
            [[s.benchmark, s.method, str(s.episodes), str(s.ratings), _pct(s.completed), _pct(s.success),
              *(_pct(s.stopping[k.value]) for k in Stopping), _pct(s.partial)] for s in scores.table3])
    if scores.causes:
        if out:
            out.append("")
        out.append("Error analysis: primary root cause of each failure (share of ratings)")
        out += _table(
            ["benchmark", "method", "episodes", "ratings", *(c.value.replace("_", " ") for c in RootCause),
             "picked the automatic guess"],
            [[c.benchmark, c.method, str(c.episodes), str(c.ratings), *(_pct(c.shares[k.value]) for k in RootCause),
              f"{_pct(c.guess_agreement)} of {c.guessed}" if c.guessed else "-"] for c in scores.causes])
    if scores.agreement:
        out.append("")
        out.append("Agreement between raters")
        out += _table(["kind", "question", "items", "raters", "agreement", "Cohen's kappa", "Fleiss' kappa"],
                      [[a.kind.value, a.question, str(a.items), str(a.raters), _pct(a.percent_agreement),
                        _kappa(a.cohen_kappa), _kappa(a.fleiss_kappa)] for a in scores.agreement])
    else:
        out.append("")
        out.append("Agreement between raters: no item was rated by two or more raters.")
    return "\n".join(out)
