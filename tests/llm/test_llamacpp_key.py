"""The llama.cpp server the provider starts answers its own clients only (issue 29 item 6).

It listens on a loopback port, which every user and program of the machine can reach. It is started with
a key drawn for it, passed on its stdin (a process's command line is readable by all), which its clients
send; any other client (a second local user) is refused, and learns neither the model's path nor its slots.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.llm import packaged_model
from latent_agent.llm.llamacpp import process
from latent_agent.llm.llamacpp.client import LlamaCppClient
from latent_agent.llm.llamacpp.options import ServerOptions
from latent_agent.llm.secrets import redact
from latent_agent.llm.types import GenerationRequest
from tests.real_model import packaged_model_or_skip

#: A server of its own (other options than the other modules' share), small and quick to start.
OPTIONS = ServerOptions(ctx=512)


@pytest.fixture(scope="module")
def server() -> Iterator[process.LlamaCppServer]:
    started = process.acquire(packaged_model_or_skip(), OPTIONS)
    try:
        yield started
    finally:
        process.release(started)


def _status(url: str, body: object = None, key: str | None = None) -> tuple[int, bytes]:
    """What another client of the machine gets for ``url`` (with ``key`` as its bearer key, if any)."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=60) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/models", None), ("/models", None), ("/props", None), ("/slots", None),
    ("/completion", {"prompt": "Hello", "n_predict": 4}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4}),
    ("/tokenize", {"content": "Hello"}),
])
def test_a_client_without_the_key_is_refused(server: process.LlamaCppServer, path: str, body: object) -> None:
    for key in (None, "not-the-key"):
        status, answer = _status(server.url + path, body, key)
        assert status == 401, (path, key, answer[:200])
        assert str(server.model) not in answer.decode("utf-8", "replace")


def test_its_own_client_answers_and_the_key_is_nowhere_to_read(server: process.LlamaCppServer) -> None:
    assert _status(server.url + "/health")[0] == 200  # the one public endpoint says only "ok"
    assert _status(server.url + "/v1/models", key=server.api_key)[0] == 200
    client = LlamaCppClient(server.model, name=packaged_model.PACKAGED_NAME, options=OPTIONS)
    try:
        assert client.server is server  # the shared one
        answer = client.generate_sync(GenerationRequest(prompt="Say hi.", max_output_tokens=4, purpose="ping"))
        assert answer.texts and answer.usage.output_tokens > 0
    finally:
        client.close()
    cmdline = Path(f"/proc/{server.process.pid}/cmdline")
    if cmdline.exists():  # Linux: what every local user can read of the child
        assert server.api_key.encode() not in cmdline.read_bytes()
    assert server.api_key not in redact(f"Authorization: Bearer {server.api_key}")  # a registered secret
