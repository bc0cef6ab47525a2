"""``latent-agent annotate export|import|score`` end to end through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.annotation.forms import load_manifest
from latent_agent.cli import main
from tests.annotation.conftest import write_answers


def test_export_import_score(sim_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forms_dir = tmp_path / "forms"
    assert main(["annotate", "export", str(sim_run), "--kind", "e2e", "--out", str(forms_dir), "--raters", "2",
                 "--seed", "4"]) == 0
    assert "wrote 4 form file(s) for 2 episode(s) x 2 rater(s)" in capsys.readouterr().out
    manifest = load_manifest(forms_dir)
    files = []
    for form in manifest.forms:
        for rater, stop in (("r1", "right_time"), ("r2", "extra_steps")):
            values = {q.id: ("yes" if q.id != "stopping" else stop) for q in form.items[0].questions}
            files.append(str(write_answers(tmp_path / "in", form, rater, {"episode": values})))
    scores_dir = tmp_path / "scores"
    assert main(["annotate", "import", str(forms_dir), *files, "--out", str(scores_dir)]) == 0
    assert "4 answer file(s) stored" in capsys.readouterr().out
    assert main(["annotate", "import", str(forms_dir), files[0], "--out", str(scores_dir)]) == 2
    assert "already imported" in capsys.readouterr().err
    assert main(["annotate", "score", str(scores_dir)]) == 0
    out = capsys.readouterr().out
    assert "Table 3" in out and "ratings.jsonl" in out
    # Both raters: completed, partial all yes; stopping split -> success 50% per method (one episode each).
    scores = json.loads((scores_dir / "scores.json").read_text())
    rows = {(r["benchmark"], r["method"]): r for r in scores["table3"]}
    assert rows[("sim", "-ZS")]["success"] == 0.5 and rows[("all", "+ZS")]["completed"] == 1.0
    ratings = [json.loads(line) for line in (scores_dir / "ratings.jsonl").read_text().splitlines()]
    assert {r["key"] for r in ratings} == {"settings_roaming_off__+ZS__s1", "qs_flashlight_on__-ZS__s2"}
    assert all(r["success"] is True and r["stop_judgement"] is None for r in ratings)
    assert main(["annotate", "score", str(scores_dir), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["record"] == "annotation_scores"


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing")
    assert main(["annotate", "export", missing, "--kind", "latent", "--out", str(tmp_path / "f")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["annotate", "score", str(tmp_path)]) == 2
    assert "no imported answers" in capsys.readouterr().err


def test_out_that_is_a_file(sim_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken.json"
    taken.write_text("mine")
    assert main(["annotate", "export", str(sim_run), "--kind", "e2e", "--out", str(taken)]) == 2
    err = capsys.readouterr().err
    assert "is a file" in err and "Traceback" not in err
    forms_dir = tmp_path / "forms"
    assert main(["annotate", "export", str(sim_run), "--kind", "e2e", "--out", str(forms_dir)]) == 0
    form = load_manifest(forms_dir).forms[0]
    values = {q.id: "yes" if q.id != "stopping" else "right_time" for q in form.items[0].questions}
    answers = write_answers(tmp_path / "in", form, "r1", {"episode": values})
    assert main(["annotate", "import", str(forms_dir), str(answers), "--out", str(taken)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert taken.read_text() == "mine"
