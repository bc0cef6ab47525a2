"""Every provider passes the LLM-client contract: Gemini and OpenAI through their SDKs and local stand-ins,
replay, scripted, and the demo (through both stand-ins, built by the one provider registry)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from latent_agent.demo.client import register as register_demo
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.replay import Cassette, ReplayClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import ClientOptions, load_client
from latent_agent.llm.types import GenerationRequest
from tests.llm.client_contract import REFUSED_REQUEST, LLMClientContract, contract_responder

KEY = "contract-local-key"


class TestGemini(LLMClientContract):
    @contextmanager
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
        model = ScriptedModel(responder=contract_responder, model="gemini-2.5-flash")
        with GeminiStandIn(model, api_key=KEY) as server:
            client = GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=server.url, **client_kwargs)
            try:
                yield client
            finally:
                client.close()

    def unanswerable(self) -> GenerationRequest:
        return REFUSED_REQUEST


class TestOpenAI(LLMClientContract):
    @contextmanager
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
        model = ScriptedModel(responder=contract_responder)
        with OpenAIStandIn(model, api_key=KEY) as server:
            client = OpenAICompatClient("gpt-4o-mini", api_key=KEY, base_url=server.base_url, **client_kwargs)
            try:
                yield client
            finally:
                client.close()

    def unanswerable(self) -> GenerationRequest:
        return REFUSED_REQUEST


class TestScripted(LLMClientContract):
    @contextmanager
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
        client = ScriptedModel(responder=contract_responder, **client_kwargs)
        try:
            yield client
        finally:
            client.close()

    def unanswerable(self) -> GenerationRequest:
        return REFUSED_REQUEST


class TestReplay(LLMClientContract):
    records = False

    @contextmanager
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
        cassette = Cassette(tmp_path / "recorded.jsonl")
        recorder = ScriptedModel(responder=contract_responder, recorder=cassette)
        for _ in range(4):  # the k-th time a request comes up it gets the k-th recorded answer
            recorder.generate_sync(self.request())
        recorder.generate_sync(self.multimodal())
        recorder.close()
        client = ReplayClient(cassette, **client_kwargs)
        try:
            yield client
        finally:
            client.close()

    def unanswerable(self) -> GenerationRequest:
        return GenerationRequest(prompt="never recorded", purpose="ping")


class TestDemo(LLMClientContract):
    protocol = "gemini"
    echoes = False  # the demo answers a ping with "pong"; the images still travel through its stand-in

    @contextmanager
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
        register_demo()
        client = load_client(f"demo:{self.protocol}", ClientOptions(**client_kwargs))
        try:
            yield client
        finally:
            client.close()

    def unanswerable(self) -> GenerationRequest:
        return GenerationRequest(prompt="Write a poem.", purpose="poem")


class TestDemoThroughOpenAI(TestDemo):
    protocol = "openai"
