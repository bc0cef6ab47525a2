"""Files written whole-or-not-at-all keep the permissions a plain write gives them (issue 33 item 4).

Reports are made to be shared: under umask 022 report.html, report.md and the episode pages are 0644 like
every other output, not mkstemp's private 0600; a file written again keeps the mode it had.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.atomic_write import write_atomic


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_has_the_mode_a_plain_write_gives(tmp_path: Path, umask_022: None) -> None:
    write_atomic(tmp_path / "report.html", "<p>shared</p>")
    (tmp_path / "plain.txt").write_text("plain")
    assert _mode(tmp_path / "report.html") == _mode(tmp_path / "plain.txt") == 0o644


def test_an_exclusive_write_too(tmp_path: Path, umask_022: None) -> None:
    write_atomic(tmp_path / "answers.json", "{}", exclusive=True)
    assert _mode(tmp_path / "answers.json") == 0o644


def test_a_file_written_again_keeps_its_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "report.md"
    target.write_text("old")
    target.chmod(0o600)
    write_atomic(target, "new")
    assert target.read_text() == "new" and _mode(target) == 0o600


def test_a_stricter_umask_is_honoured(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        write_atomic(tmp_path / "private.md", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "private.md") == 0o600
