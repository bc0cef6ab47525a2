"""Module-level runners for ``latent-agent sweep --runner tests.benchmarks.runners:NAME`` in subprocess tests."""

from __future__ import annotations

from tests.benchmarks.fakes import Behaviour, ReplayRunner


def _plus_wins(task_id: str, method: str, seed: int) -> Behaviour:
    # The - agents stop one action early on every other task: + beats - on half the tasks.
    if method.endswith("-") and sum(map(ord, task_id)) % 2:
        return "premature"
    return "solve"


#: Solves every task at once.
solve = ReplayRunner()
#: Solves every task, sleeping 20 ms per step (so a kill lands mid-episode).
slow = ReplayRunner(step_delay_s=0.02)
#: + agents solve everything; - agents stop early on half the tasks.
plus_wins = ReplayRunner(behaviour=_plus_wins)
