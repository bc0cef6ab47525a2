"""The background start of slow work (tests/prestart.py): once, its result or error handed to the test."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.prestart import Prestart


def test_the_work_runs_once_in_its_folder_and_hands_back_its_result(tmp_path: Path) -> None:
    runs: list[Path] = []
    gate = threading.Event()

    def work(folder: Path) -> int:
        gate.wait(5)
        runs.append(folder)
        return 42

    job = Prestart("job", work, ready=lambda: True)
    assert job.start(tmp_path) and job.start(tmp_path)
    gate.set()
    assert job.result(tmp_path) == (tmp_path / "job", 42)
    assert runs == [tmp_path / "job"]


def test_an_error_of_the_work_is_raised_in_the_test(tmp_path: Path) -> None:
    def work(folder: Path) -> int:
        raise ValueError("the sweep failed")

    job = Prestart("job", work, ready=lambda: True)
    with pytest.raises(ValueError, match="the sweep failed"):
        job.result(tmp_path)


def test_work_that_cannot_run_is_not_started(tmp_path: Path) -> None:
    job = Prestart("job", lambda folder: 1, ready=lambda: False)
    assert not job.start(tmp_path)
    assert not (tmp_path / "job").exists()
    with pytest.raises(AssertionError, match="cannot run here"):
        job.result(tmp_path)
