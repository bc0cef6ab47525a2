"""An answer the method cannot read: a fact about the model's answer, not a failure of the provider.

Parsers raise :class:`UnparsableAnswer` (never :class:`~latent_agent.errors.LLMResponseError`, which
means the provider failed and ends a run with exit status 3); the method records the reason on the
call (:meth:`~latent_agent.agent.calls.LLMCaller.unparsable`, ``LLMCall.parse_error``, the raw answer
kept) and goes on as its specification says for an unusable answer.
"""

from __future__ import annotations


class UnparsableAnswer(ValueError):
    """The model's answer is not in the form the prompt asked for (the message says how)."""
