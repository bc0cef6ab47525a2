"""Episode runners for ``latent-agent sweep --runner tests.cli.runners:NAME`` in subprocess tests."""

from __future__ import annotations

import os
from pathlib import Path

from latent_agent.benchmarks.episodes import EpisodeJob
from latent_agent.errors import LLMUnavailableError
from tests.benchmarks.fakes import ReplayRunner

#: While the file this variable names exists, the "LLM" is down.
LLM_DOWN = "LATENT_TEST_LLM_DOWN"

_solve = ReplayRunner()


def llm_down_while_flagged(job: EpisodeJob) -> Path:
    """Solves the task, unless the flag file exists: then fails as a dead LLM endpoint does."""
    flag = os.environ.get(LLM_DOWN)
    if flag and Path(flag).exists():
        raise LLMUnavailableError("gemini m: cannot connect to http://127.0.0.1:9 (ConnectError); gave up after "
                                  "4 attempts", attempts=4)
    return _solve(job)
