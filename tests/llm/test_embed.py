"""Embedders: the contract for each registered one, the registry, the tokenizer, the Gemini protocol."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.server import Fault
from latent_agent.errors import ConfigError, LLMAuthError, LLMError
from latent_agent.llm.embed.base import Embedder, EmbedderInfo
from latent_agent.llm.embed.gemini import GeminiEmbedder
from latent_agent.llm.embed.hashing import HashingEmbedder
from latent_agent.llm.embed.minilm import VOCAB, MiniLMEmbedder
from latent_agent.llm.embed.registry import (
    EMBEDDERS,
    EmbedderEntry,
    EmbedderOptions,
    load_embedder,
    parse_embedder_spec,
    register_embedder,
)
from latent_agent.llm.embed.wordpiece import WordPiece
from latent_agent.llm.scripted import ScriptedModel

from .conftest import API_KEY, FAST, echo
from .embed_contract import EmbedderContract

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def standin() -> Iterator[GeminiStandIn]:
    with GeminiStandIn(ScriptedModel(responder=echo, model="m"), api_key=API_KEY) as server:
        yield server


class TestHashingContract(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> Embedder:
        return HashingEmbedder("64")


class TestMiniLMContract(EmbedderContract):
    @pytest.fixture
    def embedder(self, minilm: MiniLMEmbedder) -> Embedder:
        return minilm


class TestGeminiContract(EmbedderContract):
    @pytest.fixture
    def embedder(self, standin: GeminiStandIn) -> Embedder:
        return GeminiEmbedder(api_key=API_KEY, base_url=standin.url, dimension=96, retry=FAST)


# ---------------------------------------------------------------- the tokenizer and MiniLM


def test_wordpiece_ids_match_the_reference_tokenizer() -> None:
    tokenizer = WordPiece.from_file(VOCAB)
    pairs = json.loads((DATA / "wordpiece_reference_ids.json").read_text(encoding="utf-8"))
    assert len(pairs) >= 10
    for text, ids in pairs:
        assert tokenizer.encode(text, max_length=256) == ids, text


def test_wordpiece_truncates_long_texts_keeping_the_end_marker() -> None:
    tokenizer = WordPiece.from_file(VOCAB)
    ids = tokenizer.encode("settings " * 400, max_length=16)
    assert len(ids) == 16
    assert ids[0] == tokenizer.cls_id and ids[-1] == tokenizer.sep_id


def test_minilm_ranks_paraphrases_above_other_tasks(minilm: MiniLMEmbedder) -> None:
    goal, paraphrase, other = minilm.embed(
        ["Set an alarm for 7 am", "Wake me up at seven in the morning", "Delete the contact named Bob"])
    assert float(goal @ paraphrase) > float(goal @ other) + 0.2


def test_minilm_knows_one_model() -> None:
    with pytest.raises(ConfigError, match="unknown model; the minilm embedder has only all-MiniLM-L6-v2-int8"):
        MiniLMEmbedder("bge-small")


# ---------------------------------------------------------------- the registry


def test_specs_name_an_embedder_and_a_model() -> None:
    assert parse_embedder_spec("minilm") == ("minilm", "all-MiniLM-L6-v2-int8")
    assert parse_embedder_spec("gemini:text-embedding-004") == ("gemini", "text-embedding-004")
    with pytest.raises(ConfigError, match=r"unknown embedder 'bert'; expected one of \['gemini', 'hash', 'minilm'"):
        parse_embedder_spec("bert")
    with pytest.raises(ConfigError, match="nothing after ':'"):
        parse_embedder_spec("gemini:")


def test_load_embedder_builds_the_registered_entry_and_rebuilds_from_info() -> None:
    embedder = load_embedder("hash:32")
    assert embedder.info == EmbedderInfo("hash", "32", 32)
    assert load_embedder(embedder.info).info == embedder.info


def test_register_embedder_refuses_a_taken_name() -> None:
    with pytest.raises(ConfigError, match="registered already"):
        register_embedder("minilm", EmbedderEntry(EMBEDDERS["hash"].build, "1", "another"))
    register_embedder("minilm", EMBEDDERS["minilm"])  # the same entry again is harmless


def test_gemini_without_a_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(LLMAuthError, match="no API key; set GEMINI_API_KEY"):
        load_embedder("gemini")


def test_gemini_key_from_the_environment(monkeypatch: pytest.MonkeyPatch, standin: GeminiStandIn) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    embedder = load_embedder("gemini:gemini-embedding-001", EmbedderOptions(base_url=standin.url))
    assert embedder.embed(["open the clock"]).shape == (1, 768)


# ---------------------------------------------------------------- the Gemini protocol


def test_gemini_sends_the_sdk_batch_request(standin: GeminiStandIn) -> None:
    before = len(standin.seen)
    GeminiEmbedder(api_key=API_KEY, base_url=standin.url, dimension=32, retry=FAST).embed(["a b", "c d"])
    (seen,) = standin.seen[before:]
    assert seen.path.endswith("/models/gemini-embedding-001:batchEmbedContents")
    requests = seen.body["requests"]
    assert [r["content"]["parts"][0]["text"] for r in requests] == ["a b", "c d"]
    assert {r["taskType"] for r in requests} == {"SEMANTIC_SIMILARITY"}
    assert {r["outputDimensionality"] for r in requests} == {32}


def test_gemini_splits_more_than_a_hundred_texts(standin: GeminiStandIn) -> None:
    before = len(standin.seen)
    texts = [f"goal number {i}" for i in range(230)]
    vectors = GeminiEmbedder(api_key=API_KEY, base_url=standin.url, dimension=16, retry=FAST).embed(texts)
    assert vectors.shape == (230, 16)
    assert [len(s.body["requests"]) for s in standin.seen[before:]] == [100, 100, 30]
    assert np.allclose(vectors[229], HashingEmbedder("16").embed(["goal number 229"])[0], atol=1e-6)


def test_gemini_retries_a_server_error(standin: GeminiStandIn) -> None:
    standin.faults.add(Fault.SERVER_ERROR, Fault.RATE_LIMIT)
    vectors = GeminiEmbedder(api_key=API_KEY, base_url=standin.url, dimension=8, retry=FAST).embed(["x"])
    assert vectors.shape == (1, 8)


def test_gemini_wrong_key_is_an_auth_error_that_never_shows_the_key(
        standin: GeminiStandIn, caplog: pytest.LogCaptureFixture) -> None:
    wrong = "sk-wrong-embedding-key-5e1d0c"
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LLMAuthError, match="API key not valid") as info:
        GeminiEmbedder(api_key=wrong, base_url=standin.url, retry=FAST).embed(["x"])
    assert wrong not in str(info.value)
    assert wrong not in caplog.text


def test_gemini_unreachable_endpoint_is_an_llm_error() -> None:
    retry = FAST.__class__(max_attempts=2, base_delay_s=0.001, max_delay_s=0.01, timeout_s=2.0)
    with pytest.raises(LLMError, match="cannot connect"):
        GeminiEmbedder(api_key=API_KEY, base_url="http://127.0.0.1:9", retry=retry).embed(["x"])


def test_gemini_blocking_embed_works_inside_a_running_loop(standin: GeminiStandIn) -> None:
    import asyncio

    embedder = GeminiEmbedder(api_key=API_KEY, base_url=standin.url, dimension=16, retry=FAST)

    async def inside() -> np.ndarray:
        return embedder.embed(["open the clock"])

    assert asyncio.run(inside()).shape == (1, 16)
