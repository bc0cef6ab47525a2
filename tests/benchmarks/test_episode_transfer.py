"""An episode's folder packed on a worker and unpacked by the driver: whole, inside its folder, never through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from latent_agent.benchmarks.episode_transfer import PackedEpisode, PackedFile, pack_episode, unpack_episode
from latent_agent.errors import InputError, OutputPathError


def _episode(folder: Path) -> None:
    (folder / "screens").mkdir(parents=True)
    (folder / "trajectory.jsonl").write_text('{"record": "header"}\n')
    (folder / "screens" / "step_000.xml").write_bytes(b"<hierarchy/>")
    (folder / "screens" / "step_000.png").write_bytes(bytes(range(256)) * 40)
    (folder / "empty").mkdir()


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_folder_arrives_as_it_was_written(tmp_path: Path) -> None:
    _episode(tmp_path / "worker" / "ep")
    packed = pack_episode(tmp_path / "worker" / "ep")
    assert sorted(f.path for f in packed.files) == ["screens/step_000.png", "screens/step_000.xml", "trajectory.jsonl"]
    (tmp_path / "driver").mkdir()
    unpack_episode(packed, tmp_path / "driver" / "ep")
    assert _files(tmp_path / "driver" / "ep") == _files(tmp_path / "worker" / "ep")
    assert (tmp_path / "driver" / "ep" / "empty").is_dir()
    assert sorted(p.name for p in (tmp_path / "driver").iterdir()) == ["ep"]  # no staging folder left
    assert pack_episode(tmp_path / "missing") == PackedEpisode((), ())


def test_a_link_in_the_folder_is_not_sent(tmp_path: Path) -> None:
    _episode(tmp_path / "ep")
    (tmp_path / "ep" / "screens" / "step_001.png").symlink_to("/etc/passwd")
    with pytest.raises(InputError, match="not a regular file"):
        pack_episode(tmp_path / "ep")


@pytest.mark.parametrize("path", ["../escape.txt", "/etc/cron.d/x", "screens/../../x", "", ".hidden",
                                  "screens//x.png", "./trajectory.jsonl", "a\\..\\b"])
def test_a_path_leaving_the_folder_is_refused_and_nothing_is_left(tmp_path: Path, path: str) -> None:
    packed = PackedEpisode(("screens",), (PackedFile("trajectory.jsonl", b"{}\n"), PackedFile(path, b"x")))
    with pytest.raises(InputError):
        unpack_episode(packed, tmp_path / "ep")
    assert list(tmp_path.iterdir()) == []  # neither the episode nor its staging folder
    assert not (tmp_path.parent / "escape.txt").exists()


def test_a_file_sent_twice_or_as_a_folder_is_refused(tmp_path: Path) -> None:
    twice = PackedEpisode((), (PackedFile("a.txt", b"1"), PackedFile("a.txt", b"2")))
    with pytest.raises(InputError, match="twice"):
        unpack_episode(twice, tmp_path / "ep")
    both = PackedEpisode((), (PackedFile("a", b"1"), PackedFile("a/b.txt", b"2")))
    with pytest.raises(InputError, match="both as a file and as a folder"):
        unpack_episode(both, tmp_path / "ep")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_or_link_is_never_written_into(tmp_path: Path) -> None:
    packed = PackedEpisode((), (PackedFile("trajectory.jsonl", b"{}\n"),))
    (tmp_path / "ep").mkdir()
    with pytest.raises(OutputPathError, match="exists already"):
        unpack_episode(packed, tmp_path / "ep")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "linked")
    with pytest.raises(OutputPathError):
        unpack_episode(packed, tmp_path / "linked")
    assert list(elsewhere.iterdir()) == [] and list((tmp_path / "ep").iterdir()) == []
