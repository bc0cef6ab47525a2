"""Local OpenAI-compatible servers through the real openai SDK: llama.cpp's refusal of ``n``, discovery of the
window, ``n`` and images (llama.cpp, Ollama, vLLM, LM Studio), prompts refused before sending, slow servers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import Fault, FaultPlan, StandInServer
from latent_agent.errors import LLMContextWindowError, LLMRequestError, LLMTimeoutError
from latent_agent.exit_codes import ExitCode
from latent_agent.llm.context_window import estimate_tokens
from latent_agent.llm.discovery import ServerProfile
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import Completion, GenerationRequest, Message

from .client_contract import CONTRACT_IMAGES
from .conftest import API_KEY, FAST, SLOW_S, echo
from .local_standins import TEMPLATE_TOKENS_PER_MESSAGE, DescribedStandIn, LlamaCppStandIn


def chat_requests(server: StandInServer) -> list[Any]:
    return [s.body for s in server.seen if s.path == "/v1/chat/completions"]


def ask(client: OpenAICompatClient, server: StandInServer, *requests: GenerationRequest) -> list[Completion]:
    async def go() -> list[Completion]:
        try:
            return [await client.generate(r) for r in requests]
        finally:
            await client.aclose()

    try:
        return asyncio.run(go())
    finally:
        server.stop()


def client_for(server: StandInServer, *, retry: RetryPolicy = FAST, **kwargs: Any) -> OpenAICompatClient:
    return OpenAICompatClient("qwen", api_key=API_KEY, base_url=f"{server.url}/v1", retry=retry, **kwargs)


# -- n ------------------------------------------------------------------------------------------


def test_llamacpp_refusing_n_without_param_falls_back_to_one_call_per_sample() -> None:
    """The recorded CoT-SC failure: n=8 answered 400 "Field 'n': ..." with no param ended the run (exit 3)."""
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    client = client_for(server, discover_server=False)  # as before discovery: the refusal itself must be understood
    first, second, one = ask(client, server, GenerationRequest(prompt="select", n=8, temperature=1.0),
                             GenerationRequest(prompt="select", n=3, temperature=1.0),
                             GenerationRequest(prompt="select"))
    assert first.texts == ("echo: select",) * 8 and len(second.texts) == 3
    sent = [body.get("n", 1) for body in chat_requests(server)]
    assert sent == [8] + [1] * 8 + [1] * 3 + [1]  # one refusal, then single requests from then on
    assert client.max_native_n == 1
    # Every sample is a request of its own, so its output tokens are counted once each.
    assert first.provider_calls == 8 and first.usage.output_tokens == 8 * one.usage.output_tokens > 0


def test_a_discovered_llamacpp_server_never_gets_n() -> None:
    """llama.cpp with parallel slots answers n but reports one sample's output tokens for all: never send it n."""
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    client = client_for(server)
    (out,) = ask(client, server, GenerationRequest(prompt="select", n=4, temperature=1.0))
    assert len(out.texts) == 4 and out.provider_calls == 4
    assert [body.get("n", 1) for body in chat_requests(server)] == [1, 1, 1, 1]
    assert client.server_profile == ServerProfile("llama.cpp", 4096, "GET /props default_generation_settings.n_ctx",
                                                  False, False, "server", "json_schema", "grammar")


# -- the context window ----------------------------------------------------------------------


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def test_a_prompt_longer_than_the_window_is_refused_before_sending() -> None:
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY, n_ctx=64).start()
    client = client_for(server)
    with pytest.raises(LLMContextWindowError) as raised:
        ask(client, server, GenerationRequest(prompt=words(100), purpose="select"))
    error = raised.value
    # Template markers: "<user>" before and "<assistant>" after the text.
    assert (error.purpose, error.prompt_tokens, error.output_tokens, error.window) == ("select", 102, 0, 64)
    message = str(error)
    assert "select call" in message and "102 prompt tokens (counted by the server)" in message
    assert "context window of 64 tokens" in message and "--llm-ctx" in message
    assert chat_requests(server) == []  # nothing was sent
    assert isinstance(error, LLMRequestError) and error.exit_code is ExitCode.INFRASTRUCTURE


def test_the_output_cap_must_fit_the_window_too() -> None:
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY, n_ctx=64).start()
    client = client_for(server)
    fits = GenerationRequest(prompt=words(40), purpose="summary", max_output_tokens=20)  # 42 + 20 <= 64
    too_much = GenerationRequest(prompt=words(40), purpose="plan", max_output_tokens=30)  # 42 + 30 > 64
    with pytest.raises(LLMContextWindowError, match=r"plan call needs 42 prompt tokens .* \+ 30 output cap = 72"):
        ask(client, server, fits, too_much)
    assert len(chat_requests(server)) == 1
    assert TEMPLATE_TOKENS_PER_MESSAGE == 2


def test_without_a_server_tokenizer_the_o200k_estimate_is_used() -> None:
    server = DescribedStandIn(ScriptedModel(responder=echo), api_key=API_KEY,
                              describe={"/v1/models": {"object": "list", "data": [{"id": "qwen", "max_model_len": 50}]}}
                              ).start()
    client = client_for(server)
    request = GenerationRequest(prompt=words(60), purpose="select")
    with pytest.raises(LLMContextWindowError, match=r"o200k estimate.*window of 50 tokens \(vllm") as raised:
        ask(client, server, request)
    assert raised.value.prompt_tokens == estimate_tokens(request) > 50


def test_images_to_a_server_that_takes_none_are_refused_before_sending() -> None:
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY, vision=False).start()
    client = client_for(server)
    request = GenerationRequest(messages=(Message("user", "what is this?", (CONTRACT_IMAGES[0],)),), purpose="look")
    with pytest.raises(LLMRequestError, match=r"says the model takes no images .* look call carries 1"):
        ask(client, server, request)
    assert chat_requests(server) == []


# -- discovery of other servers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("describe", "expected"),
    [
        ({"/api/show": {"parameters": "temperature 0.7\nnum_ctx 2048", "capabilities": ["completion"],
                        "model_info": {"qwen2.context_length": 32768}}},
         ServerProfile("ollama", 2048, "POST /api/show parameters num_ctx", False, False,
                       json_field="response_format")),
        ({"/api/show": {"capabilities": ["completion", "vision"], "model_info": {"qwen2.context_length": 32768}},
          "/api/ps": {"models": [{"name": "qwen", "context_length": 4096}]}},
         ServerProfile("ollama", 4096, "GET /api/ps context_length", False, True, json_field="response_format")),
        ({"/v1/models": {"object": "list", "data": [{"id": "other", "max_model_len": 1},
                                                    {"id": "qwen", "max_model_len": 16384}]}},
         ServerProfile("vllm", 16384, "GET /v1/models data[].max_model_len", True, None,
                       json_field="response_format", pattern_field="structured_outputs")),
        ({"/api/v0/models/qwen": {"id": "qwen", "type": "llm", "max_context_length": 32768,
                                  "loaded_context_length": 8192}},
         ServerProfile("lmstudio", 8192, "GET /api/v0/models/{model} loaded_context_length", None, False,
                       json_field="response_format")),
        ({}, ServerProfile()),
    ],
    ids=["ollama-num_ctx", "ollama-ps", "vllm", "lmstudio", "plain-openai"],
)
def test_discovery_reads_what_each_server_says(describe: dict[str, Any], expected: ServerProfile) -> None:
    server = DescribedStandIn(ScriptedModel(responder=echo), api_key=API_KEY, describe=describe).start()
    client = client_for(server)
    (out,) = ask(client, server, GenerationRequest(prompt="hi", n=2, temperature=1.0))
    assert len(out.texts) == 2
    assert client.server_profile == expected
    # A server known to ignore n (Ollama) gets one request per sample; the others get n, as before discovery.
    sent = [body.get("n", 1) for body in chat_requests(server)]
    assert sent == ([1, 1] if expected.native_n is False else [2])
    assert ServerProfile.from_json(expected.to_json()) == expected
    # Asked once per client, however many calls follow.
    assert sum(1 for s in server.seen if s.path == "/props") == 1


def test_discovery_is_asked_once_for_calls_in_flight_together() -> None:
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    client = client_for(server)

    async def go() -> list[Completion]:
        try:
            return list(await asyncio.gather(*(client.generate(GenerationRequest(prompt=f"c{i}")) for i in range(6))))
        finally:
            await client.aclose()

    try:
        assert len(asyncio.run(go())) == 6
    finally:
        server.stop()
    assert sum(1 for s in server.seen if s.path == "/props") == 1


def test_api_openai_com_is_not_probed() -> None:
    # The key is registered as a secret (redacted everywhere after), so it is the tests' distinctive one.
    assert not OpenAICompatClient("gpt-4o-mini", api_key=API_KEY).discover_server
    assert not OpenAICompatClient("gpt-4o-mini", api_key=API_KEY, base_url="https://api.openai.com/v1").discover_server
    assert OpenAICompatClient("qwen", api_key=None, base_url="http://127.0.0.1:8080/v1").discover_server


# -- a slow server --------------------------------------------------------------------------------


def test_a_slow_server_gets_the_request_twice_and_the_error_names_the_flag() -> None:
    """The recorded runaways: four attempts of 60 s each. Now: one resend, then a message naming --llm-timeout."""
    faults = FaultPlan([Fault.SLOW] * 4)
    server = OpenAIStandIn(ScriptedModel(responder=echo), api_key=API_KEY, faults=faults, slow_s=SLOW_S).start()
    retry = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.01, timeout_s=0.5)
    client = client_for(server, retry=retry, discover_server=False)
    with pytest.raises(LLMTimeoutError, match=r"gave up after 2 attempts \(2 timed out\).*--llm-timeout 0.5 s"):
        ask(client, server, GenerationRequest(prompt="plan", purpose="plan"))
    assert len(chat_requests(server)) == 2
