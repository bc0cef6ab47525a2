"""The error-analysis form (``--kind errors``): export, answers, import, score, consensus and the report.

The sweep (``failed_sweep`` in conftest) is two real episodes recorded on the
simulated phone, with a ``results.jsonl`` saying how they ended: the roaming
episode failed by the automatic check with two grounding errors; the
flashlight episode's outcome is left to raters (as on a suite without
automatic checks).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.forms import load_manifest
from latent_agent.annotation.importer import load_scores_dir
from latent_agent.annotation.questions import ERROR_CAUSE, FormKind
from latent_agent.annotation.scoring import ALL, score
from latent_agent.benchmarks.ratings import RootCause, load_ratings
from latent_agent.cli import main
from latent_agent.errors import AnnotationError, ConfigError
from tests.annotation.conftest import FLASH, ROAMING, write_answers


def _cause(forms_dir: Path, key: str, rater: str, cause: RootCause, out: Path) -> Path:
    (form,) = [f for f in load_manifest(forms_dir).forms if f.episode.key == key]
    return write_answers(out, form, rater, {"episode": {ERROR_CAUSE.id: cause.value}})


def test_errors_forms_cover_failed_episodes_and_label_the_guess(failed_sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "forms"
    result = export_forms(failed_sweep, out, ExportOptions(FormKind.ERRORS, raters=2))
    manifest = load_manifest(out)
    assert manifest.kind is FormKind.ERRORS
    # Only the roaming episode is known to have failed; the flashlight's outcome is unknown.
    (form,) = manifest.forms
    assert form.episode.key == ROAMING and result.units_available == 1
    (item,) = form.items
    assert [q.id for q in item.questions] == [ERROR_CAUSE.id]
    assert [c.value for c in item.questions[0].choices] == ["action_selection", "grounding", "both", "environment"]
    assert item.guess == "grounding"  # two steps could not be grounded
    html = (out / "r2" / f"{form.form_id}.html").read_text(encoding="utf-8")
    assert "Automatic guess, not a rater's answer:</b> Grounding (2 step(s) could not be grounded)" in html
    # The guess marks its choice but selects nothing: a saved answer is always the rater's.
    assert re.search(r'value="grounding"[^>]*> Grounding: [^<]*<i>\(automatic guess\)</i>', html)
    assert re.search(r"<input[^>]*\bchecked\b", html) is None
    assert html.count('<section class="page"') == 1
    # The page shows every step with the chosen step and the grounded action, and how the episode ended.
    assert html.count("Commanded: ") == 5 and "Action: " in html
    assert "Error analysis" in html and "Turn off data roaming" in html


def test_errors_export_needs_known_failures(failed_sweep: Path, tmp_path: Path, recorded_failures: Path) -> None:
    # A single episode directory has no results.jsonl: nothing says it failed.
    with pytest.raises(AnnotationError, match=r"no failed episode to analyse \(0 of 1 episode\(s\) have a known"):
        export_forms(recorded_failures / "episodes" / ROAMING, tmp_path / "f1", ExportOptions(FormKind.ERRORS))
    with pytest.raises(ConfigError, match="--ratings only applies to --kind errors"):
        export_forms(failed_sweep, tmp_path / "f2", ExportOptions(FormKind.E2E, ratings=tmp_path / "r.jsonl"))
    # Raters judged both episodes completed: no failure left.
    ratings = tmp_path / "ratings.jsonl"
    ratings.write_text("".join(json.dumps({"record": "rating", "schema_version": 1, "key": k, "success": True})
                               + "\n" for k in (ROAMING, FLASH)))
    with pytest.raises(AnnotationError, match=r"2 of 2 episode\(s\) have a known outcome, none failed"):
        export_forms(failed_sweep, tmp_path / "f3", ExportOptions(FormKind.ERRORS, ratings=ratings))


def test_round_trip_export_answers_import_score_report(failed_sweep: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    sweep = failed_sweep
    scores_dir = tmp_path / "scores"
    # 1. Raters judge the flashlight episode (no automatic check) on an e2e form: not completed.
    e2e_dir = tmp_path / "e2e"
    assert main(["annotate", "export", str(sweep), "--kind", "e2e", "--out", str(e2e_dir)]) == 0
    (flash_e2e,) = [f for f in load_manifest(e2e_dir).forms if f.episode.key == FLASH]
    values = {q.id: "no" for q in flash_e2e.items[0].questions} | {"stopping": "premature"}
    e2e_answers = write_answers(tmp_path / "in", flash_e2e, "r1", {"episode": values})
    assert main(["annotate", "import", str(e2e_dir), str(e2e_answers), "--out", str(scores_dir)]) == 0
    assert main(["annotate", "score", str(scores_dir)]) == 0
    capsys.readouterr()
    # 2. Errors forms for every failure, the raters' verdicts deciding the flashlight's.
    errors_dir = tmp_path / "errors"
    assert main(["annotate", "export", str(sweep), "--kind", "errors", "--out", str(errors_dir), "--raters", "2",
                 "--ratings", str(scores_dir / "ratings.jsonl")]) == 0
    assert "for 2 episode(s) x 2 rater(s)" in capsys.readouterr().out
    guesses = {f.episode.key: f.items[0].guess for f in load_manifest(errors_dir).forms}
    assert guesses == {ROAMING: "grounding", FLASH: "action_selection"}
    # 3. Answers: roaming r1 grounding, r2 both (a tie); flashlight both raters action selection.
    files = [_cause(errors_dir, ROAMING, "r1", RootCause.GROUNDING, tmp_path / "in"),
             _cause(errors_dir, ROAMING, "r2", RootCause.BOTH, tmp_path / "in"),
             _cause(errors_dir, FLASH, "r1", RootCause.ACTION_SELECTION, tmp_path / "in"),
             _cause(errors_dir, FLASH, "r2", RootCause.ACTION_SELECTION, tmp_path / "in")]
    assert main(["annotate", "import", str(errors_dir), *map(str, files), "--out", str(scores_dir)]) == 0
    assert main(["annotate", "score", str(scores_dir)]) == 0
    text = capsys.readouterr().out
    assert "Error analysis: primary root cause of each failure" in text
    # 4. Scores: per method, shares of ratings; the guess was picked by 1 of 2 ratings on roaming (r1), by both
    #    on the flashlight.
    causes = {(c.benchmark, c.method): c for c in score(load_scores_dir(scores_dir)).causes}
    plus, minus = causes[("sim", "zero-shot+")], causes[("sim", "zero-shot-")]
    assert (plus.episodes, plus.ratings, plus.shares["grounding"], plus.shares["both"]) == (1, 2, 0.5, 0.5)
    assert (plus.guessed, plus.guess_agreement) == (2, 0.5)
    assert (minus.shares["action_selection"], minus.guess_agreement) == (1.0, 1.0)
    assert causes[(ALL, "zero-shot+")].shares == plus.shares
    saved = json.loads((scores_dir / "scores.json").read_text())
    assert {(c["benchmark"], c["method"]) for c in saved["causes"]} == set(causes)
    # 5. ratings.jsonl joins both kinds per episode: the tie leaves the roaming cause null.
    ratings = load_ratings(scores_dir / "ratings.jsonl")
    assert ratings[FLASH].success is False and ratings[FLASH].error_cause is RootCause.ACTION_SELECTION
    assert ratings[ROAMING].success is None and ratings[ROAMING].error_cause is None
    # 6. The report: the raters' error analysis per method (Fig. 3 style), the automatic guess apart.
    report_dir = tmp_path / "report"
    assert main(["report", str(sweep), "--out", str(report_dir), "--ratings", str(scores_dir / "ratings.jsonl"),
                 "--no-episode-pages"]) == 0
    md = (report_dir / "report.md").read_text()
    assert "| sim | Zero-shot (no latent state) | 1 | 1 | 100.0% | 0.0% | 0.0% | 0.0% |" in md
    assert "| sim | Zero-shot + latent state | 1 | 0 | – | – | – | – |" in md  # its raters tied
    assert "raters' root causes for 1 failure(s)" in md and "Error categories, automatic guess" in md
    assert (report_dir / "charts" / "causes_sim.png").is_file()
