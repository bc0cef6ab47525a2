"""Rater verdicts for ``latent-agent report``: one consensus rating per episode (``ratings.jsonl``).

The report takes rater scores as a JSONL file of ``rating`` records keyed by
the sweep's episode key (the format ``benchmarks/ratings.py`` reads)::

    {"record": "rating", "schema_version": 1, "key": "TASK__METHOD__sSEED",
     "success": true, "partial": [{"question": "...", "answer": true}], "stop_judgement": "right_time",
     "error_cause": null}

``annotate score`` writes it as ``SCORES_DIR/ratings.jsonl`` from the e2e and
errors answers (import both into the same scores directory): each field is the
majority of the episode's raters; a tie, or a form kind nobody answered for the
episode, leaves the field ``null`` (the report then keeps its own value).
``error_cause`` comes from errors forms only, never from the automatic guess
they show. Episodes whose forms carry no key (exported from outside a sweep,
with no task or seed) are left out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.annotation.importer import Rated
from latent_agent.annotation.questions import (
    COMPLETED,
    ERROR_CAUSE,
    PARTIAL_PREFIX,
    STOPPING,
    YES,
    FormKind,
    partial_label,
)
from latent_agent.atomic_write import write_atomic

RATINGS_FILE = "ratings.jsonl"
SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class ConsensusRating:
    """The raters' majority verdict on one episode (``None``: no majority)."""

    key: str
    success: bool | None
    partial: tuple[tuple[str, bool | None], ...]
    stop_judgement: str | None
    error_cause: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "record": "rating", "schema_version": SCHEMA_VERSION, "key": self.key, "success": self.success,
            "partial": [{"question": q, "answer": a} for q, a in self.partial],
            "stop_judgement": self.stop_judgement, "error_cause": self.error_cause,
        }


def majority(values: Sequence[str]) -> str | None:
    """The most common value, or ``None`` when two or more tie for first place."""
    ranked = Counter(values).most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def _yes(values: Sequence[str]) -> bool | None:
    winner = majority(values)
    return None if winner is None else winner == YES


def _pool(rated: Sequence[Rated], kind: FormKind) -> dict[str, tuple[Rated, list[Mapping[str, str]]]]:
    """Episode key -> (its first form of ``kind``, every rater's answers to its forms of that kind)."""
    pooled: dict[str, tuple[Rated, list[Mapping[str, str]]]] = {}
    for r in rated:
        key = r.form.episode.key
        if r.form.kind is not kind or key is None:
            continue
        (item,) = r.form.items
        pooled.setdefault(key, (r, []))[1].extend(a.answers[item.item_id] for a in r.answers)
    return pooled


def consensus(rated: Sequence[Rated]) -> list[ConsensusRating]:
    """One rating per keyed episode with e2e or errors answers, in key order (forms of an episode pooled)."""
    e2e = _pool(rated, FormKind.E2E)
    errors = _pool(rated, FormKind.ERRORS)
    out = []
    for key in sorted(e2e.keys() | errors.keys()):
        success: bool | None = None
        partial: tuple[tuple[str, bool | None], ...] = ()
        stop: str | None = None
        if key in e2e:
            first, answers = e2e[key]
            questions = [q for q in first.form.items[0].questions if q.id.startswith(PARTIAL_PREFIX)]
            partial = tuple((partial_label(q), _yes([a[q.id] for a in answers if q.id in a])) for q in questions)
            success, stop = _yes([a[COMPLETED.id] for a in answers]), majority([a[STOPPING.id] for a in answers])
        cause = majority([a[ERROR_CAUSE.id] for a in errors[key][1]]) if key in errors else None
        out.append(ConsensusRating(key, success, partial, stop, cause))
    return out


def write_ratings(ratings: Sequence[ConsensusRating], scores_dir: Path) -> Path:
    """Write ``SCORES_DIR/ratings.jsonl`` (derived from the answers, so replaced atomically)."""
    path = scores_dir / RATINGS_FILE
    write_atomic(path, "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in ratings))
    return path
