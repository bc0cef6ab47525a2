"""No API key in any file a run writes, nor in its logs."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import Fault
from latent_agent.errors import LLMError
from latent_agent.llm.accounting import Accountant
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.replay import Cassette
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.secrets import MASK, RedactingFilter, redact, register_secret
from latent_agent.llm.types import GenerationRequest

from .conftest import API_KEY, SLOW_S, echo


def test_redact_masks_registered_secrets_and_auth_headers() -> None:
    register_secret("abc-secret-value-42")
    assert redact("key=abc-secret-value-42!") == f"key={MASK}!"
    assert "hunter2-unregistered" not in redact('{"Authorization": "Bearer hunter2-unregistered"}')
    assert "zzz-header-key" not in redact("x-goog-api-key: zzz-header-key")
    assert redact("nothing to hide") == "nothing to hide"


def test_filter_cleans_log_records(caplog: pytest.LogCaptureFixture) -> None:
    register_secret("filter-secret-777")
    log = logging.getLogger("some.sdk")
    handler = logging.StreamHandler()
    handler.addFilter(RedactingFilter())
    record = log.makeRecord("some.sdk", logging.INFO, "f", 1, "sent %s", ("filter-secret-777",), None)
    handler.filter(record)
    assert "filter-secret-777" not in record.getMessage()


def test_no_key_in_cassettes_call_logs_or_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDKs' and httpx's included
    model = ScriptedModel(responder=lambda r: f"{echo(r)} (the key is {API_KEY})")
    cassette = Cassette(tmp_path / "cassette.jsonl")
    accountant = Accountant(log_path=tmp_path / "calls.jsonl")
    retry = RetryPolicy(max_attempts=2, base_delay_s=0.001, timeout_s=1.0)
    common = {"retry": retry, "recorder": cassette, "accountant": accountant}
    g = GeminiStandIn(model, api_key=API_KEY, slow_s=SLOW_S).start()
    o = OpenAIStandIn(model, api_key=API_KEY, slow_s=SLOW_S).start()
    clients: list[tuple[LLMClient, GeminiStandIn | OpenAIStandIn]] = [
        (GeminiClient("gemini-2.5-flash", api_key=API_KEY, base_url=g.url, **common), g),
        (OpenAICompatClient("gpt-4o", api_key=API_KEY, base_url=f"{o.url}/v1", **common), o),
        (GeminiClient("gemini-2.5-flash", api_key=API_KEY + "-wrong", base_url=g.url, **common), g),
        (OpenAICompatClient("gpt-4o", api_key=API_KEY + "-wrong", base_url=f"{o.url}/v1", **common), o),
    ]

    async def go() -> list[str]:
        errors: list[str] = []
        for client, server in clients:
            server.faults.add(Fault.RATE_LIMIT, Fault.SLOW, Fault.RESET, Fault.SERVER_ERROR, Fault.MALFORMED)
            for i in range(6):
                try:
                    await client.generate(GenerationRequest(prompt=f"{API_KEY} prompt {i}"))
                except LLMError as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
            await client.aclose()
        return errors

    try:
        errors = asyncio.run(go())
    finally:
        g.stop()
        o.stop()
    assert errors, "the failure paths must have run"
    assert any("LLMAuthError" in e for e in errors)
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 2 and all(MASK in w for w in written)
    for text in [*written, caplog.text, *errors]:
        assert API_KEY not in text
