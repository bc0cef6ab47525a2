"""No output command writes through a symbolic link planted under its output root (issue 29 item 2).

A folder someone sent (a sweep, an episode, a demonstrations folder) can hold links where a command writes:
``report/`` or ``report/episodes`` pointing at another folder, ``episode.html`` at another file,
``rationales.jsonl`` at a file to append to. Every such output is refused in one line and nothing is
written, there or where the link points; ``--force`` removes a link, never what it points to.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from latent_agent.atomic_write import open_append, write_atomic
from latent_agent.cli import main
from latent_agent.errors import OutputPathError
from latent_agent.safe_paths import output_path, refuse_links

RUNNER = "tests.benchmarks.runners:solve"
TASKS = "settings_roaming_off,clock_alarm_6am"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sweep of two solved training episodes, with its report."""
    out = tmp_path_factory.mktemp("links") / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", TASKS, "--devices", "sim", "--llm", "scripted:echo",
                 "--out", str(out), "--runner", RUNNER, "--no-progress", "--methods", "zero-shot+"]) == 0
    assert main(["report", str(out)]) == 0
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def elsewhere(tmp_path: Path) -> Path:
    """A folder the links point into, holding a file of someone's."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    return folder


def _plant(path: Path, elsewhere: Path) -> None:
    """Replace ``path`` by a link into ``elsewhere``: a folder by a link to a copy of it, a file by a link to
    the notes (a missing path by a link to a new folder)."""
    if path.is_dir():
        shutil.copytree(path, elsewhere / path.name)
        shutil.rmtree(path)
        path.symlink_to(elsewhere / path.name, target_is_directory=True)
    elif path.exists():
        path.unlink()
        path.symlink_to(elsewhere / "notes.txt")
    else:
        (elsewhere / path.name).mkdir()
        path.symlink_to(elsewhere / path.name, target_is_directory=True)


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "symbolic link" in err, err
    return err


@pytest.mark.parametrize("planted", ["report", "report/episodes", "report/charts", "report/report.html",
                                     "report/report.md", "report/charts/success_sim.png",
                                     "report/episodes/clock_alarm_6am__zero-shot+__s0.html"])
def test_report_writes_nothing_through_a_link(recorded: Path, tmp_path: Path, elsewhere: Path, planted: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    sweep = Path(shutil.copytree(recorded, tmp_path / "sweep", symlinks=True))
    _plant(sweep / planted, elsewhere)
    there = _files(elsewhere)
    _refused(capsys, ["report", str(sweep)])
    assert _files(elsewhere) == there
    # --force clears the report folder, links and all, and writes it again: nothing lands elsewhere.
    assert main(["report", str(sweep), "--force"]) == 0, capsys.readouterr().err
    assert _files(elsewhere) == there and (sweep / "report" / "report.html").is_file()
    assert not (sweep / "report").is_symlink()


@pytest.fixture(scope="module")
def episode(recorded: Path) -> Path:
    return recorded / "episodes" / "clock_alarm_6am__zero-shot+__s0"


def test_show_overwrites_no_file_through_a_link(episode: Path, tmp_path: Path, elsewhere: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    copy = Path(shutil.copytree(episode, tmp_path / "episode"))
    (copy / "episode.html").symlink_to(elsewhere / "notes.txt")
    _refused(capsys, ["show", str(copy)])
    assert (elsewhere / "notes.txt").read_text() == "mine\n"
    assert main(["show", str(copy), "--force"]) == 0  # the link is removed, never the file it named
    assert (elsewhere / "notes.txt").read_text() == "mine\n"
    assert not (copy / "episode.html").is_symlink() and "<!DOCTYPE html>" in (copy / "episode.html").read_text()


@pytest.mark.parametrize("planted", ["rationales.jsonl", "demos.json"])
def test_demos_build_writes_nothing_through_a_link(tmp_path: Path, elsewhere: Path, planted: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demos"
    out.mkdir()
    cache = elsewhere / "notes.txt"
    cache.write_text(json.dumps({"kind": "caap-rationale-cache", "schema_version": 1}) + "\n")  # one it would read
    (out / planted).symlink_to(cache)
    there = _files(elsewhere)
    _refused(capsys, ["demos", "build", "--suite", "sim", "--tasks", "clock_alarm_6am", "--llm", "demo",
                      "--out", str(out)])
    assert _files(elsewhere) == there


def test_a_resumed_sweep_writes_no_episode_through_a_link(recorded: Path, tmp_path: Path, elsewhere: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    sweep = Path(shutil.copytree(recorded, tmp_path / "sweep"))
    (sweep / "results.jsonl").write_text("")  # nothing recorded: the resume runs every episode again
    shutil.rmtree(sweep / "report")
    _plant(sweep / "episodes", elsewhere)
    there = _files(elsewhere)
    err = _refused(capsys, ["sweep", "--out", str(sweep), "--resume", "--runner", RUNNER, "--no-progress"])
    assert "'episodes'" in err
    assert _files(elsewhere) == there


def test_a_cassette_is_never_appended_to_through_a_link(tmp_path: Path, elsewhere: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    cassette = elsewhere / "calls.jsonl"
    cassette.write_text('{"schema": "latent-agent/llm-cassette", "version": 1}\n')
    link = tmp_path / "record.jsonl"
    link.symlink_to(cassette)
    _refused(capsys, ["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--no-screenshots",
                      "--llm-record", str(link), "--out", str(tmp_path / "episode")])
    assert cassette.read_text() == '{"schema": "latent-agent/llm-cassette", "version": 1}\n'
    assert not (tmp_path / "episode").exists()


def test_memory_build_writes_no_memory_through_a_link(recorded: Path, tmp_path: Path, elsewhere: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "memory"
    (elsewhere / "memory").mkdir()
    out.symlink_to(elsewhere / "memory", target_is_directory=True)
    _refused(capsys, ["memory", "build", str(recorded), "--out", str(out), "--embedder", "hash"])
    assert list((elsewhere / "memory").iterdir()) == []


def test_the_writers_refuse_a_link_themselves(tmp_path: Path, elsewhere: Path) -> None:
    # Past the commands' checks, each writer still refuses (a link put in place meanwhile).
    link = tmp_path / "file"
    link.symlink_to(elsewhere / "notes.txt")
    with pytest.raises(OutputPathError, match="is a symbolic link"):
        write_atomic(link, "x")
    with pytest.raises(OutputPathError, match="is a symbolic link"):
        open_append(link)
    with pytest.raises(OutputPathError, match="is a symbolic link"):
        output_path(tmp_path, link, "the page")
    (tmp_path / "out").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(OutputPathError, match=r"leads outside .* through a symbolic link"):
        output_path(tmp_path / "root", tmp_path / "root" / ".." / "out" / "page.html", "the page")
    with pytest.raises(OutputPathError, match=r"holds a symbolic link, 'file'"):
        refuse_links(tmp_path, "--out")
    assert (elsewhere / "notes.txt").read_text() == "mine\n"
