"""Every registered answer shape on the real llama.cpp server (xllamacpp, the packaged model), asked by raw HTTP: the
server takes each grammar and schema, the answers match them, and it refuses what the stand-in refuses, in the same
words (tests/llm/test_structured_providers.py holds the stand-in to them).

Skipped, with the reason, where xllamacpp or the model's slices are not installed. One server for the module; each
answer is a few tokens, so the module costs a model load and some seconds.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

import latent_agent.agent.methods  # noqa: F401 - registers the built-in methods' shapes
from latent_agent.agent.latent_state.shapes import COT_SC_SHAPE, REACT_SHAPE
from latent_agent.demo.standins.shapes import gbnf_error
from latent_agent.llm.llamacpp import process
from latent_agent.llm.llamacpp.options import ServerOptions
from latent_agent.shapes import AnswerShape, shape_for, shaped_purposes
from latent_agent.surfaces import PHONE, WEB_PAGE
from tests.real_model import packaged_model_or_skip

OPTIONS = ServerOptions(ctx=1024)
#: Every shape a call may send: the registered ones on both surfaces, and the selectors' own.
SHAPES: dict[str, AnswerShape] = {
    **{f"{p}/{s.kind}": shape for p in shaped_purposes() for s in (PHONE, WEB_PAGE)
       if (shape := shape_for(p, s)) is not None},
    "select/cot-sc": COT_SC_SHAPE, "select/react": REACT_SHAPE,
}


@pytest.fixture(scope="module")
def server() -> Iterator[process.LlamaCppServer]:
    running = process.acquire(packaged_model_or_skip(), OPTIONS)
    try:
        yield running
    finally:
        process.release(running)


def chat(server: process.LlamaCppServer, fields: dict[str, Any], *, tokens: int = 24) -> tuple[int, Any]:
    body = {"messages": [{"role": "user", "content": "Turn on Wi-Fi on the phone. What next?"}], "max_tokens": tokens,
            "temperature": 0, **fields}
    request = urllib.request.Request(f"{server.url}/v1/chat/completions", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {server.api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=300) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_server_takes_every_shape_and_its_answer_keeps_to_it(server: process.LlamaCppServer, name: str) -> None:
    shape = SHAPES[name]
    fields = {"json_schema": shape.schema} if shape.kind == "json" else {"grammar": shape.grammar}
    status, body = chat(server, fields, tokens=64)
    assert status == 200, body
    choice = body["choices"][0]
    text = choice["message"]["content"]
    if choice["finish_reason"] == "stop":  # finished within the tokens asked: the whole answer keeps to the shape
        kept = isinstance(json.loads(text), dict) if shape.kind == "json" else re.fullmatch(shape.expression, text)
        assert kept, text
    else:  # cut at the tokens asked: a beginning (the episode test holds whole answers to their parsers)
        assert choice["finish_reason"] == "length" and text


@pytest.mark.parametrize("grammar", [
    'root ::= ("Yes" | ',
    "root ::= undefined",
    'root ::= ("x" [^\\n]{0,300}) ("\\n" ("x" [^\\n]{0,300})){0,9}',
], ids=["cut-short", "undefined-rule", "too-many-repeated-rules"])
def test_the_server_refuses_what_the_stand_in_refuses_in_its_words(server: process.LlamaCppServer,
                                                                    grammar: str) -> None:
    assert gbnf_error(grammar) is not None
    assert chat(server, {"grammar": grammar}, tokens=1) == (400, {"error": {
        "code": 400, "message": "Failed to initialize samplers: failed to parse grammar",
        "type": "invalid_request_error"}})


def test_the_server_refuses_a_bad_schema_and_both_fields_as_the_stand_in_does(server: process.LlamaCppServer) -> None:
    status, body = chat(server, {"json_schema": {"type": "objectx"}}, tokens=1)
    assert status == 400 and "JSON schema error at #: unrecognized type objectx" in body["error"]["message"]
    assert chat(server, {"grammar": 'root ::= "x"', "json_schema": {"type": "string"}}, tokens=1) == (500, {"error": {
        "code": 500, "message": "Cannot use both json_schema and grammar", "type": "server_error"}})
