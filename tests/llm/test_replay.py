"""Cassettes: record through a real SDK, replay with no network, fail clearly on a miss."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.errors import ConfigError, ReplayMissError
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.replay import Cassette, ReplayClient, cache_key
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import Completion, GenerationRequest, Message

from .conftest import API_KEY, FAST

REQUESTS = [
    GenerationRequest(prompt="open settings"),
    GenerationRequest(messages=(Message("system", "s"), Message("user", "u")), temperature=0.8, n=3),
    GenerationRequest(prompt="open settings"),  # the same request again: answered by its 2nd recording
    GenerationRequest(prompt="x", max_output_tokens=5, stop=("]",)),
]


def test_record_then_replay_is_identical_without_network(tmp_path: Path, gemini_server: GeminiStandIn,
                                                          scripted: ScriptedModel) -> None:
    cassette = tmp_path / "run" / "cassette.jsonl"
    scripted.queue("first", "a", "b", "c", "second", "last")
    client = GeminiClient("gemini-2.5-flash", api_key=API_KEY, base_url=gemini_server.url, retry=FAST,
                          recorder=Cassette(cassette))

    async def record() -> list[Completion]:
        try:
            return [await client.generate(r) for r in REQUESTS]
        finally:
            await client.aclose()

    recorded = asyncio.run(record())
    seen = len(gemini_server.seen)
    gemini_server.stop()  # from here on any network call would fail

    replay = ReplayClient(cassette)
    assert replay.model == "gemini-2.5-flash"
    replayed = [replay.generate_sync(r) for r in REQUESTS]
    for a, b in zip(recorded, replayed, strict=True):
        assert (a.texts, a.finish_reasons, a.usage, a.model) == (b.texts, b.finish_reasons, b.usage, b.model)
        assert b.cached and not a.cached
    assert replayed[0].text == "first" and replayed[2].text == "second"
    assert len(gemini_server.seen) == seen

    with pytest.raises(ReplayMissError, match="only 2 answer"):
        replay.generate_sync(REQUESTS[0])
    with pytest.raises(ReplayMissError, match="no answer for this request"):
        replay.generate_sync(GenerationRequest(prompt="never asked"))


def test_key_depends_on_model_and_every_parameter() -> None:
    base = GenerationRequest(prompt="p")
    keys = {
        cache_key("m", base),
        cache_key("m2", base),
        cache_key("m", GenerationRequest(prompt="p", temperature=0.1)),
        cache_key("m", GenerationRequest(prompt="p", n=2)),
        cache_key("m", GenerationRequest(prompt="p", max_output_tokens=3)),
        cache_key("m", GenerationRequest(prompt="p", stop=("x",))),
        cache_key("m", GenerationRequest(messages=(Message("user", "p"),))),
    }
    assert len(keys) == 7
    assert cache_key("m", base) == cache_key("m", GenerationRequest(prompt="p"))


def test_several_models_need_a_name(tmp_path: Path) -> None:
    c = Cassette(tmp_path / "c.jsonl")
    for name in ("a", "b"):
        ScriptedModel([name], model=name, recorder=c).generate_sync(GenerationRequest(prompt="p"))
    with pytest.raises(ConfigError, match="holds models"):
        ReplayClient(c)
    assert ReplayClient(c, model="b").generate_sync(GenerationRequest(prompt="p")).text == "b"


@pytest.mark.parametrize(
    ("content", "message"),
    [("", "empty"), ("not json\n", "not JSON"), ('{"schema": "x"}\n', "not a cassette header"),
     ('{"schema": "latent-agent/llm-cassette", "version": 9}\n', "version 9"),
     ('{"schema": "latent-agent/llm-cassette", "version": 1}\n{"key": 1}\n', ":2: malformed")],
)
def test_bad_cassettes_are_config_errors(tmp_path: Path, content: str, message: str) -> None:
    f = tmp_path / "c.jsonl"
    f.write_text(content)
    with pytest.raises(ConfigError, match=message):
        ReplayClient(f)


def test_missing_cassette(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.jsonl"):
        ReplayClient(tmp_path / "nope.jsonl")


def test_cassette_lines_are_json_with_a_header(tmp_path: Path) -> None:
    c = Cassette(tmp_path / "c.jsonl")
    ScriptedModel(["x"], recorder=c).generate_sync(GenerationRequest(prompt="p"))
    lines = [json.loads(line) for line in c.path.read_text().splitlines()]
    assert lines[0] == {"schema": "latent-agent/llm-cassette", "version": 1}
    assert set(lines[1]) == {"key", "model", "request", "completion"}


def test_cassettes_of_one_file_share_their_lock(tmp_path: Path) -> None:
    """A sweep's workers each open a client with its own Cassette of the same file: one header, every call kept."""
    import threading

    from latent_agent.llm.types import Usage

    path = tmp_path / "shared.jsonl"
    cassettes = [Cassette(path) for _ in range(8)]
    answer = Completion(("ok",), ("stop",), Usage(1, 1, 2), 0.0, "m")
    start = threading.Barrier(len(cassettes))

    def record(index: int) -> None:
        start.wait()
        for k in range(25):
            cassettes[index].append("m", GenerationRequest(prompt=f"{index}-{k}"), answer)

    threads = [threading.Thread(target=record, args=(i,)) for i in range(len(cassettes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_text().splitlines()
    assert sum('"schema"' in line for line in lines) == 1 and lines[0].startswith('{"schema"')
    assert len(Cassette(path).entries()) == 8 * 25
