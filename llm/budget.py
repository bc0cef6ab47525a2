"""A per-run LLM budget: at most so many calls and so many tokens.

One :class:`Budget` is shared by every client of a run. A call is admitted
before anything is sent; once the calls or tokens are spent the next call
raises :class:`LLMBudgetExceededError`, which stops the run cleanly instead
of failing half-way through a provider request.

Images count against the token limit like text: a call is charged its total tokens, whose prompt
part includes the images' tokens (as the provider reported them, or the published rule's estimate
where a stand-in reports usage), so screenshots sent every step spend a token budget as fast as they
cost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from latent_agent.errors import ConfigError, LLMBudgetExceededError


@dataclass(frozen=True, slots=True)
class BudgetState:
    """How much of a budget is used.

    Attributes:
        calls: Calls admitted so far (one per ``generate``, whatever its ``n``).
        tokens: Total tokens reported by the calls that finished.
    """

    calls: int
    tokens: int


class Budget:
    """Limits on the calls and tokens of one run; safe to share across threads and tasks.

    Args:
        max_calls: Most ``generate`` calls admitted, or None for no limit.
        max_tokens: Most total tokens; a call is refused once this many were used.
            Tokens are known only after a call, so the last admitted call may end
            above the limit; no call starts after it.
    """

    def __init__(self, *, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        if max_calls is not None and max_calls < 0:
            raise ConfigError(f"max_calls must be >= 0, got {max_calls}")
        if max_tokens is not None and max_tokens < 0:
            raise ConfigError(f"max_tokens must be >= 0, got {max_tokens}")
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self._calls = 0
        self._tokens = 0

    def admit(self, what: str) -> None:
        """Count one call, or refuse it.

        Raises:
            LLMBudgetExceededError: The calls or the tokens are spent.
        """
        with self._lock:
            if self.max_calls is not None and self._calls >= self.max_calls:
                raise LLMBudgetExceededError(
                    f"{what}: LLM call budget spent ({self._calls} of max {self.max_calls} calls)"
                )
            if self.max_tokens is not None and self._tokens >= self.max_tokens:
                raise LLMBudgetExceededError(
                    f"{what}: LLM token budget spent ({self._tokens} of max {self.max_tokens} tokens)"
                )
            self._calls += 1

    def charge(self, tokens: int) -> None:
        """Add the tokens a finished call used."""
        with self._lock:
            self._tokens += tokens

    def state(self) -> BudgetState:
        with self._lock:
            return BudgetState(self._calls, self._tokens)
