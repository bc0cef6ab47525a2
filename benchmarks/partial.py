"""Partial completion, defined once: the share of a task's partial-completion questions answered yes.

This is the paper's Table 3 measure. It is computed the same way for every
episode, whoever answered the questions (an automatic check on the simulated
phone, or raters): a success is *not* counted as 1.0 by fiat, so an agent that
completes a task by a route the questions do not describe scores what the
answers say. Sweep metrics (:attr:`latent_agent.benchmarks.results.EpisodeRecord.partial_score`),
rater scores (``annotation/scoring.py``) and the report all call
:func:`partial_completion`.
"""

from __future__ import annotations

from collections.abc import Iterable


def partial_completion(answers: Iterable[bool | None]) -> float | None:
    """Share of the answered questions answered yes.

    Args:
        answers: One answer per partial-completion question of the task; ``None``
            for a question nobody has answered (not rated yet, or raters tied).

    Returns:
        The share in [0, 1], or ``None`` when no question is answered (a task
        without questions has no partial completion).
    """
    answered = [a for a in answers if a is not None]
    if not answered:
        return None
    return sum(answered) / len(answered)
