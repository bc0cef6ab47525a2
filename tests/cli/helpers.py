"""Running ``latent-agent`` as a subprocess, as a script would."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m latent_agent.cli ARGV`` from the repository root (so ``tests.*`` runners import)."""
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "latent_agent.cli", *argv], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=timeout, check=False)


def dead_port() -> int:
    """A loopback port nothing listens on (bound and released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_line(stderr: str) -> str:
    """The one error line, checked to be one line and no traceback."""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("latent-agent: error:")]
    assert len(errors) == 1, stderr
    return errors[0]
