"""One overwrite policy for every output path (latent_agent/outputs.py), command by command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.cli import main
from latent_agent.errors import OutputPathError
from latent_agent.outputs import CASSETTE, EPISODE, REPORT, claim
from tests.cli.helpers import cli, one_line


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _notes(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("my notes\n")
    return path


RUN = ["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--no-screenshots"]


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ep") / "episode"
    assert main([*RUN, "--out", str(out)]) == 0
    return out


def test_run_out_refuses_a_folder_of_other_files_and_force_replaces_it(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    notes = _notes(tmp_path / "mine" / "notes.txt")
    err = _refused(capsys, *RUN, "--out", str(notes.parent))
    assert "is not empty and holds no episode (found notes.txt)" in err and "--force" in err
    assert notes.read_text() == "my notes\n" and sorted(p.name for p in notes.parent.iterdir()) == ["notes.txt"]
    assert main([*RUN, "--out", str(notes.parent), "--force"]) == 0
    assert not notes.exists() and (notes.parent / "trajectory.jsonl").exists()


def test_run_out_refuses_an_episode_and_force_replaces_it(episode: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(episode, copy)
    before = (copy / "trajectory.jsonl").read_bytes()
    err = _refused(capsys, *RUN, "--out", str(copy))
    assert "already holds an episode" in err
    assert (copy / "trajectory.jsonl").read_bytes() == before
    assert main([*RUN, "--out", str(copy), "--force"]) == 0
    assert (copy / "trajectory.jsonl").read_bytes() != before


def test_show_output_refuses_a_file_that_is_not_an_episode_page(episode: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    notes = _notes(tmp_path / "notes.txt")
    err = _refused(capsys, "show", str(episode), "-o", str(notes))
    assert "-o" in err and "exists and is not an episode page" in err
    assert notes.read_text() == "my notes\n"
    page = tmp_path / "page.html"
    assert main(["show", str(episode), "-o", str(page)]) == 0
    assert main(["show", str(episode), "-o", str(page)]) == 0  # its own page is written again
    assert main(["show", str(episode), "-o", str(notes), "--force"]) == 0
    assert notes.read_text().startswith("<!DOCTYPE html>")
    err = _refused(capsys, "show", str(episode), "-o", str(tmp_path), "--force")
    assert "is a directory" in err


def test_llm_record_refuses_what_is_not_a_cassette_before_the_run(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    base = ["run", "Turn off data roaming", "--device", "sim", "--llm", "scripted:echo", "--max-steps", "1",
            "--no-screenshots"]
    notes = _notes(tmp_path / "notes.txt")
    err = _refused(capsys, *base, "--out", str(tmp_path / "a"), "--llm-record", str(notes))
    assert "--llm-record" in err and "is not an LLM cassette" in err
    assert notes.read_text() == "my notes\n" and not (tmp_path / "a").exists()
    # A directory was a crash mid-episode (IsADirectoryError); now it is refused before anything runs.
    for force in ([], ["--force"]):
        err = _refused(capsys, *base, "--out", str(tmp_path / "b"), "--llm-record", str(tmp_path), *force)
        assert "is a directory; name a file" in err and not (tmp_path / "b").exists()
    # A cassette is added to: one header, the calls of both runs.
    cassette = tmp_path / "calls.jsonl"
    assert main([*base, "--out", str(tmp_path / "c"), "--llm-record", str(cassette)]) == 0
    first = cassette.read_text().splitlines()
    assert main([*base, "--out", str(tmp_path / "d"), "--llm-record", str(cassette)]) == 0
    lines = cassette.read_text().splitlines()
    assert len(lines) == 2 * len(first) - 1 and sum('"schema"' in line for line in lines) == 1
    assert main([*base, "--out", str(tmp_path / "e"), "--llm-record", str(notes), "--force"]) == 0
    assert json.loads(notes.read_text().splitlines()[0])["schema"] == "latent-agent/llm-cassette"


def test_report_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "clock_alarm_6am", "--methods", "react+", "--devices", "sim",
                 "--llm", "scripted:echo", "--runner", "tests.benchmarks.runners:solve", "--no-progress",
                 "--out", str(sweep)]) == 0
    notes = _notes(tmp_path / "elsewhere" / "notes.txt")
    err = _refused(capsys, "report", str(sweep), "--out", str(notes.parent), "--no-episode-pages")
    assert "is not empty and holds no report" in err
    assert main(["report", str(sweep), "--no-episode-pages"]) == 0
    assert main(["report", str(sweep), "--no-episode-pages"]) == 0  # its own report is written again
    err = _refused(capsys, "report", str(sweep), "--out", str(sweep), "--force", "--no-episode-pages")
    assert "holds the input" in err and (sweep / "manifest.json").exists()
    capsys.readouterr()
    # sweep --out: --force replaces a sweep; with --resume it is a contradiction.
    again = ["sweep", "--suite", "sim", "--tasks", "clock_alarm_6am", "--methods", "react-", "--devices", "sim",
             "--llm", "scripted:echo", "--runner", "tests.benchmarks.runners:solve", "--no-progress", "--out",
             str(sweep)]
    assert "already holds a sweep" in _refused(capsys, *again)
    assert "pass one of them" in _refused(capsys, *again, "--force", "--resume")
    assert main([*again, "--force"]) == 0
    assert json.loads((sweep / "manifest.json").read_text())["methods"] == ["react-"]


def test_annotate_outputs_refuse_folders_of_other_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = _notes(tmp_path / "mine" / "notes.txt")
    err = _refused(capsys, "annotate", "export", str(tmp_path / "no-run"), "--kind", "e2e", "--out",
                   str(notes.parent))
    assert "holds no forms (found notes.txt)" in err
    answers = _notes(tmp_path / "a.answers.json")
    err = _refused(capsys, "annotate", "import", str(answers), "--out", str(notes.parent))
    assert "holds no answers (found notes.txt)" in err
    assert sorted(p.name for p in notes.parent.iterdir()) == ["notes.txt"]


def test_force_never_removes_the_working_directory_home_or_an_input(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    _notes(work / "notes.txt")
    _notes(home / "notes.txt")
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    for target in (work, tmp_path, home):
        with pytest.raises(OutputPathError, match="working or home directory"):
            claim(target, EPISODE, force=True)
    assert (home / "notes.txt").exists()
    inputs = tmp_path / "in"
    _notes(inputs / "sweep" / "results.jsonl")
    with pytest.raises(OutputPathError, match="holds the input"):
        claim(inputs, REPORT, force=True, inputs=[inputs / "sweep"])
    assert (inputs / "sweep" / "results.jsonl").exists() and (work / "notes.txt").exists()


def test_an_empty_file_or_folder_is_used(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty.jsonl").touch()
    assert claim(tmp_path / "empty", EPISODE) == tmp_path / "empty"
    assert claim(tmp_path / "empty.jsonl", CASSETTE) == tmp_path / "empty.jsonl"
    assert claim(tmp_path / "missing", EPISODE) == tmp_path / "missing"


def test_the_refusal_is_one_line_from_a_subprocess(tmp_path: Path) -> None:
    notes = _notes(tmp_path / "notes.txt")
    done = cli("show", str(tmp_path), "-o", str(notes))
    assert done.returncode == 2
    assert "notes.txt exists and is not an episode page" in one_line(done.stderr)
    assert notes.read_text() == "my notes\n"


def test_the_demo_is_recorded_too_and_replays(tmp_path: Path) -> None:
    from latent_agent.agent.trajectory import read_trajectory

    cassette = tmp_path / "demo.jsonl"
    assert main([*RUN, "--out", str(tmp_path / "a"), "--llm-record", str(cassette)]) == 0
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", f"replay:{cassette}",
                 "--no-screenshots", "--out", str(tmp_path / "b")]) == 0
    recorded, replayed = read_trajectory(tmp_path / "a"), read_trajectory(tmp_path / "b")
    assert [s.selected_step for s in replayed.steps] == [s.selected_step for s in recorded.steps]
    assert replayed.end is not None and recorded.end is not None
    assert replayed.end.stop_reason == recorded.end.stop_reason


def test_sweep_checks_llm_record_before_planning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = _notes(tmp_path / "notes.txt")
    sweep = ["sweep", "--suite", "sim", "--tasks", "clock_alarm_6am", "--methods", "react+", "--devices", "sim",
             "--llm", "scripted:echo", "--runner", "tests.benchmarks.runners:solve", "--no-progress",
             "--out", str(tmp_path / "s"), "--llm-record", str(notes)]
    assert "is not an LLM cassette" in _refused(capsys, *sweep)
    assert not (tmp_path / "s").exists() and notes.read_text() == "my notes\n"
    assert main([*sweep, "--force"]) == 0
    assert not notes.exists()  # replaced; this runner makes no LLM call, so no cassette was started
