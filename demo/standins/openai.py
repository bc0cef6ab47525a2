"""A stand-in for OpenAI's ``POST /v1/chat/completions``.

Speaks what the ``openai`` SDK sends (``Authorization: Bearer KEY``, a JSON
body with ``model``, ``messages``, ``temperature``, ``n``, ``max_tokens`` or
``max_completion_tokens``, ``stop``) and answers ``chat.completion`` objects
or ``{"error": {message, type, param, code}}``. ``n_mode`` imitates the
servers that honour ``n`` (OpenAI, vLLM), ignore it (Ollama, llama.cpp) or
reject it. Image content parts (``image_url`` with a base64 ``data:`` URL) are decoded and checked
(base64, MIME type matching the bytes; a 400 otherwise, as is a remote URL the stand-in cannot
fetch) and counted; ``prompt_tokens`` includes them by OpenAI's published high-detail rule.
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any, Literal

from latent_agent.demo.standins.server import Answer, StandInServer, inline_image
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
_DATA_URL = re.compile(r"^data:([a-z]+/[a-z0-9.+-]+);base64,(.*)$", re.DOTALL)


class OpenAIStandIn(StandInServer):
    """Local ``chat/completions`` server driven by a scripted model.

    Args:
        n_mode: ``honour`` answers n choices, ``ignore`` answers one, ``reject`` answers 400.
        **kwargs: See :class:`StandInServer`.
    """

    protocol = "openai"

    def __init__(
        self, *args: Any, n_mode: Literal["honour", "ignore", "reject"] = "honour", **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.n_mode = n_mode

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
