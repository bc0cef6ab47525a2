"""Kill the sweep process (SIGKILL) at 10 random moments, resume each time: exactly the planned episodes.

The sweep runs as a real ``latent-agent sweep`` subprocess on two simulated
phones with a scripted runner that sleeps per step (so kills land mid-episode,
mid-write, between episodes). After the last resume every planned episode has
exactly one record, every record's trajectory is complete, and every
interrupted attempt was moved to ``attempts/`` rather than deleted.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import MANIFEST_FILE, read_manifest
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog

ROOT = Path(__file__).resolve().parents[2]
KILLS = 10


def _command(out: Path) -> list[str]:
    return [sys.executable, "-m", "latent_agent.cli", "sweep", "--suite", "sim", "--tasks",
            "clock_*,settings_*,chrome_*", "--methods", "zero-shot+,zero-shot-", "--devices", "sim*2",
            "--llm", "scripted:echo", "--out", str(out), "--runner", "tests.benchmarks.runners:slow",
            "--no-progress", "--no-screenshots", "--resume"]


def _keys(out: Path) -> list[str]:
    return [r.key for r in ResultsLog(out).load()]


def test_sigkill_at_random_moments_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    rng = random.Random(7)
    counts: list[int] = []
    for _ in range(KILLS):
        proc = subprocess.Popen(_command(out), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        # Kills should land while episodes run, not while the interpreter starts (which a loaded
        # machine can stretch past any fixed delay): wait for the plan first.
        deadline = time.monotonic() + 60
        while not (out / MANIFEST_FILE).exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode in (-signal.SIGKILL, 0), err.decode()
        keys = _keys(out)
        assert len(keys) == len(set(keys)), "an episode was recorded twice"
        counts.append(len(keys))
    plan = read_manifest(out)
    planned = {e.key for e in plan.episodes}
    assert counts[-1] < len(planned), "the sweep finished before the last kill; make it longer"
    assert counts == sorted(counts), "a resume lost recorded episodes"

    done = subprocess.run(_command(out), cwd=ROOT, env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    records = ResultsLog(out).load()
    keys = [r.key for r in records]
    assert sorted(keys) == sorted(planned)  # exactly the planned episodes: none lost, none twice
    for record in records:
        assert record.status is EpisodeStatus.FINISHED and record.success is True
        trajectory = read_trajectory(out / record.trajectory)
        assert trajectory.end is not None and trajectory.header.episode_id == record.key
    # Interrupted attempts are kept aside, and no episode directory is left without a record.
    recorded_dirs = {Path(r.trajectory).name for r in records}
    assert {p.name for p in (out / "episodes").iterdir()} == recorded_dirs
    attempts = out / "attempts"
    if attempts.exists():
        for aside in attempts.iterdir():
            assert aside.name.startswith("results-torn-") or aside.name.rsplit(".", 1)[0] in planned
