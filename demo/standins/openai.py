"""A stand-in for OpenAI's ``POST /v1/chat/completions``.

Speaks what the ``openai`` SDK sends (``Authorization: Bearer KEY``, a JSON
body with ``model``, ``messages``, ``temperature``, ``n``, ``max_tokens`` or
``max_completion_tokens``, ``stop``) and answers ``chat.completion`` objects
or ``{"error": {message, type, param, code}}``. ``n_mode`` imitates the
servers that honour ``n`` (OpenAI, vLLM), ignore it (Ollama, llama.cpp) or
reject it. Image content parts (``image_url`` with a base64 ``data:`` URL) are decoded and checked
(base64, MIME type matching the bytes; a 400 otherwise, as is a remote URL the stand-in cannot
fetch) and counted; ``prompt_tokens`` includes them by OpenAI's published high-detail rule.

An answer's shape is checked in the fields of the ``dialect`` the stand-in speaks, as that server checks them
(:mod:`latent_agent.demo.standins.shapes`), and refused in that server's error shape: OpenAI's
``response_format`` (a field of another server is an unrecognized argument there); llama.cpp's ``json_schema``
and ``grammar`` (a grammar it cannot parse is its 400 "failed to parse grammar"; both at once its 500) and its
``response_format``; vLLM's ``structured_outputs`` (one constraint, a regular expression that compiles) and
``response_format``; Ollama's ``response_format`` (other fields ignored, as Ollama ignores them).
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any, Literal

from latent_agent.demo.standins.server import Answer, StandInServer, inline_image
from latent_agent.demo.standins.shapes import (
    gbnf_error,
    json_schema_error,
    response_format_error,
    structured_outputs_error,
)
from latent_agent.errors import (
    LLMAuthError,
    LLMEmptyResponseError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMSafetyBlockError,
    ScriptExhaustedError,
)
from latent_agent.llm.images import Image
from latent_agent.llm.scripted import Reply, usage_of
from latent_agent.llm.types import GenerationRequest, Message, Role

_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
}
_FINISH = {"stop": "stop", "length": "length", "safety": "content_filter", "other": "tool_calls"}
_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}
_ids = itertools.count(1)
#: The servers whose request fields for an answer's shape a stand-in can speak.
Dialect = Literal["openai", "llama.cpp", "vllm", "ollama"]
#: The shape fields of the other servers, which OpenAI's API does not recognise.
_FOREIGN_FIELDS = ("grammar", "json_schema", "structured_outputs", "guided_regex", "guided_json", "guided_grammar",
                   "guided_choice")
_DATA_URL = re.compile(r"^data:([a-z]+/[a-z0-9.+-]+);base64,(.*)$", re.DOTALL)


class OpenAIStandIn(StandInServer):
    """Local ``chat/completions`` server driven by a scripted model.

    Args:
        n_mode: ``honour`` answers n choices, ``ignore`` answers one, ``reject`` answers 400.
        dialect: Whose fields for an answer's shape it takes and checks (see the module docstring).
        **kwargs: See :class:`StandInServer`.
    """

    protocol = "openai"

    def __init__(
        self, *args: Any, n_mode: Literal["honour", "ignore", "reject"] = "honour", dialect: Dialect = "openai",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.n_mode = n_mode
        self.dialect = dialect

    @property
    def base_url(self) -> str:
        """What to give the SDK as ``base_url``."""
        return f"{self.url}/v1"

    def authorized(self, path: str, headers: dict[str, str]) -> bool:
        return headers.get("authorization", "") == f"Bearer {self.api_key}"

    def error(self, status: int, message: str, *, param: str | None = None, code: str | None = None) -> Any:
        return {"error": {"message": message, "type": _TYPES.get(status, "server_error"),
                          "param": param, "code": code}}

    def malformed(self) -> bytes:
        return b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "mess'

    def respond(self, path: str, body: Any, authorized: bool) -> Answer:
        if not authorized:
            # Real OpenAI echoes part of the key here; a stand-in has no reason to.
            return Answer(401, self.error(401, "Incorrect API key provided.", code="invalid_api_key"))
        if path != "/v1/chat/completions":
            return Answer(404, self.error(404, f"Unknown request URL: POST {path}."))
        refused = self.shape_refusal(body)
        if refused is not None:
            return refused
        try:
            request = self.described(_request(body))
        except (LLMError, KeyError, TypeError, ValueError) as exc:
            return Answer(400, self.error(400, f"Invalid request: {exc}"))
        if request.n > 1 and self.n_mode == "reject":
            return Answer(400, self.error(400, "n > 1 is not supported by this server", param="n"))
        if self.n_mode == "ignore":
            request = request.with_n(1)
        self.count_images(request)
        try:
            replies = self.model.answer(request)
        except LLMSafetyBlockError:
            replies = (Reply("", "safety"),)
        except LLMEmptyResponseError:
            replies = ()
        except LLMAuthError as exc:
            return Answer(403, self.error(403, str(exc)))
        except LLMRateLimitError as exc:
            return Answer(429, self.error(429, str(exc), code="rate_limit_exceeded"),
                          (("Retry-After", f"{self.retry_after_s:g}"),))
        except ScriptExhaustedError as exc:
            return Answer(500, self.error(500, str(exc)))
        except LLMError as exc:
            return Answer(400, self.error(400, str(exc)))
        return Answer(200, _response(request, replies, str(body.get("model", ""))))


    def shape_refusal(self, body: Any) -> Answer | None:
        """The refusal of a malformed shape field, as :attr:`dialect`'s server answers it, or None."""
        if not isinstance(body, dict):
            return None
        if self.dialect == "openai":
            foreign = next((key for key in _FOREIGN_FIELDS if key in body), None)
            if foreign is not None:
                return Answer(400, self.error(400, f"Unrecognized request argument supplied: {foreign}"))
        if self.dialect == "llama.cpp":
            return _llamacpp_refusal(body)
        if "response_format" in body:
            if self.dialect == "ollama":
                spec = body["response_format"]
                schema = spec.get("json_schema", {}).get("schema") if isinstance(spec, dict) else None
                if isinstance(spec, dict) and spec.get("type") == "json_schema" and not isinstance(schema, dict):
                    return Answer(400, self.error(400, "invalid format: expected a JSON schema"))
            else:
                problem = response_format_error(body["response_format"])
                if problem is not None:
                    return Answer(400, self._dialect_error(problem[0], problem[1]))
        if self.dialect == "vllm" and "structured_outputs" in body:
            found = structured_outputs_error(body["structured_outputs"])
            if found is not None:
                return Answer(400, self._dialect_error(found, None))
        return None

    def _dialect_error(self, message: str, param: str | None) -> Any:
        if self.dialect == "vllm":
            return {"error": {"message": message, "type": "BadRequestError", "param": param, "code": 400}}
        return self.error(400, message, param=param)


def _llamacpp_error(status: int, message: str) -> Any:
    """llama.cpp's error body."""
    kind = "invalid_request_error" if status == 400 else "server_error"
    return {"error": {"code": status, "message": message, "type": kind}}


def _llamacpp_refusal(body: dict[str, Any]) -> Answer | None:
    """What llama.cpp's server refuses among the shape fields (``grammar``, ``json_schema``, ``response_format``)."""
    if "grammar" in body and "json_schema" in body:
        return Answer(500, _llamacpp_error(500, "Cannot use both json_schema and grammar"))
    if "grammar" in body and gbnf_error(body["grammar"]) is not None:
        return Answer(400, _llamacpp_error(400, "Failed to initialize samplers: failed to parse grammar"))
    if isinstance(body.get("json_schema"), dict) and (found := json_schema_error(body["json_schema"])) is not None:
        return Answer(400, _llamacpp_error(400, found))
    spec = body.get("response_format")
    if spec is not None:
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind not in ("text", "json_object", "json_schema"):
            return Answer(400, _llamacpp_error(400, 'response_format type must be one of "text" or "json_object", but '
                                                    f"got: {kind}"))
        schema = (spec.get("json_schema") or {}).get("schema") if kind == "json_schema" else None
        if schema is not None and (found := json_schema_error(schema)) is not None:
            return Answer(400, _llamacpp_error(400, found))
    return None


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p.get("text", "") for p in value if isinstance(p, dict))
    return ""


def _images(value: Any) -> tuple[Image, ...]:
    """The images of a message's content parts.

    Raises:
        LLMRequestError: A part is not a base64 ``data:`` URL of a PNG, JPEG or WebP image.
    """
    if not isinstance(value, list):
        return ()
    out: list[Image] = []
    for part in value:
        if not isinstance(part, dict) or part.get("type") != "image_url":
            continue
        url = str((part.get("image_url") or {}).get("url", ""))
        match = _DATA_URL.match(url)
        if match is None:
            raise LLMRequestError(f"image_url must be a base64 data: URL (the stand-in fetches nothing), got "
                                  f"{url[:40]!r}")
        out.append(inline_image(match.group(2), match.group(1)))
    return tuple(out)


def _message(m: Any) -> Message:
    content = m.get("content")
    return Message(_ROLES[m["role"]], _content(content), _images(content))


def _request(body: Any) -> GenerationRequest:
    stop = body.get("stop") or ()
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    return GenerationRequest(
        messages=tuple(_message(m) for m in body["messages"]),
        temperature=float(body.get("temperature", 1.0)),
        n=int(body.get("n") or 1),
        max_output_tokens=int(max_tokens) if max_tokens is not None else None,
        stop=(stop,) if isinstance(stop, str) else tuple(stop),
    )


def _response(request: GenerationRequest, replies: tuple[Reply, ...], model: str) -> dict[str, Any]:
    usage = usage_of(request, replies, images="openai-high")
    return {
        "id": f"chatcmpl-standin-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": r.text if r.finish_reason != "safety" else None},
                "finish_reason": _FINISH[r.finish_reason],
                "logprobs": None,
            }
            for i, r in enumerate(replies)
        ],
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        },
    }
