"""Each provider sends an answer's shape in its API's own field (issue 31 item 2), checked against the protocol
stand-ins through the real SDKs (openai, google-genai), and the stand-ins refuse malformed fields as the real APIs
do, in their error shapes (raw HTTP): OpenAI's ``response_format``; llama.cpp's ``json_schema`` and ``grammar``;
vLLM's ``structured_outputs`` (``guided_regex`` before 0.10.2); Ollama's and LM Studio's ``response_format``;
Gemini's ``responseSchema`` with ``responseMimeType``. A server discovery does not know, or an API without a field
for the shape, is sent none, and the answer says why; a refused field is dropped, the call asked again, recorded."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

import latent_agent.agent.methods  # noqa: F401 - registers the built-in methods' shapes
from latent_agent.agent.reflection.purposes import PLAN
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import StandInServer
from latent_agent.grounder.shapes import ground_shape
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import Completion, GenerationRequest
from latent_agent.shapes import AnswerShape, lit, shape_for
from latent_agent.surfaces import PHONE

from .conftest import API_KEY, FAST, echo
from .local_standins import DescribedStandIn, LlamaCppStandIn

JSON = ground_shape(PHONE)
TEXT = shape_for(PLAN, PHONE)
#: A schema OpenAI's strict mode takes: an object, closed, every property required.
STRICT = AnswerShape.json("a strict answer", {"type": "object", "properties": {"answer": {"type": "string"}},
                                              "required": ["answer"], "additionalProperties": False})
#: Shapes a server refuses: a type no schema has, a grammar cut short, a required property not defined.
BAD_JSON = AnswerShape.json("a broken schema", {"type": "objectx"})
BAD_GRAMMAR = AnswerShape("a broken grammar", "text", grammar='root ::= ("Yes" | ', expression="Yes|No")
UNDEFINED = AnswerShape.json("an undefined property", {"type": "object", "properties": {"a": {"type": "string"}},
                                                       "required": ["b"]})


def ask(client: LLMClient, server: StandInServer, *shapes: AnswerShape | None) -> list[Completion]:
    async def go() -> list[Completion]:
        try:
            return [await client.generate(GenerationRequest(prompt="answer", shape=s)) for s in shapes]
        finally:
            await client.aclose()

    try:
        return asyncio.run(go())
    finally:
        server.stop()


def chat_bodies(server: StandInServer) -> list[dict[str, Any]]:
    return [s.body for s in server.seen if s.path.endswith(("/chat/completions", ":generateContent"))]


def openai_client(server: StandInServer, **kwargs: Any) -> OpenAICompatClient:
    return OpenAICompatClient("qwen", api_key=API_KEY, base_url=f"{server.url}/v1", retry=FAST, **kwargs)


def post(server: StandInServer, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    request = urllib.request.Request(f"{server.url}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer {API_KEY}"}


CHAT = {"model": "qwen", "messages": [{"role": "user", "content": "hi"}]}


# -- OpenAI ---------------------------------------------------------------------------------------------


def test_openai_takes_a_json_shape_as_response_format_and_no_pattern() -> None:
    assert TEXT is not None
    server = OpenAIStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    json_out, strict_out, text_out = ask(openai_client(server, discover_server=False), server, JSON, STRICT, TEXT)
    first, strict, text = chat_bodies(server)
    assert first["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "the_grounder_s_action", "schema": JSON.schema, "strict": False}}  # anyOf at the root: not strict
    assert strict["response_format"]["json_schema"]["strict"] is True
    assert not {"response_format", "grammar", "structured_outputs"} & text.keys()
    assert (json_out.shape, json_out.shape_note, strict_out.shape) == ("json_schema", None, "json_schema")
    assert text_out.shape is None
    assert text_out.shape_note == "OpenAI's API takes no grammar or pattern for an answer's text"


@pytest.mark.parametrize(("field", "message", "param"), [
    ({"response_format": "json"}, "Invalid type for 'response_format': expected an object", "response_format"),
    ({"response_format": {"type": "xml"}}, "Invalid value: 'xml'. Supported values are", "response_format.type"),
    ({"response_format": {"type": "json_schema"}}, "Missing required parameter: 'response_format.json_schema'",
     "response_format.json_schema"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "an answer", "schema": {}}}},
     "string does not match pattern", "response_format.json_schema.name"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "strict": True, "schema": {
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}}},
     "Invalid schema for response_format 'a': In context=(), 'additionalProperties' is required", "response_format"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "strict": True, "schema": {
        "type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False}}}},
     "'required' is required to be supplied and to be an array including every key in properties. Missing 'x'",
     "response_format"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "a", "strict": True, "schema": JSON.schema}}},
     "schema must be a JSON Schema of 'type: \"object\"'", "response_format"),
    ({"grammar": 'root ::= "x"'}, "Unrecognized request argument supplied: grammar", None),
], ids=["not-an-object", "type", "no-schema", "name", "strict-closed", "strict-required", "strict-root", "grammar"])
def test_the_openai_stand_in_refuses_a_malformed_field_as_openai_does(field: dict[str, Any], message: str,
                                                                       param: str | None) -> None:
    server = OpenAIStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    try:
        status, body = post(server, "/v1/chat/completions", {**CHAT, **field}, bearer())
    finally:
        server.stop()
    assert status == 400 and message in body["error"]["message"]
    assert body["error"]["type"] == "invalid_request_error" and body["error"]["param"] == param


def test_a_refused_shape_is_dropped_the_call_asked_again_and_the_refusal_recorded() -> None:
    server = OpenAIStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    refused, after = ask(openai_client(server, discover_server=False), server, BAD_JSON, JSON)
    bodies = chat_bodies(server)
    assert [("response_format" in b) for b in bodies] == [True, False, False]  # refused, asked again, then none
    assert refused.text == after.text == "echo: answer"
    assert refused.shape is None and "refused the json_schema in 'response_format' (HTTP 400: Invalid schema" in str(
        refused.shape_note) and "its json shapes are not sent from then on" in str(refused.shape_note)
    assert after.shape is None and after.shape_note == refused.shape_note


# -- llama.cpp ---------------------------------------------------------------------------------------------


def test_llamacpp_takes_a_json_schema_and_a_gbnf_grammar_in_its_own_fields() -> None:
    assert TEXT is not None
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    client = openai_client(server)
    json_out, text_out = ask(client, server, JSON, TEXT)
    first, second = chat_bodies(server)
    assert first["json_schema"] == JSON.schema and "grammar" not in first and "response_format" not in first
    assert second["grammar"] == TEXT.grammar and "json_schema" not in second
    assert (json_out.shape, text_out.shape) == ("json_schema", "grammar")
    assert client.server_profile is not None and client.server_profile.pattern_field == "grammar"


def test_llamacpp_refusing_a_grammar_it_cannot_parse_gets_the_call_again_without_it() -> None:
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    (out,) = ask(openai_client(server), server, BAD_GRAMMAR)
    assert [("grammar" in b) for b in chat_bodies(server)] == [True, False]
    assert out.text == "echo: answer" and out.shape is None
    assert "refused the grammar in 'grammar' (HTTP 400: Failed to initialize samplers: failed to parse grammar)" in str(
        out.shape_note)


@pytest.mark.parametrize(("field", "status", "message"), [
    ({"grammar": 'root ::= ("Yes" | '}, 400, "Failed to initialize samplers: failed to parse grammar"),
    ({"grammar": "root ::= undefined"}, 400, "Failed to initialize samplers: failed to parse grammar"),
    ({"grammar": 'root ::= ("x" [^\\n]{0,300}) ("\\n" ("x" [^\\n]{0,300})){0,9}'}, 400,
     "Failed to initialize samplers: failed to parse grammar"),
    ({"grammar": 'root ::= "x"', "json_schema": {"type": "string"}}, 500, "Cannot use both json_schema and grammar"),
    ({"json_schema": {"type": "objectx"}}, 400, "JSON schema error at #: unrecognized type objectx"),
    ({"response_format": {"type": "xml"}}, 400,
     'response_format type must be one of "text" or "json_object", but got: xml'),
], ids=["cut-short", "undefined-rule", "too-many-repeated-rules", "both", "schema-type", "response-format"])
def test_the_llamacpp_stand_in_refuses_as_llamacpp_does(field: dict[str, Any], status: int, message: str) -> None:
    """The bodies and statuses are the real server's (tests/llm/test_llamacpp_real.py asks it the same)."""
    server = LlamaCppStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    try:
        got, body = post(server, "/v1/chat/completions", {**CHAT, **field}, bearer())
    finally:
        server.stop()
    kind = "invalid_request_error" if status == 400 else "server_error"
    assert (got, body) == (status, {"error": {"code": status, "message": message, "type": kind}})


# -- vLLM, Ollama, LM Studio, a server nobody knows -------------------------------------------------------


VLLM_MODELS = {"/v1/models": {"object": "list", "data": [{"id": "qwen", "max_model_len": 8192}]}}


@pytest.mark.parametrize(("version", "field", "sent"), [
    ("0.11.0", "structured_outputs", {"regex": "EXPR"}), ("0.9.2", "guided_regex", "EXPR")])
def test_vllm_takes_a_pattern_as_the_regular_expression_of_its_version(version: str, field: str, sent: Any) -> None:
    assert TEXT is not None
    describe = {**VLLM_MODELS, "/version": {"version": version}}
    server = DescribedStandIn(ScriptedModel(responder=echo), api_key=API_KEY, describe=describe, dialect="vllm").start()
    json_out, text_out = ask(openai_client(server), server, JSON, TEXT)
    first, second = chat_bodies(server)
    assert first["response_format"]["json_schema"]["schema"] == JSON.schema
    expected = {"regex": TEXT.expression} if isinstance(sent, dict) else TEXT.expression
    assert second[field] == expected and (json_out.shape, text_out.shape) == ("json_schema", "regex")


@pytest.mark.parametrize(("field", "message"), [
    ({"structured_outputs": {"regex": "a", "json": {"type": "string"}}},
     "You can only use one kind of structured outputs constraint but multiple are specified"),
    ({"structured_outputs": {"regex": "(unclosed"}}, "Failed to compile the regex"),
    ({"response_format": {"type": "xml"}}, "Invalid value: 'xml'"),
], ids=["two", "regex", "response-format"])
def test_the_vllm_stand_in_refuses_as_vllm_does(field: dict[str, Any], message: str) -> None:
    server = DescribedStandIn(ScriptedModel(responder=echo), api_key=API_KEY, describe=VLLM_MODELS,
                              dialect="vllm").start()
    try:
        status, body = post(server, "/v1/chat/completions", {**CHAT, **field}, bearer())
    finally:
        server.stop()
    assert status == 400 and message in body["error"]["message"] and body["error"]["type"] == "BadRequestError"


@pytest.mark.parametrize(("version", "json_sent"), [("0.5.7", True), ("0.4.7", False)])
def test_ollama_takes_a_json_schema_from_0_5_and_never_a_pattern(version: str, json_sent: bool) -> None:
    describe = {"/api/show": {"capabilities": ["completion"], "model_info": {"qwen2.context_length": 4096}},
                "/api/version": {"version": version}}
    server = DescribedStandIn(ScriptedModel(responder=echo), api_key=API_KEY, describe=describe,
                              dialect="ollama").start()
    json_out, text_out = ask(openai_client(server), server, JSON, TEXT)
    first, second = chat_bodies(server)
    assert ("response_format" in first) is json_sent and "response_format" not in second
    assert json_out.shape == ("json_schema" if json_sent else None)
    assert json_sent or json_out.shape_note == "ollama takes no JSON schema for an answer"
    assert text_out.shape is None and text_out.shape_note == "ollama takes no grammar or pattern for an answer's text"


def test_a_server_discovery_does_not_know_is_sent_no_shape_and_the_answer_says_why() -> None:
    server = DescribedStandIn(ScriptedModel(responder=echo), api_key=API_KEY, describe={}).start()
    json_out, text_out = ask(openai_client(server), server, JSON, TEXT)
    assert all(not {"response_format", "json_schema", "grammar"} & b.keys() for b in chat_bodies(server))
    for out in (json_out, text_out):
        assert out.shape is None and "did not say what it is" in str(out.shape_note)


# -- Gemini -------------------------------------------------------------------------------------------------


def gemini_client(server: StandInServer) -> GeminiClient:
    return GeminiClient("gemini-2.5-flash", api_key=API_KEY, base_url=server.url, retry=FAST)


def test_gemini_takes_a_json_shape_as_response_schema_and_no_pattern() -> None:
    server = GeminiStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    json_out, text_out = ask(gemini_client(server), server, JSON, TEXT)
    first, second = chat_bodies(server)
    config = first["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    variants = config["responseSchema"]["any_of"]
    click = variants[0]
    assert click["type"] == "OBJECT" and click["property_ordering"] == ["action_type", "x", "y"]
    assert click["properties"]["action_type"] == {"type": "STRING", "enum": ["click"]}
    assert "additionalProperties" not in json.dumps(config)  # Gemini's Schema has no such field
    assert len(variants) == len(JSON.schema["anyOf"])
    assert not {"responseSchema", "responseMimeType"} & second.get("generationConfig", {}).keys()
    assert json_out.shape == "json_schema" and text_out.shape is None
    assert text_out.shape_note == "Gemini's API takes no grammar or pattern for an answer's text (only a JSON schema)"


@pytest.mark.parametrize(("config", "message"), [
    ({"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {
        "a": {"type": "STRING"}}, "additionalProperties": False}},
     'Invalid JSON payload received. Unknown name "additionalProperties" at \'generation_config.response_schema\''),
    ({"responseSchema": {"type": "STRING"}}, "response_mime_type must be one of `application/json` or `text/x.enum`"),
    ({"responseMimeType": "text/html"}, "allowed mimetypes are"),
    ({"responseMimeType": "application/json", "responseSchema": {"type": "object"}},
     "Invalid value at 'generation_config.response_schema.type'"),
    ({"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {
        "a": {"type": "INTEGER", "enum": ["1"]}}}},
     "response_schema.properties[a].value.enum: only allowed for STRING"),
    ({"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {
        "a": {"type": "STRING"}}, "required": ["b"]}}, "response_schema.required[0]: property is not defined"),
], ids=["unknown-field", "no-json-mime", "mime", "lower-case-type", "enum-on-integer", "required"])
def test_the_gemini_stand_in_refuses_as_gemini_does(config: dict[str, Any], message: str) -> None:
    server = GeminiStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": config}
    try:
        status, answer = post(server, "/v1beta/models/gemini-2.5-flash:generateContent", body,
                              {"x-goog-api-key": API_KEY})
    finally:
        server.stop()
    assert status == 400 and answer["error"]["status"] == "INVALID_ARGUMENT" and message in answer["error"]["message"]


def test_gemini_refusing_a_schema_gets_the_call_again_without_it() -> None:
    server = GeminiStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    (out,) = ask(gemini_client(server), server, UNDEFINED)
    assert ["responseSchema" in b.get("generationConfig", {}) for b in chat_bodies(server)] == [True, False]
    assert out.text == "echo: answer" and out.shape is None
    assert "required[0]: property is not defined" in str(out.shape_note)


def test_a_request_without_a_shape_is_sent_as_before() -> None:
    server = OpenAIStandIn(ScriptedModel(responder=echo), api_key=API_KEY).start()
    (out,) = ask(openai_client(server, discover_server=False), server, None)
    (body,) = chat_bodies(server)
    assert "response_format" not in body and out.shape is None and out.shape_note is None
    assert GenerationRequest(prompt="x").canonical() == GenerationRequest(prompt="x", shape=None).canonical()
    assert "shape" in GenerationRequest(prompt="x", shape=AnswerShape.text("t", lit("x"))).canonical()
