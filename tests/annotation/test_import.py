"""Importing answers: validation against the forms, typed errors, nothing overwritten."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from latent_agent.annotation.agreement import cohen_kappa, fleiss_kappa
from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.forms import FormSpec, form_from_json, load_manifest
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind
from latent_agent.errors import (
    AnnotationError,
    AnswerValidationError,
    DuplicateRaterError,
    InputError,
    MissingAnswerError,
    OutputExistsError,
    WrongFormError,
)
from tests.annotation.conftest import write_answers


@pytest.fixture(scope="module")
def forms(sim_run: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[FormSpec]]:
    out = tmp_path_factory.mktemp("imp") / "forms"
    export_forms(sim_run, out, ExportOptions(FormKind.E2E, raters=2))
    return out, list(load_manifest(out).forms)


def _complete(form: FormSpec) -> dict[str, dict[str, str]]:
    return {i.item_id: {q.id: q.choices[0].value for q in i.questions} for i in form.items}


def _listing(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()} if d.exists() else {}


def test_import_then_refuse_duplicates(forms: tuple[Path, list[FormSpec]], tmp_path: Path) -> None:
    forms_dir, specs = forms
    a = write_answers(tmp_path / "in", specs[0], "r1", _complete(specs[0]))
    b = write_answers(tmp_path / "in2", specs[0], "r2", _complete(specs[0]))
    scores = tmp_path / "scores"
    result = import_answers([forms_dir, a, b], scores)
    assert result.imported == ((specs[0].form_id, "r1"), (specs[0].form_id, "r2"))
    assert result.new_forms == (specs[0].form_id,)
    (rated,) = load_scores_dir(scores)
    assert rated.form == specs[0] and [x.rater for x in rated.answers] == ["r1", "r2"]
    before = _listing(scores)
    with pytest.raises(DuplicateRaterError, match="already imported"):
        import_answers([forms_dir, a], scores)
    assert _listing(scores) == before
    c = write_answers(tmp_path / "in3", specs[1], "r1", _complete(specs[1]))
    with pytest.raises(DuplicateRaterError, match="twice"):
        import_answers([forms_dir, c, c], tmp_path / "other")
    assert not (tmp_path / "other").exists()


@pytest.mark.parametrize(
    ("mutate", "error", "message"),
    [
        (lambda d: d.update(episode_id="someone-else"), WrongFormError, "episode 'someone-else'"),
        (lambda d: d.update(form_id="e2e-nope"), WrongFormError, "no form 'e2e-nope'"),
        (lambda d: d.update(form_digest="0" * 16), WrongFormError, "another export"),
        (lambda d: d.update(kind="latent"), WrongFormError, "latent answers"),
        (lambda d: d.update(rater="r7"), WrongFormError, "rater 'r7' was not given"),
        (lambda d: d["answers"]["episode"].pop("stopping"), MissingAnswerError, "'stopping' is unanswered"),
        (lambda d: d["answers"]["episode"].update(completed="maybe"), MissingAnswerError, "expected one of yes, no"),
        (lambda d: d["answers"]["episode"].update(bogus="yes"), WrongFormError, "no question 'bogus'"),
        (lambda d: d["answers"].update(step_009={}), WrongFormError, "no item 'step_009'"),
        (lambda d: d.update(schema_version=9), AnswerValidationError, "schema_version 9"),
        (lambda d: d.pop("saved_at"), AnswerValidationError, "'saved_at'"),
        (lambda d: d.update(record="x"), AnswerValidationError, "not an answer file"),
    ],
)
def test_bad_answers_are_refused(forms: tuple[Path, list[FormSpec]], tmp_path: Path, mutate, error, message) -> None:  # type: ignore[no-untyped-def]
    forms_dir, specs = forms
    good = write_answers(tmp_path / "ok", specs[1], "r1", _complete(specs[1]))
    path = write_answers(tmp_path / "in", specs[0], "r1", _complete(specs[0]))
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))
    scores = tmp_path / "scores"
    with pytest.raises(error, match=message) as info:
        import_answers([forms_dir, good, path], scores)
    assert isinstance(info.value, InputError)  # one hierarchy: the CLI reports it as a user error
    assert str(path) in str(info.value)
    assert _listing(scores) == {}  # the good file was not imported either


def test_forms_only_from_the_command_line(forms: tuple[Path, list[FormSpec]], tmp_path: Path) -> None:
    # A forms.json beside an answer file may be the rater's own: it is never adopted.
    forms_dir, specs = forms
    planted = tmp_path / "planted"
    shutil.copytree(forms_dir, planted)
    path = write_answers(planted / "r1", specs[0], "r1", _complete(specs[0]))
    with pytest.raises(AnnotationError, match="also pass the FORMS_DIR"):
        import_answers([path], tmp_path / "s")
    assert not (tmp_path / "s").exists()
    result = import_answers([forms_dir, path], tmp_path / "s")
    assert result.imported == ((specs[0].form_id, "r1"),)
    lone = write_answers(tmp_path / "lone", specs[0], "r1", _complete(specs[0]))
    with pytest.raises(AnnotationError, match="also pass the FORMS_DIR"):
        import_answers([lone], tmp_path / "t")
    with pytest.raises(AnnotationError, match="no answer file"):
        import_answers([forms_dir], tmp_path / "t")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(AnswerValidationError, match="not valid JSON"):
        import_answers([forms_dir, bad], tmp_path / "t")


def test_scores_dir_holding_another_export(forms: tuple[Path, list[FormSpec]], tmp_path: Path) -> None:
    forms_dir, specs = forms
    scores = tmp_path / "scores"
    import_answers([forms_dir, write_answers(tmp_path / "a", specs[0], "r1", _complete(specs[0]))], scores)
    # The same form id re-exported with other content (another goal): another digest.
    doc = json.loads((forms_dir / "forms.json").read_text())
    doc["forms"] = [f for f in doc["forms"] if f["form_id"] == specs[0].form_id]
    doc["forms"][0]["episode"]["goal"] = "another goal"
    changed = form_from_json(doc["forms"][0], "test").with_digest()
    assert changed.digest != specs[0].digest
    doc["forms"][0]["digest"] = changed.digest
    other = tmp_path / "other_forms"
    other.mkdir()
    (other / "forms.json").write_text(json.dumps(doc))
    path = write_answers(tmp_path / "b", changed, "r2", _complete(changed))
    before = _listing(scores)
    with pytest.raises(OutputExistsError, match="another export"):
        import_answers([other, path], scores)
    assert _listing(scores) == before
    (tmp_path / "empty").mkdir()
    with pytest.raises(AnnotationError, match="no imported answers"):
        load_scores_dir(tmp_path / "empty")


def test_kappa_textbook_values() -> None:
    # Cohen (1960)-style 2x2 table: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> po 0.7, pe 0.5, kappa 0.4.
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(["y", "n"], ["y", "n"]) == 1.0
    assert cohen_kappa(["y", "y"], ["y", "y"]) is None
    # Fleiss (1971) worked example: 10 subjects, 14 raters, 5 categories -> kappa 0.210.
    table = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]
    ratings = [[str(cat) for cat, n in enumerate(row) for _ in range(n)] for row in table]
    assert fleiss_kappa(ratings) == pytest.approx(0.2099, abs=1e-4)
    # Every rating in one category: chance agreement is already perfect, kappa is undefined (not 1, not 0/0).
    assert fleiss_kappa([["y", "y", "y"], ["y", "y", "y"]]) is None
    # Two raters who always disagree, each sticking to one answer: no agreement beyond chance, below it for Fleiss.
    assert cohen_kappa(["y"] * 4, ["n"] * 4) == 0.0
    assert fleiss_kappa([["y", "n"]] * 4) == pytest.approx(-1.0)
    with pytest.raises(AnnotationError):
        fleiss_kappa([["a", "b"], ["a"]])
    with pytest.raises(AnnotationError):
        cohen_kappa(["a"], [])
