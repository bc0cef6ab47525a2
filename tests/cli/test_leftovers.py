"""The suite's own check that no process it started is left running (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SESSION_MARKER, marked_processes

ROOT = Path(__file__).resolve().parents[2]

LEAKY_TEST = '''
import subprocess, sys

def test_starts_a_server_and_forgets_it(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    (tmp_path.parent.parent / "leaked.pid").write_text(str(proc.pid))
'''

TIDY_TEST = '''
import subprocess, sys

def test_starts_a_server_and_stops_it():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    proc.terminate()
    proc.wait()
'''


def _inner_session(tmp_path: Path, test: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_inner.py").write_text(test)
    env = {k: v for k, v in os.environ.items() if k != SESSION_MARKER}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp",
                           str(tmp_path / "base"), str(tmp_path / "test_inner.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return done, tmp_path / "leaked.pid"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_a_process_left_running_fails_the_suite_and_is_stopped(tmp_path: Path) -> None:
    done, pid_file = _inner_session(tmp_path, LEAKY_TEST)
    pid = int(pid_file.read_text())
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed" in done.stdout  # the test itself passed; the leftover failed the session
    assert "still running at its end" in done.stdout and f"pid {pid}:" in done.stdout
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_a_tidy_suite_passes(tmp_path: Path) -> None:
    done, _ = _inner_session(tmp_path, TIDY_TEST)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "still running" not in done.stdout


def test_only_this_sessions_processes_are_counted() -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                             env={**os.environ, SESSION_MARKER: "another-session"})
    try:
        mine = marked_processes(os.environ[SESSION_MARKER])
        assert other.pid not in mine
        assert other.pid in marked_processes("another-session")
    finally:
        other.terminate()
        other.wait()
