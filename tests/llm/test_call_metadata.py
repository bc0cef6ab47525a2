"""A call's purpose and inputs: part of the request record, sent to a stand-in only when the client is told to,
never part of a cassette key; and the demo as a registered provider refusing the options that do not apply."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from latent_agent.demo.client import register as register_demo
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.errors import ConfigError, LLMRequestError
from latent_agent.llm.base import LLMClient
from latent_agent.llm.call_metadata import CALL_HEADER, decode_call, encode_call
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.replay import cache_key
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import ClientOptions, load_client, parse_spec
from latent_agent.llm.types import GenerationRequest

from .conftest import API_KEY, FAST, echo

INPUTS: dict[str, object] = {"description": 'a text "Réseau & internet"\n  a switch that is on', "history": ["a", "b"],
                             "plus": True, "turns": [{"observation": None, "action": "Go back"}]}
REQUEST = GenerationRequest(prompt="p", purpose="select", inputs=INPUTS)


def test_the_header_value_round_trips_unicode_and_newlines_as_one_ascii_line() -> None:
    value = encode_call(REQUEST)
    assert value.isascii() and "\n" not in value
    assert decode_call(value) == ("select", INPUTS)
    with pytest.raises(LLMRequestError, match=CALL_HEADER):
        decode_call("not-base64-zlib!")


def test_purpose_and_inputs_are_not_part_of_the_cassette_key_but_are_recorded() -> None:
    plain = GenerationRequest(prompt="p")
    assert cache_key("m", plain) == cache_key("m", REQUEST)
    assert GenerationRequest.from_json(REQUEST.to_json()) == REQUEST
    assert "inputs" not in REQUEST.to_json(inputs=False) and REQUEST.to_json(inputs=False)["purpose"] == "select"


Make = Callable[..., Any]


@contextmanager
def _gemini(model: ScriptedModel, **kwargs: Any) -> Iterator[tuple[LLMClient, Any]]:
    with GeminiStandIn(model, api_key=API_KEY) as server:
        client = GeminiClient("gemini-2.5-flash", api_key=API_KEY, base_url=server.url, retry=FAST, **kwargs)
        try:
            yield client, server
        finally:
            client.close()


@contextmanager
def _openai(model: ScriptedModel, **kwargs: Any) -> Iterator[tuple[LLMClient, Any]]:
    with OpenAIStandIn(model, api_key=API_KEY) as server:
        client = OpenAICompatClient("gpt-4o-mini", api_key=API_KEY, base_url=server.base_url, retry=FAST, **kwargs)
        try:
            yield client, server
        finally:
            client.close()


BOTH = pytest.mark.parametrize("make", [_gemini, _openai], ids=["gemini", "openai"])


@BOTH
def test_sdk_clients_send_purpose_and_inputs_only_when_told(make: Make) -> None:
    model = ScriptedModel(responder=echo)
    with make(model) as (client, _):
        client.generate_sync(REQUEST)
    with make(model, call_metadata=True) as (client, _):
        client.generate_sync(REQUEST)
    default, told = model.requests
    assert (default.purpose, dict(default.inputs)) == (None, {})  # a real provider never sees them
    assert (told.purpose, dict(told.inputs)) == ("select", INPUTS)


@BOTH
def test_a_stand_in_refuses_an_unreadable_call_header(make: Make) -> None:
    import json
    import urllib.error
    import urllib.request

    model = ScriptedModel(responder=echo)
    with make(model) as (_, server):
        path = "/v1beta/models/m:generateContent" if isinstance(server, GeminiStandIn) else "/v1/chat/completions"
        body = ({"contents": [{"role": "user", "parts": [{"text": "p"}]}]} if isinstance(server, GeminiStandIn)
                else {"model": "m", "messages": [{"role": "user", "content": "p"}]})
        headers = {CALL_HEADER: "%%%", "x-goog-api-key": API_KEY, "authorization": f"Bearer {API_KEY}",
                   "content-type": "application/json"}
        sent = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(sent, timeout=10)
    assert refused.value.code == 400 and CALL_HEADER in refused.value.read().decode() and not model.requests


def test_demo_is_a_registered_provider_and_refuses_the_options_that_do_not_apply() -> None:
    register_demo()
    assert parse_spec("demo") == parse_spec("demo:gemini")
    assert parse_spec("demo@0.5").extra == "0.5" and parse_spec("demo:openai").name == "openai"
    with pytest.raises(ConfigError, match="--api-key does not apply"):
        load_client("demo", ClientOptions(api_key="k"))
    with pytest.raises(ConfigError, match="--llm-base-url does not apply"):
        load_client("demo", ClientOptions(base_url="http://127.0.0.1:1"))
    with pytest.raises(ConfigError, match="latency in seconds"):
        load_client("demo@soon")
    with pytest.raises(ConfigError, match="speaks gemini or openai"):
        load_client("demo:grpc")
    client = load_client("demo")
    try:
        with pytest.raises(ConfigError, match="knows only the sim suite's goals"):
            client.check_goals(["Turn off data roaming", "Order a pizza"], what="suite 'x'")
        client.check_goals(["Turn off data roaming"])
        assert client.notice is not None and "not a language model" in client.notice
    finally:
        client.close()
