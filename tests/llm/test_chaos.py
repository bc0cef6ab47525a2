"""100 calls through each real SDK with 20% injected 429 / 500 / timeouts: every call ends, totals add up."""

from __future__ import annotations

import asyncio

import pytest

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import Fault, FaultPlan, StandInServer
from latent_agent.errors import LLMError, LLMRetriesExhaustedError
from latent_agent.llm.accounting import Accountant
from latent_agent.llm.base import LLMClient
from latent_agent.llm.budget import Budget
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import Completion, GenerationRequest

from .conftest import API_KEY, SLOW_S, echo

CALLS = 100
#: The timeout must only ever fire on injected slow answers (the totals below count on it), so it
#: leaves a normal answer ample time even with 16 calls in flight on a loaded machine.
RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.001, max_delay_s=0.005, timeout_s=2.0)


def build(protocol: str, accountant: Accountant, budget: Budget) -> tuple[StandInServer, LLMClient]:
    model = ScriptedModel(responder=echo)
    faults = FaultPlan(rate=0.2, kinds=(Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.SLOW), seed=5)
    common = {"retry": RETRY, "accountant": accountant, "budget": budget, "max_concurrency": 16}
    if protocol == "gemini":
        g = GeminiStandIn(model, api_key=API_KEY, faults=faults, slow_s=SLOW_S).start()
        return g, GeminiClient("gemini-2.5-flash", api_key=API_KEY, base_url=g.url, **common)
    o = OpenAIStandIn(model, api_key=API_KEY, faults=faults, slow_s=SLOW_S).start()
    # Stands in for api.openai.com (nothing to discover); the totals below count only chat requests.
    return o, OpenAICompatClient("gpt-4o-mini", api_key=API_KEY, base_url=f"{o.url}/v1", discover_server=False,
                                 **common)


@pytest.mark.parametrize("protocol", ["gemini", "openai"])
def test_hundred_calls_with_twenty_percent_faults(protocol: str) -> None:
    accountant = Accountant()
    budget = Budget()
    server, client = build(protocol, accountant, budget)

    async def one(i: int) -> Completion | LLMError:
        try:
            return await client.generate(GenerationRequest(prompt=f"call {i}"))
        except LLMError as exc:
            return exc

    async def go() -> list[Completion | LLMError]:
        try:
            # A hard ceiling far above the expected few seconds: a hang fails the test, not CI.
            async with asyncio.timeout(60):
                return await asyncio.gather(*(one(i) for i in range(CALLS)))
        finally:
            await client.aclose()

    try:
        outcomes = asyncio.run(go())
    finally:
        server.stop()

    ok = [o for o in outcomes if isinstance(o, Completion)]
    failed = [o for o in outcomes if isinstance(o, LLMError)]
    assert len(ok) + len(failed) == CALLS
    # Only transient faults were injected, so any failure is "retries exhausted", never anything else.
    assert all(isinstance(f, LLMRetriesExhaustedError) for f in failed)
    assert {o.text for o in ok} <= {f"echo: call {i}" for i in range(CALLS)}
    assert len(ok) >= 90  # 3 attempts at 20% each: about 1% of calls should fail

    # Retries are bounded and every attempt reached the server.
    injected = sum(server.faults.injected.values())
    assert injected > 10
    assert all(o.retries <= RETRY.max_attempts - 1 for o in ok)
    attempts = CALLS + sum(o.retries for o in ok) + sum(f.attempts - 1 for f in failed)  # type: ignore[attr-defined]
    assert len(server.seen) == attempts
    assert len(server.seen) == CALLS + injected - len(failed)

    # The totals add up.
    totals = accountant.totals()
    assert totals.calls == CALLS and totals.failures == len(failed)
    assert totals.usage.total_tokens == sum(o.usage.total_tokens for o in ok)
    assert totals.retries == len(server.seen) - CALLS
    assert budget.state().calls == CALLS
    assert budget.state().tokens == totals.usage.total_tokens
