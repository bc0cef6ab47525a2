"""A rater's answers to one form: the JSON file the form's "Save answers" button downloads.

Schema (``schema_version`` 1)::

    {"record": "annotation_answers", "schema_version": 1,
     "form_id": "latent-ep1", "form_digest": "3f2a...", "rater": "r1",
     "episode_id": "ep1", "kind": "latent", "saved_at": "2024-05-17T10:00:00.000Z",
     "answers": {"step_000": {"summary_accurate": "yes", ...}, ...},
     "notes": {"step_003": "free text"}}

:func:`validate_answers` checks a parsed file against the form it claims to
answer; every mismatch is a typed error naming the file, the item and the
question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from latent_agent.annotation.forms import SCHEMA_VERSION, FormSpec, read_json
from latent_agent.annotation.questions import FormKind
from latent_agent.errors import AnnotationError, AnswerValidationError, MissingAnswerError, WrongFormError

RECORD = "annotation_answers"


@dataclass(frozen=True, slots=True)
class AnswerSet:
    """One rater's answers to one form.

    Attributes:
        form_id: The form answered.
        form_digest: Digest of the form as exported (see :class:`FormSpec`).
        rater: Rater id.
        episode_id: Episode the form is about.
        kind: Form kind.
        saved_at: When the rater saved (as the browser reported it).
        answers: ``item_id -> question_id -> choice value``.
        notes: Optional free text per item.
    """

    form_id: str
    form_digest: str
    rater: str
    episode_id: str
    kind: FormKind
    saved_at: str
    answers: Mapping[str, Mapping[str, str]]
    notes: Mapping[str, str]


def answers_to_json(a: AnswerSet) -> dict[str, object]:
    return {
        "record": RECORD, "schema_version": SCHEMA_VERSION, "form_id": a.form_id, "form_digest": a.form_digest,
        "rater": a.rater, "episode_id": a.episode_id, "kind": a.kind.value, "saved_at": a.saved_at,
        "answers": {item: dict(values) for item, values in a.answers.items()}, "notes": dict(a.notes),
    }


def parse_answers(obj: object, source: str) -> AnswerSet:
    """Build an :class:`AnswerSet` from a decoded answer file.

    Raises:
        AnswerValidationError: If the file is not an answer file of this schema, naming the field.
    """
    if not isinstance(obj, dict) or obj.get("record") != RECORD:
        raise AnswerValidationError("not an answer file saved from an annotation form", source=source)
    if obj.get("schema_version") != SCHEMA_VERSION:
        raise AnswerValidationError(f"schema_version {obj.get('schema_version')!r} is not {SCHEMA_VERSION}",
                                    source=source)
    fields: dict[str, str] = {}
    for key in ("form_id", "form_digest", "rater", "episode_id", "kind", "saved_at"):
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            raise AnswerValidationError(f"missing or empty string {key!r}", source=source)
        fields[key] = value
    try:
        kind = FormKind(fields["kind"])
    except ValueError:
        raise AnswerValidationError(f"unknown form kind {fields['kind']!r}", source=source) from None
    raw = obj.get("answers")
    if not isinstance(raw, dict):
        raise AnswerValidationError("'answers' must be an object of items", source=source)
    answers: dict[str, dict[str, str]] = {}
    for item_id, values in raw.items():
        if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
            raise AnswerValidationError(f"item {item_id!r}: answers must map question ids to strings",
                                        source=source)
        answers[str(item_id)] = {str(k): v for k, v in values.items()}
    notes_raw = obj.get("notes", {})
    if not isinstance(notes_raw, dict) or not all(isinstance(v, str) for v in notes_raw.values()):
        raise AnswerValidationError("'notes' must map item ids to strings", source=source)
    return AnswerSet(fields["form_id"], fields["form_digest"], fields["rater"], fields["episode_id"], kind,
                     fields["saved_at"], answers, {str(k): v for k, v in notes_raw.items()})


def read_answers(path: Path) -> AnswerSet:
    """Read and parse one answer file.

    Raises:
        AnswerValidationError: If it is unreadable or not an answer file.
    """
    try:
        obj = read_json(path)
    except AnnotationError as exc:
        raise AnswerValidationError(str(exc)) from None
    return parse_answers(obj, str(path))


def validate_answers(answers: AnswerSet, form: FormSpec, source: str) -> None:
    """Check that ``answers`` answer exactly ``form``: same episode and export, every question answered.

    Raises:
        WrongFormError: Another episode, kind or export of the form, or an item
            or question the form does not have.
        MissingAnswerError: A question left unanswered or answered with a value it does not offer.
    """
    # A blind form (annotate export) names its episode to the rater by the form's own id, so the answers carry
    # that; answers to forms exported before then carry the episode's id.
    if answers.episode_id not in (form.episode.episode_id, form.form_id):
        raise WrongFormError(
            f"answers are for episode {answers.episode_id!r} but form {form.form_id!r} is about episode "
            f"{form.episode.episode_id!r}", source=source)
    if answers.kind is not form.kind:
        raise WrongFormError(f"answers are {answers.kind.value} answers but form {form.form_id!r} is "
                             f"{form.kind.value}", source=source)
    if answers.form_digest != form.digest:
        raise WrongFormError(
            f"answers were saved from another export of form {form.form_id!r} (digest {answers.form_digest} "
            f"!= {form.digest}); give the forms directory the rater actually used", source=source)
    for item_id, values in answers.answers.items():
        item = form.item(item_id)
        if item is None:
            raise WrongFormError(f"form {form.form_id!r} has no item {item_id!r}", source=source)
        for qid in values:
            if item.question(qid) is None:
                raise WrongFormError(f"item {item_id!r} has no question {qid!r}", source=source)
    for item in form.items:
        given = answers.answers.get(item.item_id, {})
        for q in item.questions:
            value = given.get(q.id)
            if value is None or value == "":
                raise MissingAnswerError(f"item {item.item_id!r}: question {q.id!r} is unanswered",
                                         source=source)
            if not q.allows(value):
                allowed = ", ".join(c.value for c in q.choices)
                raise MissingAnswerError(
                    f"item {item.item_id!r}: question {q.id!r} answered {value!r}, expected one of {allowed}",
                    source=source)
