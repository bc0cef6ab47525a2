"""Both real SDKs (google-genai, openai) end to end against the local stand-ins, failures included."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import Fault, StandInServer
from latent_agent.errors import (
    LLMAuthError,
    LLMEmptyResponseError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMSafetyBlockError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.scripted import Reply, ScriptedModel
from latent_agent.llm.types import GenerationRequest, Message

from .conftest import API_KEY, FAST, SLOW_S, echo

Factory = Callable[..., tuple[StandInServer, LLMClient]]


def make_gemini(model: ScriptedModel, *, key: str = API_KEY, retry: RetryPolicy = FAST, **server_kw: Any
                ) -> tuple[StandInServer, LLMClient]:
    server = GeminiStandIn(model, api_key=API_KEY, slow_s=SLOW_S, **server_kw).start()
    return server, GeminiClient("gemini-2.5-flash", api_key=key, base_url=server.url, retry=retry)


def make_openai(model: ScriptedModel, *, key: str = API_KEY, retry: RetryPolicy = FAST, **server_kw: Any
                ) -> tuple[StandInServer, LLMClient]:
    server = OpenAIStandIn(model, api_key=API_KEY, slow_s=SLOW_S, **server_kw).start()
    # Stands in for api.openai.com, which has nothing to discover; these tests count its requests.
    return server, OpenAICompatClient("gpt-4o-mini", api_key=key, base_url=f"{server.url}/v1", retry=retry,
                                      discover_server=False)


BOTH = pytest.mark.parametrize("make", [make_gemini, make_openai], ids=["gemini", "openai"])


def run(client: LLMClient, server: StandInServer, request: GenerationRequest) -> Any:
    async def go() -> Any:
        try:
            return await client.generate(request)
        finally:
            await client.aclose()

    try:
        return asyncio.run(go())
    finally:
        server.stop()


@BOTH
def test_plain_prompt_round_trip(make: Factory) -> None:
    model = ScriptedModel(["pong"])
    server, client = make(model)
    out = run(client, server, GenerationRequest(prompt="ping", max_output_tokens=16, stop=("\n",)))
    assert out.texts == ("pong",)
    assert out.finish_reasons == ("stop",)
    assert out.usage.prompt_tokens > 0 and out.usage.output_tokens > 0
    assert out.usage.total_tokens == out.usage.prompt_tokens + out.usage.output_tokens
    assert out.model in ("gemini-2.5-flash", "gpt-4o-mini")
    assert out.retries == 0 and out.latency_s > 0
    (seen,) = server.seen
    assert seen.authorized
    sent = model.requests[0]
    assert sent.chat() == (Message("user", "ping"),)
    # Gemini 2.5 thinks out of the same cap, so it is sent its thinking room on top (llm/models.json).
    assert sent.max_output_tokens == {"gemini-2.5-flash": 16 + 24576, "gpt-4o-mini": 16}[out.model]
    assert sent.stop == ("\n",)


@BOTH
def test_chat_roles_survive_the_protocol(make: Factory) -> None:
    model = ScriptedModel(["ok"])
    server, client = make(model)
    chat = (Message("system", "be terse"), Message("user", "hi"), Message("assistant", "hello"),
            Message("user", "tap OK"))
    run(client, server, GenerationRequest(messages=chat, temperature=0.7))
    assert model.requests[0].messages == chat
    assert model.requests[0].temperature == pytest.approx(0.7)


@BOTH
def test_n_samples_in_one_round_trip(make: Factory) -> None:
    model = ScriptedModel([f"s{i}" for i in range(8)])
    server, client = make(model)
    out = run(client, server, GenerationRequest(prompt="p", n=8, temperature=1.0))
    assert out.texts == tuple(f"s{i}" for i in range(8))
    assert len(server.seen) == 1 and out.provider_calls == 1


def test_gemini_without_candidates_falls_back_to_parallel_calls() -> None:
    model = ScriptedModel(responder=echo)
    server, client = make_gemini(model, max_candidates=1)

    async def go() -> tuple[Any, Any]:
        first = await client.generate(GenerationRequest(prompt="p", n=4))
        second = await client.generate(GenerationRequest(prompt="q", n=3))
        await client.aclose()
        return first, second

    try:
        first, second = asyncio.run(go())
    finally:
        server.stop()
    assert len(first.texts) == 4 and len(second.texts) == 3
    # One rejected request, then 4 singles; afterwards the client knows: 3 singles.
    assert len(server.seen) == 1 + 4 + 3
    assert client.max_native_n == 1


@pytest.mark.parametrize("mode", ["ignore", "reject"])
def test_openai_server_that_ignores_or_rejects_n(mode: str) -> None:
    model = ScriptedModel(responder=echo)
    server, client = make_openai(model, n_mode=mode)
    out = run(client, server, GenerationRequest(prompt="p", n=5))
    assert len(out.texts) == 5
    assert client.max_native_n == 1


@BOTH
@pytest.mark.parametrize("fault", [Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.RESET, Fault.SLOW])
def test_transient_faults_are_retried(make: Factory, fault: Fault) -> None:
    model = ScriptedModel(["fine"])
    # The answer after the fault must come within the timeout even on a loaded machine.
    retry = RetryPolicy(max_attempts=3, base_delay_s=0.001, timeout_s=1.5)
    server, client = make(model, retry=retry)
    server.faults.add(fault)
    out = run(client, server, GenerationRequest(prompt="p"))
    assert out.texts == ("fine",)
    assert out.retries == 1
    assert [s.fault for s in server.seen] == [fault, None]


@BOTH
@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault.RATE_LIMIT, LLMRateLimitError),
        (Fault.SERVER_ERROR, LLMUnavailableError),
        (Fault.RESET, LLMUnavailableError),
        (Fault.SLOW, LLMTimeoutError),
    ],
)
def test_persistent_faults_end_in_typed_errors(make: Factory, fault: Fault, error: type[Exception]) -> None:
    # Every attempt gets the fault, so a short timeout cannot misfire on a normal answer.
    retry = RetryPolicy(max_attempts=2, base_delay_s=0.001, timeout_s=0.3)
    server, client = make(ScriptedModel(["never"]), retry=retry)
    server.faults.add(fault, fault)
    with pytest.raises(error, match="gave up after 2 attempts") as info:
        run(client, server, GenerationRequest(prompt="p"))
    assert info.value.attempts == 2  # type: ignore[attr-defined]
    assert len(server.seen) == 2


@BOTH
def test_retry_after_is_honoured(make: Factory, monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    server, client = make(ScriptedModel(["ok"]), retry_after_s=0.25)
    client._sleep = fake_sleep
    server.faults.add(Fault.RATE_LIMIT)
    run(client, server, GenerationRequest(prompt="p"))
    assert slept == [pytest.approx(0.25)]


@BOTH
def test_retry_after_beyond_the_limit_stops_at_once(make: Factory) -> None:
    retry = RetryPolicy(max_attempts=5, base_delay_s=0.001, max_retry_after_s=1.0, timeout_s=1.0)
    server, client = make(ScriptedModel(["ok"]), retry=retry, retry_after_s=30)
    server.faults.add(Fault.RATE_LIMIT)
    with pytest.raises(LLMRateLimitError, match="asked to wait 30 s"):
        run(client, server, GenerationRequest(prompt="p"))
    assert len(server.seen) == 1


@BOTH
def test_malformed_json_is_a_typed_error(make: Factory) -> None:
    server, client = make(ScriptedModel(["ok"]))
    server.faults.add(Fault.MALFORMED)
    with pytest.raises(LLMResponseError, match="unreadable response"):
        run(client, server, GenerationRequest(prompt="p"))


@BOTH
def test_wrong_key_is_an_auth_error_without_the_key(make: Factory) -> None:
    wrong = "sk-wrong-0000-SECRETISH"
    server, client = make(ScriptedModel(["ok"]), key=wrong)
    with pytest.raises(LLMAuthError) as info:
        run(client, server, GenerationRequest(prompt="p"))
    assert wrong not in str(info.value) and API_KEY not in str(info.value)
    assert len(server.seen) == 1  # not retried


@BOTH
def test_prompt_blocked_for_safety(make: Factory) -> None:
    server, client = make(ScriptedModel([LLMSafetyBlockError("blocked")]))
    with pytest.raises(LLMSafetyBlockError):
        run(client, server, GenerationRequest(prompt="p"))


@BOTH
def test_every_candidate_blocked_is_a_safety_error(make: Factory) -> None:
    server, client = make(ScriptedModel([Reply("", "safety"), Reply("", "safety")]))
    with pytest.raises(LLMSafetyBlockError, match="every sample"):
        run(client, server, GenerationRequest(prompt="p", n=2))


@BOTH
def test_some_candidates_blocked_keeps_the_others(make: Factory) -> None:
    server, client = make(ScriptedModel(["fine", Reply("", "safety"), Reply("cut", "length")]))
    out = run(client, server, GenerationRequest(prompt="p", n=3))
    assert out.texts == ("fine", "", "cut")
    assert out.finish_reasons == ("stop", "safety", "length")


@BOTH
def test_empty_candidates(make: Factory) -> None:
    server, client = make(ScriptedModel([LLMEmptyResponseError("none")]))
    with pytest.raises(LLMEmptyResponseError, match="no c"):
        run(client, server, GenerationRequest(prompt="p"))


@BOTH
def test_bad_request_is_not_retried(make: Factory) -> None:
    server, client = make(ScriptedModel([LLMRequestError("prompt too long")]))
    with pytest.raises(LLMRequestError, match="prompt too long"):
        run(client, server, GenerationRequest(prompt="p"))
    assert len(server.seen) == 1


def test_sync_wrapper_reuses_one_loop(scripted: ScriptedModel, gemini_server: GeminiStandIn) -> None:
    client = GeminiClient("gemini-2.5-flash", api_key=API_KEY, base_url=gemini_server.url, retry=FAST)
    try:
        a = client.generate_sync(GenerationRequest(prompt="one"))
        b = client.generate_sync(GenerationRequest(prompt="two"))
    finally:
        client.close()
    assert (a.text, b.text) == ("echo: one", "echo: two")


def test_sync_wrapper_refuses_a_running_loop(scripted: ScriptedModel) -> None:
    async def go() -> None:
        scripted.generate_sync(GenerationRequest(prompt="x"))

    with pytest.raises(RuntimeError, match="running event loop"):
        asyncio.run(go())


def test_gemini_reads_retry_info_when_no_header() -> None:
    from latent_agent.llm.gemini import _retry_after

    class E:
        response = None

        def __init__(self) -> None:
            self.details = {"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                                   "retryDelay": "7s"}]}}

    assert _retry_after(E()) == 7.0
