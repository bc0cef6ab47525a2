"""Rater scores for sweep episodes, and how they replace the automatic ones.

Human raters (``latent-agent annotate``) judge episodes that no check can score.
Their verdicts reach the metrics as :class:`Rating` records, one per episode
key, in a JSONL file::

    {"record": "rating", "schema_version": 1, "key": "TASK__METHOD__sSEED",
     "success": true, "partial": [{"question": "...", "answer": true}], "stop_judgement": "right_time",
     "error_cause": null}

(``partial``, ``stop_judgement`` and ``error_cause`` may be omitted or null;
``error_cause`` is the primary root cause raters gave a failed episode, one of
:class:`RootCause`). Where several raters judged an episode, the file holds
their consensus. :func:`apply_ratings` returns the records with the rated
fields replaced; the metrics code takes the result like any other records, and
:func:`rated_causes` gives the error analysis its causes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, PartialAnswer, StopJudgement
from latent_agent.errors import InputError
from latent_agent.json_lines import record_lines

SCHEMA_VERSION = 1


class RootCause(StrEnum):
    """The primary root cause of a failed episode, as a rater assigns it (the paper's error analysis, Fig. 3)."""

    ACTION_SELECTION = "action_selection"  # the agent chose wrong steps (or stopped wrongly)
    GROUNDING = "grounding"  # right steps were turned into wrong actions, or into none
    BOTH = "both"
    ENVIRONMENT = "environment"  # e.g. an app failed to load, the device misbehaved


@dataclass(frozen=True, slots=True)
class Rating:
    """The raters' verdict on one episode; ``None`` fields leave the record's value alone."""

    key: str
    success: bool | None
    partial: tuple[PartialAnswer, ...] = ()
    stop_judgement: StopJudgement | None = None
    error_cause: RootCause | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "record": "rating", "schema_version": SCHEMA_VERSION, "key": self.key, "success": self.success,
            "partial": [{"question": p.question, "answer": p.answer} for p in self.partial],
            "stop_judgement": self.stop_judgement.value if self.stop_judgement else None,
            "error_cause": self.error_cause.value if self.error_cause else None,
        }


def load_ratings(path: Path) -> dict[str, Rating]:
    """Read a ratings JSONL file.

    Raises:
        InputError: For an unreadable file, a malformed line, a wrong schema version or a key rated twice.
    """
    try:
        lines = record_lines(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ratings ({exc})") from None
    out: dict[str, Rating] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
            if obj.get("record") != "rating" or obj.get("schema_version") != SCHEMA_VERSION:
                raise InputError(f"{where}: not a rating record of schema_version {SCHEMA_VERSION}")
            key = obj["key"]
            success = obj.get("success")
            if not isinstance(key, str) or success not in (True, False, None):
                raise InputError(f"{where}: key must be a string and success true, false or null")
            partial = tuple(PartialAnswer(str(p["question"]), p["answer"]) for p in obj.get("partial") or ())
            if any(p.answer not in (True, False, None) for p in partial):
                raise InputError(f"{where}: partial answers must be true, false or null")
            judgement = obj.get("stop_judgement")
            cause = obj.get("error_cause")
            if cause is not None and cause not in {c.value for c in RootCause}:
                raise InputError(f"{where}: error_cause must be one of {', '.join(c.value for c in RootCause)} "
                                 f"or null, got {cause!r}")
            rating = Rating(key, success, partial, StopJudgement(judgement) if judgement is not None else None,
                            RootCause(cause) if cause is not None else None)
        except InputError:
            raise
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"{where}: malformed rating ({exc})") from None
        if key in out:
            raise InputError(f"{where}: episode {key!r} is rated twice (give one consensus rating per episode)")
        out[key] = rating
    return out


def apply_ratings(records: Iterable[EpisodeRecord], ratings: Mapping[str, Rating]) -> list[EpisodeRecord]:
    """The records with rater verdicts in place of unknown (or automatic) values.

    Errored episodes are left as they are: there is nothing to rate.
    """
    out: list[EpisodeRecord] = []
    for record in records:
        rating = ratings.get(record.key)
        if rating is None or record.status is EpisodeStatus.ERROR:
            out.append(record)
            continue
        out.append(replace(
            record,
            success=rating.success if rating.success is not None else record.success,
            partial=_merge_partial(record.partial, rating.partial),
            stop_judgement=rating.stop_judgement or record.stop_judgement,
        ))
    return out


def rated_causes(ratings: Mapping[str, Rating]) -> dict[str, RootCause]:
    """Episode key -> the raters' primary root cause, for the episodes that have one."""
    return {key: r.error_cause for key, r in ratings.items() if r.error_cause is not None}


def _merge_partial(own: tuple[PartialAnswer, ...], rated: tuple[PartialAnswer, ...]) -> tuple[PartialAnswer, ...]:
    """The raters' partial-completion answers, each question they left open (a tie) keeping the record's answer."""
    if not rated:
        return own
    known = {p.question: p.answer for p in own}
    return tuple(PartialAnswer(p.question, p.answer if p.answer is not None else known.get(p.question)) for p in rated)
