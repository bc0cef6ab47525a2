"""Retries of transient provider failures: exponential backoff, jitter, Retry-After.

Backends turn one failed attempt into :class:`TransientFailure` (rate limit,
5xx, timeout, connection reset); :func:`call_with_retries` sleeps and tries
again until :attr:`RetryPolicy.max_attempts` is reached, then raises the typed
error of the last failure. A request that timed out is sent again at most once
(:attr:`RetryPolicy.max_timeout_attempts`): a model too slow for the timeout is as slow the next time,
and four attempts of a minute each stalled whole episodes; the final error names ``--llm-timeout``.
The SDKs' own retries are switched off (see ``gemini.py`` and ``openai_compat.py``) so attempts never
multiply.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from latent_agent.errors import (
    ConfigError,
    LLMRateLimitError,
    LLMRetriesExhaustedError,
    LLMTimeoutError,
    LLMUnavailableError,
)

T = TypeVar("T")
log = logging.getLogger("latent_agent.llm")

FailureKind = Literal["rate_limit", "server", "timeout", "connection"]

_FINAL: dict[str, type[LLMRetriesExhaustedError]] = {
    "rate_limit": LLMRateLimitError,
    "server": LLMUnavailableError,
    "connection": LLMUnavailableError,
    "timeout": LLMTimeoutError,
}


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to retry.

    Attributes:
        max_attempts: Attempts per provider call, the first included (1 = no retry).
        base_delay_s: Backoff before the second attempt; doubles each time.
        max_delay_s: Cap of the computed backoff.
        jitter: Fraction of each backoff drawn at random (0 = none, 1 = full jitter).
        max_retry_after_s: Longest server-requested wait honoured; a longer Retry-After
            ends the retries at once (waiting minutes inside one agent step helps nobody).
        timeout_s: Deadline of each attempt, enforced by the SDK and again around it.
        max_timeout_attempts: Attempts that may time out before the call gives up (the first included), so
            an identical request is resent after a timeout this many times minus one.
    """

    max_attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    jitter: float = 0.5
    max_retry_after_s: float = 60.0
    timeout_s: float = 60.0
    max_timeout_attempts: int = 2

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if min(self.base_delay_s, self.max_delay_s, self.max_retry_after_s) < 0:
            raise ConfigError("retry delays must be >= 0")
        if not 0 <= self.jitter <= 1:
            raise ConfigError(f"jitter must be within [0, 1], got {self.jitter}")
        if self.max_timeout_attempts < 1:
            raise ConfigError(f"max_timeout_attempts must be >= 1, got {self.max_timeout_attempts}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be > 0, got {self.timeout_s}")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """Delay before retry number ``retry`` (1-based) when the server named none."""
        delay = min(self.max_delay_s, self.base_delay_s * 2.0 ** (retry - 1))
        return delay * (1 - self.jitter * rng.random())


class TransientFailure(Exception):
    """One attempt failed in a way a later attempt may not (raised by backends, caught here).

    Attributes:
        kind: rate_limit, server, timeout or connection.
        detail: What happened, for the final error message (never contains secrets).
        retry_after_s: The wait the server asked for, if it named one.
    """

    def __init__(self, kind: FailureKind, detail: str, *, retry_after_s: float | None = None) -> None:
        self.kind = kind
        self.detail = detail
        self.retry_after_s = retry_after_s
        super().__init__(f"{kind}: {detail}")


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date).

    Returns:
        The wait in seconds (>= 0), or None when the header is absent or unreadable.
    """
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    what: str,
    rng: random.Random | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    gate: contextlib.AbstractAsyncContextManager[object] | None = None,
) -> tuple[T, int]:
    """Run ``attempt`` until it succeeds, retrying :class:`TransientFailure`.

    Each attempt runs under ``policy.timeout_s``; an attempt still running then is
    cancelled and counts as a timeout, so no call can hang.

    Args:
        attempt: Makes one provider call.
        policy: Attempts, backoff and timeout.
        what: Names the call in messages (e.g. ``"gemini gemini-2.5-flash"``).
        rng: Source of jitter (seed it for reproducible tests).
        sleep: Awaitable sleep, replaceable in tests.
        gate: Held during each attempt (not during backoff), to bound concurrency; the
            wait for it does not count against the attempt's timeout.

    Returns:
        The attempt's result and the number of retries it took.

    Raises:
        LLMRateLimitError, LLMUnavailableError, LLMTimeoutError: The last attempt failed
            transiently too (or the server asked for a wait beyond ``max_retry_after_s``).
        LLMError: Any non-transient error of an attempt, at once.
    """
    rng = rng or random.Random()
    timeouts = 0
    for number in range(1, policy.max_attempts + 1):
        try:
            async with gate if gate is not None else contextlib.nullcontext():
                async with asyncio.timeout(policy.timeout_s):
                    return await attempt(), number - 1
        except TimeoutError:
            failure = TransientFailure("timeout", f"no answer within {policy.timeout_s:g} s")
        except TransientFailure as exc:
            failure = exc
        timeouts += failure.kind == "timeout"
        too_long = failure.retry_after_s is not None and failure.retry_after_s > policy.max_retry_after_s
        too_slow = timeouts >= policy.max_timeout_attempts
        if number == policy.max_attempts or too_long or too_slow:
            reason = (
                f"server asked to wait {failure.retry_after_s:g} s (limit {policy.max_retry_after_s:g} s)"
                if too_long
                else f"gave up after {number} attempt{'s' if number > 1 else ''}"
            )
            if failure.kind == "timeout":
                reason += (f" ({timeouts} timed out); each attempt may take --llm-timeout {policy.timeout_s:g} s, "
                           "raise it for a slow model or server")
            raise _FINAL[failure.kind](
                f"{what}: {failure.detail}; {reason}", attempts=number
            ) from failure
        delay = failure.retry_after_s if failure.retry_after_s is not None else policy.backoff(number, rng)
        log.info("%s: %s; retry %d in %.2f s", what, failure.detail, number, delay)
        await sleep(delay)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
