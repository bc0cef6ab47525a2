"""Blind raters (issue 24 item 8): a form tells its rater nothing of which method produced the episode.

The sweep (``failed_sweep`` in conftest) holds a ``zero-shot+`` and a ``zero-shot-`` episode whose ids name
their methods, as a sweep's do. The forms show an opaque id only; ``forms.json`` (beside the raters' folders,
kept by the exporter) maps it back, and scoring still credits each answer to its method.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from latent_agent.annotation.answers import AnswerSet, answers_to_json
from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.forms import MANIFEST_FILE, load_manifest
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind
from latent_agent.annotation.scoring import ALL, score
from latent_agent.cli import main
from tests.annotation.conftest import FLASH, ROAMING

#: What would tell a rater the method: its names, the paper's short names, the episode ids that hold them.
GIVEAWAYS = ("zero-shot", "+ZS", "-ZS", "· agent", ROAMING, FLASH, "settings_roaming_off-s1")


def _page_spec(html: str) -> dict[str, object]:
    """The spec the page's script saves answers with (the JSON object holding its form id and rater)."""
    match = re.search(r'<script type="application/json" id="form-spec">(.*?)</script>', html)
    assert match, "no spec in the page"
    return dict(json.loads(match.group(1)))


def test_e2e_forms_show_an_opaque_id_and_no_method(failed_sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "forms"
    export_forms(failed_sweep, out, ExportOptions(FormKind.E2E, raters=2))
    manifest = load_manifest(out)
    assert {f.episode.method for f in manifest.forms} == {"zero-shot+", "zero-shot-"}  # the exporter's mapping
    for form in manifest.forms:
        assert re.fullmatch(r"e2e-[0-9a-f]{8}", form.form_id)
        for rater in ("r1", "r2"):
            html = (out / rater / f"{form.form_id}.html").read_text(encoding="utf-8")
            for giveaway in GIVEAWAYS:
                assert giveaway not in html, (form.episode.method, giveaway)
            assert f"Form {form.form_id}" in html
            assert _page_spec(html)["episode_id"] == form.form_id
    # What the raters are sent (their folders) holds forms only; the mapping stays beside them.
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST_FILE, "r1", "r2"]
    assert all(p.suffix == ".html" for p in (out / "r1").iterdir())
    # Both endings read alike: a '+' agent's 'completed' and a '-' agent's 'done' are one sentence.
    endings = {re.search(r'<p class="ending">([^<]*)</p>', (out / "r1" / f"{f.form_id}.html").read_text())
               .group(1) for f in manifest.forms}  # type: ignore[union-attr]
    assert endings == {"The agent stopped: it judged the task complete."}, endings


def test_ids_of_two_exports_differ_and_say_nothing_of_the_order(failed_sweep: Path, tmp_path: Path) -> None:
    a = [f.form_id for f in export_forms(failed_sweep, tmp_path / "a", ExportOptions(FormKind.E2E)).manifest.forms]
    b = [f.form_id for f in export_forms(failed_sweep, tmp_path / "b", ExportOptions(FormKind.E2E)).manifest.forms]
    assert len(set(a)) == 2 and not set(a) & set(b)


def test_answers_to_blind_forms_are_scored_per_method(failed_sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "forms"
    export_forms(failed_sweep, out, ExportOptions(FormKind.E2E))
    answers_dir = tmp_path / "answers"
    answers_dir.mkdir()
    verdicts = {"zero-shot+": "yes", "zero-shot-": "no"}
    for form in load_manifest(out).forms:
        spec = _page_spec((out / "r1" / f"{form.form_id}.html").read_text(encoding="utf-8"))
        (item,) = form.items
        given = {q.id: (verdicts[form.episode.method] if q.id == "completed" else q.choices[0].value)
                 for q in item.questions}
        # Saved as the page saves them: naming the episode by the id the rater saw.
        a = AnswerSet(form.form_id, form.digest, "r1", str(spec["episode_id"]), form.kind,
                      "2024-05-17T10:00:00.000Z", {item.item_id: given}, {})
        (answers_dir / f"{form.form_id}.r1.answers.json").write_text(json.dumps(answers_to_json(a)))
    scores_dir = tmp_path / "scores"
    import_answers([out, *sorted(answers_dir.iterdir())], scores_dir)
    rows = {(row.method, row.completed) for row in score(load_scores_dir(scores_dir)).table3 if row.benchmark == ALL}
    assert rows == {("zero-shot+", 1.0), ("zero-shot-", 0.0)}


def test_export_tells_the_exporter_what_to_send_and_what_to_keep(failed_sweep: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "forms"
    assert main(["annotate", "export", str(failed_sweep), "--kind", "e2e", "--out", str(out), "--raters", "2"]) == 0
    said = capsys.readouterr().out
    assert f"send each rater only their own folder ({out / 'r1'}, {out / 'r2'})" in said
    assert f"keep {out / MANIFEST_FILE}: it maps each form to its episode and method" in said
