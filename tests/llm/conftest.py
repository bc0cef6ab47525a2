"""Fixtures of the LLM tests: a scripted model, stand-in servers and clients pointed at them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

#: A fake key distinctive enough that a grep for it cannot match anything else.
API_KEY = "sk-test-7f3a9c0e51d24b8e-SECRET"

#: Short backoff so failure tests stay fast (real defaults are seconds). The timeout is generous:
#: no test using FAST waits for it, and a loaded machine must not make a normal answer time out.
FAST = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.01, timeout_s=5.0)
#: How long a stand-in holds back a "slow" answer: far beyond every timeout used in the tests
#: (stopping the server releases it at once).
SLOW_S = 60.0


def echo(request: GenerationRequest) -> str:
    return "echo: " + request.chat()[-1].text


@pytest.fixture
def scripted() -> ScriptedModel:
    return ScriptedModel(responder=echo, model="standin-model")


@pytest.fixture
def gemini_server(scripted: ScriptedModel) -> Iterator[GeminiStandIn]:
    with GeminiStandIn(scripted, api_key=API_KEY, slow_s=SLOW_S) as server:
        yield server


@pytest.fixture
def openai_server(scripted: ScriptedModel) -> Iterator[OpenAIStandIn]:
    with OpenAIStandIn(scripted, api_key=API_KEY, slow_s=SLOW_S) as server:
        yield server
