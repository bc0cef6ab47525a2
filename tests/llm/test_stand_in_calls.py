"""A call's purpose and inputs: part of the request record, never sent by a real client nor part of a cassette key;
a stand-in reads them in-process from the client that posted the call; and the demo as a registered provider
refusing the options that do not apply."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from PIL import Image as PILImage

from latent_agent.demo.client import check_playable, stand_in_notice
from latent_agent.demo.client import register as register_demo
from latent_agent.demo.standins.board import CallBoard
from latent_agent.demo.standins.client import StandInClient
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.errors import ConfigError
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.images import Image
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.replay import cache_key
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import ClientOptions, load_client, parse_spec
from latent_agent.llm.types import GenerationRequest, Message

from .conftest import API_KEY, FAST, echo

INPUTS: dict[str, object] = {"description": 'a text "Réseau & internet"\n  a switch that is on', "history": ["a", "b"],
                             "plus": True, "turns": [{"observation": None, "action": "Go back"}]}
REQUEST = GenerationRequest(prompt="p", purpose="select", inputs=INPUTS)


def test_purpose_and_inputs_are_not_part_of_the_cassette_key_but_are_recorded() -> None:
    plain = GenerationRequest(prompt="p")
    assert cache_key("m", plain) == cache_key("m", REQUEST)
    assert GenerationRequest.from_json(REQUEST.to_json()) == REQUEST
    assert "inputs" not in REQUEST.to_json(inputs=False) and REQUEST.to_json(inputs=False)["purpose"] == "select"


def test_the_board_describes_a_received_request_while_its_call_is_in_flight() -> None:
    board = CallBoard()
    chat = GenerationRequest(messages=(Message("system", "s1"), Message("system", "s2"), Message("user", "p")),
                             purpose="select", inputs=INPUTS)
    # As the Gemini stand-in parses it: one system text, another n, no purpose.
    received = GenerationRequest(messages=(Message("system", "s1\n\ns2"), Message("user", "p")), n=3)
    assert board.described(received) == received
    with board.posted(chat), board.posted(chat):
        pass
    with board.posted(chat):
        with board.posted(chat):
            described = board.described(received)
        assert board.described(received) == described  # a retry after the other poster is done
    assert (described.purpose, dict(described.inputs), described.n) == ("select", INPUTS, 3)
    assert board.described(received) == received


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
def test_a_real_client_never_sends_purpose_or_inputs(make: Make) -> None:
    model = ScriptedModel(responder=echo)
    with make(model) as (client, server):
        client.generate_sync(REQUEST)
    (seen,) = model.requests
    assert (seen.purpose, dict(seen.inputs)) == (None, {})  # a provider never sees them
    assert "select" not in str(server.seen[-1].body) and "Réseau" not in str(server.seen[-1].body)


@pytest.mark.parametrize("protocol", ["gemini", "openai"])
def test_a_stand_in_client_hands_its_stand_in_each_call_through_the_sdk(protocol: str) -> None:
    model = ScriptedModel(responder=lambda r: f"{r.purpose}:{sorted(r.inputs)}")
    client = StandInClient(model, protocol=protocol, retry=FAST)  # type: ignore[arg-type]
    try:
        assert client.server is not None
        completion = client.generate_sync(REQUEST.with_n(2))
        assert completion.texts == (f"select:{sorted(INPUTS)}",) * 2
        assert client.server.seen and all("Réseau" not in str(s.body) for s in client.server.seen)
    finally:
        client.close()
    assert [(r.purpose, dict(r.inputs)) for r in model.requests] == [("select", INPUTS)] * len(model.requests)


@pytest.mark.parametrize("protocol", ["gemini", "openai"])
def test_calls_in_flight_with_the_same_text_are_told_apart_by_their_images(protocol: str) -> None:
    def shot(colour: tuple[int, int, int]) -> Image:
        out = io.BytesIO()
        PILImage.new("RGB", (8, 8), colour).save(out, format="PNG")
        return Image(out.getvalue(), "image/png")

    def request(name: str, colour: tuple[int, int, int]) -> GenerationRequest:
        return GenerationRequest(messages=(Message("user", "Name the icons.", (shot(colour),)),),
                                 purpose="name_icons", inputs={"screen": name})

    async def both(client: LLMClient) -> list[str]:
        answers = await asyncio.gather(client.generate(request("red", (200, 0, 0))),
                                       client.generate(request("blue", (0, 0, 200))))
        return [a.text for a in answers]

    model = ScriptedModel(responder=lambda r: str(r.inputs["screen"]))
    client = StandInClient(model, protocol=protocol, retry=FAST)  # type: ignore[arg-type]
    try:
        assert client.run_sync(both(client)) == ["red", "blue"]
    finally:
        client.close()


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
            check_playable(client, ["Turn off data roaming", "Order a pizza"], what="suite 'x'")
        check_playable(client, ["Turn off data roaming"])
        notice = stand_in_notice(client)
        assert notice is not None and "not a language model" in notice
    finally:
        client.close()
    model = ScriptedModel()  # a model takes any goal and prints no notice
    check_playable(model, ["Order a pizza"])
    assert stand_in_notice(model) is None
