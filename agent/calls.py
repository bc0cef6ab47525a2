"""Every LLM call of an episode goes through :class:`LLMCaller`.

It builds the request (the prompt, the call's declared purpose and the structured inputs the
prompt was rendered from), attributes the call to the episode and step for the client's
accountant, and keeps an :class:`~latent_agent.agent.trajectory.LLMCall` record (prompt,
every sample, tokens, latency, when it started) for the trajectory. Budgets and accounting
belong to the client (:class:`~latent_agent.llm.base.LLMClient`) alone, so no call is
admitted or counted twice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from latent_agent.agent.trajectory import LLMCall, LLMUsage
from latent_agent.errors import LLMError
from latent_agent.llm.accounting import scope
from latent_agent.llm.base import LLMClient
from latent_agent.llm.types import Completion, GenerationRequest


@dataclass(slots=True)
class _StepLog:
    start: float
    calls: list[LLMCall] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)


class LLMCaller:
    """Asks the model on behalf of one episode and records each call.

    Args:
        client: The model (it applies the run's budget and accountant, if any).
        episode_id: Attributes the calls in the client's accountant.
    """

    def __init__(self, client: LLMClient, *, episode_id: str) -> None:
        self.client = client
        self.episode_id = episode_id
        self.step: int | None = None
        self._log = _StepLog(time.perf_counter())

    def begin(self, step: int | None) -> None:
        """Start collecting the calls of ``step`` (None: calls outside steps)."""
        self.step = step
        self._log = _StepLog(time.perf_counter())

    @property
    def calls(self) -> tuple[LLMCall, ...]:
        """The calls since :meth:`begin`, ordered by start time."""
        return tuple(sorted(self._log.calls, key=lambda c: c.started_s))

    def usage(self) -> LLMUsage:
        """LLM cost since :meth:`begin`."""
        total = LLMUsage()
        for c in self._log.calls:
            total = total + LLMUsage(1, c.prompt_tokens, c.output_tokens, c.latency_s, c.retries)
        return total

    def busy_s(self) -> float:
        """Wall time since :meth:`begin` during which at least one call was in flight."""
        busy = 0.0
        end = float("-inf")
        for a, b in sorted(self._log.spans):
            if b <= end:
                continue
            busy += b - max(a, end)
            end = b
        return busy

    async def ask(
        self,
        purpose: str,
        prompt: str,
        *,
        inputs: Mapping[str, object] | None = None,
        temperature: float = 0.0,
        n: int = 1,
        stop: tuple[str, ...] = (),
    ) -> Completion:
        """Send ``prompt`` and record the call under ``purpose``.

        Args:
            purpose: What the call is for (``select``, ``ground``, ``mistakes``, ...).
            prompt: The rendered prompt.
            inputs: The values ``prompt`` was rendered from (JSON-serializable).
            temperature: Sampling temperature.
            n: Samples wanted.
            stop: Stop sequences.

        Raises:
            LLMError: The call failed (the failure is recorded first);
                :class:`~latent_agent.errors.LLMBudgetExceededError` when the client's budget is spent.
        """
        request = GenerationRequest(prompt=prompt, temperature=temperature, n=n, stop=stop, purpose=purpose,
                                    inputs=dict(inputs or {}))
        log = self._log
        start = time.perf_counter()
        try:
            with scope(episode=self.episode_id, step=self.step):
                completion = await self.client.generate(request)
        except LLMError as exc:
            end = time.perf_counter()
            log.spans.append((start, end))
            log.calls.append(LLMCall(
                purpose=purpose, prompt=prompt, temperature=temperature, n=n, model=self.client.model,
                latency_s=end - start, started_s=start - log.start, error=f"{type(exc).__name__}: {exc}",
            ))
            raise
        end = time.perf_counter()
        log.spans.append((start, end))
        log.calls.append(LLMCall(
            purpose=purpose, prompt=prompt, outputs=completion.texts, temperature=temperature, n=n,
            model=completion.model, prompt_tokens=completion.usage.prompt_tokens,
            output_tokens=completion.usage.output_tokens, latency_s=completion.latency_s,
            retries=completion.retries, started_s=start - log.start,
        ))
        return completion
