"""Rater files as an attacker would write them: names that climb out of the scores folder, torn writes."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from latent_agent.annotation import importer
from latent_agent.annotation.answers import AnswerSet, answers_to_json
from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.forms import FormSpec, load_manifest
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind
from latent_agent.cli import main
from latent_agent.errors import AnnotationError, AnswerValidationError
from tests.annotation.conftest import write_answers, write_manifest


@pytest.fixture(scope="module")
def form(sim_run: Path, tmp_path_factory: pytest.TempPathFactory) -> FormSpec:
    out = tmp_path_factory.mktemp("hostile") / "forms"
    export_forms(sim_run, out, ExportOptions(FormKind.E2E))
    return load_manifest(out).forms[0]


def _complete(form: FormSpec) -> dict[str, dict[str, str]]:
    return {i.item_id: {q.id: q.choices[0].value for q in i.questions} for i in form.items}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("form_id", "rater"), [
    ("../../../escaped", "r1"),
    ("e2e-ok", "../../escaped"),
    ("{tmp}/escaped", "r1"),
    ("e2e-ok", "r1/../../x"),
])
def test_names_from_files_never_leave_the_scores_folder(form: FormSpec, tmp_path: Path, form_id: str,
                                                         rater: str) -> None:
    # The forms directory is passed explicitly, yet its form ids and raters are still a file's words.
    form_id = form_id.format(tmp=tmp_path)  # an absolute path, yet one the test can watch
    hostile = dataclasses.replace(form, form_id=form_id)
    forms_dir = write_manifest(tmp_path / "work" / "forms", [hostile], (rater,))
    answers = tmp_path / "work" / "answers.json"
    answers.write_text(json.dumps(answers_to_json(AnswerSet(
        form_id, hostile.with_digest().digest, rater, form.episode.episode_id, form.kind, "2024-05-17T10:00:00Z",
        _complete(form), {}))))
    scores = tmp_path / "work" / "a" / "b" / "scores"
    before = _files(tmp_path)
    with pytest.raises(AnswerValidationError, match="is not a plain name"):
        import_answers([forms_dir, answers], scores)
    assert _files(tmp_path) == before


def test_a_stored_answer_naming_a_path_is_refused_when_scored(form: FormSpec, tmp_path: Path) -> None:
    scores = tmp_path / "scores"
    (scores / "answers").mkdir(parents=True)
    doc = json.loads(write_answers(tmp_path / "in", form, "r1", _complete(form)).read_text())
    doc["form_id"] = "../../../etc/passwd"
    (scores / "answers" / "x.r1.json").write_text(json.dumps(doc))
    with pytest.raises(AnnotationError, match="is not a plain name"):
        load_scores_dir(scores)


class _Killed:
    """A value JSON cannot encode: writing stops there, as if the process were killed mid-write."""


def test_an_import_killed_mid_write_completes_when_run_again(form: FormSpec, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    forms_dir = write_manifest(tmp_path / "forms", [form], ("r1",))
    answers = write_answers(tmp_path / "in", form, "r1", _complete(form))
    scores = tmp_path / "scores"

    def dying(a: AnswerSet) -> dict[str, object]:
        return {**answers_to_json(a), "zz_last": _Killed()}  # the writer dies after the other fields

    monkeypatch.setattr(importer, "answers_to_json", dying)
    with pytest.raises(TypeError):
        import_answers([forms_dir, answers], scores)
    monkeypatch.undo()
    result = import_answers([forms_dir, answers], scores)
    assert result.imported == ((form.form_id, "r1"),)
    assert [r.form.form_id for r in load_scores_dir(scores)] == [form.form_id]


#: What a copied scores folder's form can carry in its names: a window title (OSC) and a screen clear (CSI).
TERMINAL_CONTROL = "bench\x1b]0;pwned\x07\x1b[2J\x9b31m"


def _scores_with(form: FormSpec, tmp_path: Path) -> Path:
    forms_dir = write_manifest(tmp_path / "forms", [form], ("r1",))
    answers = write_answers(tmp_path / "in", form, "r1", _complete(form))
    scores = tmp_path / "scores"
    import_answers([forms_dir, answers], scores)
    return scores


@pytest.mark.parametrize("as_json", [False, True])
def test_score_prints_a_copied_folders_names_as_text(form: FormSpec, tmp_path: Path, as_json: bool,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    hostile = dataclasses.replace(form, episode=dataclasses.replace(form.episode, benchmark=TERMINAL_CONTROL,
                                                                    method="m\x1b[31m"))
    scores = _scores_with(hostile, tmp_path)
    assert main(["annotate", "score", str(scores), *(["--json"] if as_json else [])]) == 0
    printed = capsys.readouterr().out
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", printed), printed
    if as_json:
        # Escaped, and read back as written.
        assert TERMINAL_CONTROL in {row["benchmark"] for row in json.loads(printed)["table3"]}
    else:
        assert "bench\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m" in printed


@pytest.mark.parametrize("planted", ["answers", "scores.json", "ratings.jsonl", "forms"])
def test_import_and_score_write_nothing_through_a_link_in_the_scores_folder(
        form: FormSpec, tmp_path: Path, planted: str, capsys: pytest.CaptureFixture[str]) -> None:
    scores = _scores_with(form, tmp_path / "first")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "victim.txt"
    victim.write_text("mine\n")
    target = scores / planted
    if target.is_dir():
        shutil.copytree(target, elsewhere / planted)
        shutil.rmtree(target)
        target.symlink_to(elsewhere / planted, target_is_directory=True)
    else:
        target.unlink(missing_ok=True)
        target.symlink_to(victim)
    before = _files(elsewhere), victim.read_text()
    forms_dir = write_manifest(tmp_path / "forms2", [form], ("r2",))
    answers = write_answers(tmp_path / "in2", form, "r2", _complete(form))
    for argv in (["annotate", "import", str(forms_dir), str(answers), "--out", str(scores)],
                 ["annotate", "score", str(scores)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"symbolic link, '{planted}'" in err, err
    assert (_files(elsewhere), victim.read_text()) == before
