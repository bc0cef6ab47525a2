"""Kill a MiniWoB++ sweep (SIGKILL) while its pages play, resume it: exactly the planned episodes, no browser left.

A real ``latent-agent sweep`` subprocess plays click-button and click-checkboxes with the demo stand-in on two
pages of one Chromium. It is killed at points of its progress, a random moment after each (during the
browser's launch, mid-episode, between episodes) and resumed each time. After the last resume every planned
episode has exactly one record, rewarded by its page; interrupted attempts were set aside; and no process
the killed sweep started (the Playwright driver, Chromium and its renderers) outlived it.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import MANIFEST_FILE, read_manifest
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from tests.device.miniwob.conftest import open_device

ROOT = Path(__file__).resolve().parents[2]
#: Episodes recorded when each of the five kills is sent (of the 16 planned): the first during the browser's
#: launch or the first episode, the last with several episodes still to play.
KILL_AT = (0, 2, 5, 8, 11)
#: Seconds the processes of a killed sweep may take to notice and exit (the driver reads its closed pipe).
EXIT_GRACE_S = 20.0


def _command(out: Path) -> list[str]:
    return [sys.executable, "-m", "latent_agent.cli", "sweep", "--suite", "miniwob", "--split", "train",
            "--tasks", "click-button,click-checkboxes", "--seeds", "4", "--methods", "zero-shot-,zero-shot+",
            "--devices", "miniwob*2", "--llm", "demo", "--max-steps", "6", "--out", str(out), "--no-progress",
            "--no-screenshots", "--resume"]


def _recorded(out: Path) -> int:
    """Lines in the sweep's results file (whole records; a torn last line counts, which only kills sooner)."""
    try:
        return (out / "results.jsonl").read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _session(sid: int) -> list[int]:
    """The processes still in session ``sid`` (the killed sweep's, which started it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) == sid:
                    found.append(int(entry.name))
            except (ProcessLookupError, PermissionError):
                continue
    return found


def _left_after(sid: int) -> list[int]:
    deadline = time.monotonic() + EXIT_GRACE_S
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _session(sid)
    for pid in left:  # ours: started by this test's sweep; ended so the next test starts clean
        os.kill(pid, signal.SIGKILL)
    return left


def test_sigkill_while_pages_play_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    with open_device():  # skips, naming why, where no browser can be launched
        pass
    out = tmp_path / "sweep"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    rng = random.Random(11)
    counts: list[int] = []
    for target in KILL_AT:
        proc = subprocess.Popen(_command(out), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        deadline = time.monotonic() + 120
        while not (out / MANIFEST_FILE).exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        # Killed at points of progress, not of time (a quiet machine plays the whole plan in seconds): once the
        # sweep has recorded its share of episodes, then a moment later, mid-episode or between two.
        while _recorded(out) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode in (-signal.SIGKILL, 0), err.decode()
        assert _left_after(proc.pid) == [], "a process of the killed sweep outlived it"
        keys = [r.key for r in ResultsLog(out).load()]
        assert len(keys) == len(set(keys)), "an episode was recorded twice"
        counts.append(len(keys))
    planned = {e.key for e in read_manifest(out).episodes}
    if counts[-1] >= len(planned):
        pytest.fail(f"the sweep finished before the last kill ({counts}); make it longer")
    assert counts == sorted(counts), "a resume lost recorded episodes"

    proc = subprocess.Popen(_command(out), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err.decode()
    assert _left_after(proc.pid) == []
    records = ResultsLog(out).load()
    assert sorted(r.key for r in records) == sorted(planned)  # exactly the planned episodes: none lost, none twice
    for record in records:
        assert record.status is EpisodeStatus.FINISHED and record.success is True and record.raw_reward == 1.0
        trajectory = read_trajectory(out / record.trajectory)
        assert trajectory.end is not None and trajectory.header.episode_id == record.key
    assert {p.name for p in (out / "episodes").iterdir()} == {Path(r.trajectory).name for r in records}
    attempts = out / "attempts"
    if attempts.exists():
        for aside in attempts.iterdir():
            assert aside.name.startswith("results-torn-") or aside.name.rsplit(".", 1)[0] in planned
