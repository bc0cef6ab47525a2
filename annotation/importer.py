"""``annotate import``: validate answer files against their forms, store them in a scores directory.

Layout of a scores directory (all files created once, never rewritten)::

    SCORES_DIR/forms/<form_id>.json              the form's spec (as in forms.json)
    SCORES_DIR/answers/<form_id>.<rater>.json    one rater's validated answers

Imports are all-or-nothing: every file given is validated before anything is
written, so a bad file leaves the directory as it was. Answering the same
form twice as the same rater is an error, whether both files are in one
import or one was imported before.

Answer files come from outside raters, so nothing in one is trusted: answers are checked only against
the forms directories given on the command line (never a ``forms.json`` lying beside an answer file,
which a rater could have written), form ids and rater names must be plain names
(:func:`latent_agent.safe_paths.safe_name`) before they become file names, and every file is
written whole or not at all (:func:`latent_agent.atomic_write.write_atomic`), so an import killed
half-way leaves nothing a rerun would mistake for an earlier import.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.annotation.answers import AnswerSet, answers_to_json, parse_answers, read_answers, validate_answers
from latent_agent.annotation.forms import (
    SCHEMA_VERSION,
    FormSpec,
    check_version,
    form_from_json,
    form_to_json,
    load_manifest,
    read_json,
)
from latent_agent.atomic_write import write_atomic
from latent_agent.errors import (
    AnnotationError,
    AnswerValidationError,
    DuplicateRaterError,
    InputError,
    OutputExistsError,
    WrongFormError,
)
from latent_agent.safe_paths import path_inside, safe_name

FORMS = "forms"
ANSWERS = "answers"
FORM_RECORD = "annotation_form"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import stored: ``(form_id, rater)`` pairs, and the forms written for the first time."""

    imported: tuple[tuple[str, str], ...]
    new_forms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Known:
    form: FormSpec
    raters: tuple[str, ...]
    origin: str


def _index_forms(forms_dirs: Sequence[Path]) -> dict[str, list[_Known]]:
    index: dict[str, list[_Known]] = {}
    for d in forms_dirs:
        manifest = load_manifest(d)
        for form in manifest.forms:
            index.setdefault(form.form_id, []).append(_Known(form, manifest.raters, str(d)))
    return index


def _match(answers: AnswerSet, index: dict[str, list[_Known]], source: str) -> _Known:
    candidates = index.get(answers.form_id)
    if not candidates:
        raise WrongFormError(f"no form {answers.form_id!r} in the forms given", source=source)
    for known in candidates:
        if known.form.digest == answers.form_digest:
            return known
    return candidates[0]  # validation then reports the digest mismatch


def form_path(scores_dir: Path, form_id: str) -> Path:
    """Where a form is stored in a scores directory.

    Raises:
        AnnotationError: ``form_id`` is not a plain name, so it cannot be a file name there.
    """
    name = _name(form_id, "form id")
    return _inside(scores_dir / FORMS, f"{name}.json")


def answers_path(scores_dir: Path, form_id: str, rater: str) -> Path:
    """Where a rater's answers to a form are stored in a scores directory.

    Raises:
        AnnotationError: ``form_id`` or ``rater`` is not a plain name.
    """
    name = f"{_name(form_id, 'form id')}.{_name(rater, 'rater')}.json"
    return _inside(scores_dir / ANSWERS, name)


def _name(value: str, what: str) -> str:
    try:
        return safe_name(value, what)
    except InputError as exc:
        raise AnnotationError(str(exc)) from None


def _inside(root: Path, name: str) -> Path:
    try:
        return path_inside(root, name, "file")
    except InputError as exc:
        raise AnnotationError(str(exc)) from None


def read_stored_form(path: Path) -> FormSpec:
    obj = read_json(path)
    check_version(obj, FORM_RECORD, str(path))
    assert isinstance(obj, dict)
    return form_from_json(obj["form"], str(path))


def import_answers(paths: Sequence[Path], scores_dir: Path) -> ImportResult:
    """Validate answer files and store them in ``scores_dir``.

    Args:
        paths: Answer files, and the forms directories (holding ``forms.json``) to
            check them against; no other forms are used.
        scores_dir: Where to store them (created if missing).

    Raises:
        AnswerValidationError: (or a subclass: :class:`WrongFormError`,
            :class:`MissingAnswerError`, :class:`DuplicateRaterError`) for the
            first bad answer file; nothing is written then.
        OutputExistsError: If the scores directory holds a different export of a form.
        AnnotationError: If no answer file was given or a forms directory is unreadable.
    """
    if scores_dir.exists() and not scores_dir.is_dir():
        raise OutputExistsError(f"--out {scores_dir} is a file, not a scores directory; nothing was overwritten")
    forms_dirs = [p for p in paths if p.is_dir()]
    answer_files = [p for p in paths if not p.is_dir()]
    if not answer_files:
        raise AnnotationError("no answer file given (only directories)")
    if not forms_dirs:
        raise AnnotationError("no forms to check the answers against: also pass the FORMS_DIR "
                              "that annotate export wrote (it holds forms.json)")
    index = _index_forms(forms_dirs)
    accepted: list[tuple[AnswerSet, FormSpec]] = []
    seen: dict[tuple[str, str], str] = {}
    for p in answer_files:
        source = str(p)
        answers = read_answers(p)
        for value, what in ((answers.form_id, "form id"), (answers.rater, "rater")):
            try:
                safe_name(value, what)
            except InputError as exc:
                raise AnswerValidationError(str(exc), source=source) from None
        known = _match(answers, index, source)
        validate_answers(answers, known.form, source)
        if answers.rater not in known.raters:
            raise WrongFormError(f"rater {answers.rater!r} was not given form {answers.form_id!r} "
                                 f"(raters: {', '.join(known.raters)})", source=source)
        key = (answers.form_id, answers.rater)
        if key in seen:
            raise DuplicateRaterError(f"rater {answers.rater!r} answered form {answers.form_id!r} twice "
                                      f"(also in {seen[key]})", source=source)
        seen[key] = source
        stored = answers_path(scores_dir, *key)
        if stored.exists():
            raise DuplicateRaterError(f"the answers of rater {answers.rater!r} to form {answers.form_id!r} were "
                                      f"already imported ({stored})", source=source)
        existing = form_path(scores_dir, answers.form_id)
        if existing.exists() and read_stored_form(existing).digest != known.form.digest:
            raise OutputExistsError(f"{existing} holds another export of form {answers.form_id!r}; "
                                    "import these answers into a new scores directory")
        accepted.append((answers, known.form))
    return _store(scores_dir, accepted)


def _store(scores_dir: Path, accepted: list[tuple[AnswerSet, FormSpec]]) -> ImportResult:
    try:
        (scores_dir / FORMS).mkdir(parents=True, exist_ok=True)
        (scores_dir / ANSWERS).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AnnotationError(f"cannot create the scores directory {scores_dir} ({exc.strerror})") from None
    new_forms: list[str] = []
    imported: list[tuple[str, str]] = []
    for answers, form in accepted:
        fpath = form_path(scores_dir, form.form_id)
        if not fpath.exists():
            _create(fpath, {"record": FORM_RECORD, "schema_version": SCHEMA_VERSION, "form": form_to_json(form)})
            new_forms.append(form.form_id)
        _create(answers_path(scores_dir, answers.form_id, answers.rater), answers_to_json(answers))
        imported.append((answers.form_id, answers.rater))
    return ImportResult(tuple(imported), tuple(new_forms))


def _create(path: Path, obj: object) -> None:
    """Create ``path`` holding ``obj`` as JSON, whole or not at all, never over an existing file."""
    try:
        write_atomic(path, json.dumps(obj, ensure_ascii=False, indent=1) + "\n", exclusive=True)
    except FileExistsError:
        raise OutputExistsError(f"{path} already exists; nothing was overwritten") from None
    except OSError as exc:
        raise AnnotationError(f"cannot write {path} ({exc.strerror or exc})") from None


@dataclass(frozen=True, slots=True)
class Rated:
    """A form and every rater's answers to it, as stored in a scores directory."""

    form: FormSpec
    answers: tuple[AnswerSet, ...]


def load_scores_dir(scores_dir: Path) -> list[Rated]:
    """Read back every form and its answers from a scores directory, re-validating each.

    Raises:
        AnnotationError: If the directory holds no answers, or a file is malformed.
    """
    answers_dir = scores_dir / ANSWERS
    files = sorted(answers_dir.glob("*.json")) if answers_dir.is_dir() else []
    if not files:
        raise AnnotationError(f"{scores_dir}: no imported answers (run annotate import first)")
    forms: dict[str, FormSpec] = {}
    grouped: dict[str, list[AnswerSet]] = {}
    for path in files:
        obj = read_json(path)
        try:
            answers = parse_answers(obj, str(path))
        except AnswerValidationError as exc:
            raise AnnotationError(str(exc)) from None
        if answers.form_id not in forms:
            fpath = form_path(scores_dir, answers.form_id)
            if not fpath.is_file():
                raise AnnotationError(f"{path}: its form {fpath} is missing")
            forms[answers.form_id] = read_stored_form(fpath)
        validate_answers(answers, forms[answers.form_id], str(path))
        grouped.setdefault(answers.form_id, []).append(answers)
    return [Rated(forms[f], tuple(sorted(a, key=lambda x: x.rater))) for f, a in sorted(grouped.items())]
