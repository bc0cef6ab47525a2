"""The ``llamacpp`` provider on the real packaged model (Qwen2.5-Coder-0.5B-Instruct through xllamacpp).

Skipped, with the reason, where xllamacpp or the model's slices are not installed (``./scripts/check``
installs both through the ``test`` extra). One server serves the whole module (clients of the same model and
options share it), so the module costs one model load plus a few short answers; the lifecycle test starts
its own server with other options and checks that closing the client ends the server's process.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from latent_agent.errors import ConfigError, LLMContextWindowError, LLMRequestError
from latent_agent.llm import packaged_model
from latent_agent.llm.base import LLMClient
from latent_agent.llm.llamacpp import process
from latent_agent.llm.llamacpp.client import LlamaCppClient
from latent_agent.llm.llamacpp.options import ServerOptions
from latent_agent.llm.types import GenerationRequest
from tests.llm.client_contract import RETRY, LLMClientContract
from tests.real_model import packaged_model_or_skip

#: Small enough to start fast and to make an oversized prompt cheap to build.
OPTIONS = ServerOptions(ctx=1024)




@pytest.fixture(scope="module")
def model() -> Iterator[Path]:
    path = packaged_model_or_skip()
    # Held for the module, so the contract's clients (each closed after its test) share one server.
    server = process.acquire(path, OPTIONS)
    try:
        yield path
    finally:
        process.release(server)


class TestLlamaCppContract(LLMClientContract):
    echoes = False  # a real model answers in its own words

    @pytest.fixture(autouse=True)
    def _model(self, model: Path) -> None:
        self.model_path = model

    @contextmanager
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
        client = LlamaCppClient(self.model_path, name=packaged_model.PACKAGED_NAME, options=OPTIONS, **client_kwargs)
        try:
            yield client
        finally:
            client.close()

    def request(self) -> GenerationRequest:
        prompt = "Reply with the single word: pong"
        return GenerationRequest(prompt=prompt, n=2, temperature=0.5, max_output_tokens=8, purpose="ping",
                                 inputs={"prompt": prompt})

    def unanswerable(self) -> GenerationRequest:
        # Longer than the 1,024-token window: refused before it is sent.
        return GenerationRequest(prompt="tap " * 1500, purpose="select")

    def test_carries_turns_and_images_intact(self, tmp_path: Path) -> None:
        # This model takes no images, and the server says so (/props modalities): refused before sending.
        with self.open_client(tmp_path, retry=RETRY) as client, \
                pytest.raises(LLMRequestError, match=r"says the model takes no images \(llama.cpp\)"):
            client.generate_sync(self.multimodal())


def test_a_capped_answer_reports_length_and_the_window_is_discovered(model: Path) -> None:
    client = LlamaCppClient(model, name=packaged_model.PACKAGED_NAME, options=OPTIONS, retry=RETRY)
    try:
        capped = client.generate_sync(GenerationRequest(prompt="Count from 1 to 100, one number per line.",
                                                        max_output_tokens=4, purpose="ping"))
        assert capped.finish_reasons == ("length",) and capped.usage.output_tokens == 4
        profile = client.server_profile
        assert profile is not None and (profile.server, profile.context_window, profile.images) == (
            "llama.cpp", 1024, False)
        with pytest.raises(LLMContextWindowError, match=r"select call needs \d+ prompt tokens \(counted by the server"):
            client.generate_sync(GenerationRequest(prompt="tap " * 1500, purpose="select"))
    finally:
        client.close()


def test_closing_the_client_ends_the_server_process(model: Path) -> None:
    options = ServerOptions(ctx=512, threads=1)  # not the module's server: this one is the client's alone
    client = LlamaCppClient(model, options=options, retry=RETRY)
    server = client.server
    assert server is not None and server.running
    try:
        assert client.generate_sync(GenerationRequest(prompt="Say hi.", max_output_tokens=2)).texts[0]
    finally:
        client.close()
    assert not server.running and server.process.returncode is not None
    assert client.server is None


def test_a_file_that_is_not_a_model_is_one_line_with_llamacpps_reason(tmp_path: Path) -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (pip install 'latent-agent[local]')")
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("not a model\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        LlamaCppClient(bogus, options=ServerOptions(ctx=512, threads=1))
    message = str(raised.value)
    assert "llama.cpp could not serve" in message and "expected 'GGUF'" in message and "\n" not in message
