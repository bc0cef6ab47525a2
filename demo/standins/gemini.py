"""A stand-in for the Gemini Developer API's ``generateContent``.

Speaks what ``google-genai`` sends: ``POST /{version}/models/{model}:generateContent``
with the key in the ``x-goog-api-key`` header (``?key=`` is accepted too), a
JSON body of ``contents`` / ``systemInstruction`` / ``generationConfig``, and
answers ``candidates`` / ``usageMetadata`` / ``modelVersion`` or the
``{"error": {code, message, status, details}}`` shape, including Google's
``API_KEY_INVALID`` 400 for a wrong key and ``RetryInfo`` on 429. Inline image parts
(``inlineData``) are decoded and checked (base64, MIME type matching the bytes; a 400 otherwise),
counted, and reported in ``usageMetadata.promptTokensDetails`` by Gemini's published rule.
A response schema (``generationConfig.responseSchema``) and its ``responseMimeType`` are checked as Gemini checks
them (:func:`~latent_agent.demo.standins.shapes.gemini_schema_error`: Gemini's ``Schema`` fields only, its types,
its required properties, a JSON MIME type) and refused with Gemini's 400 ``INVALID_ARGUMENT``.
``:embedContent`` and ``:batchEmbedContents`` answer deterministic hashed bag-of-words vectors
(:mod:`latent_agent.llm.embed.hashing`) of the requested ``outputDimensionality``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from latent_agent.demo.standins.server import Answer, StandInServer, inline_image
from latent_agent.demo.standins.shapes import gemini_schema_error
from latent_agent.errors import (
    LLMAuthError,
    LLMEmptyResponseError,
    LLMError,
    LLMRateLimitError,
    LLMSafetyBlockError,
    ScriptExhaustedError,
)
from latent_agent.llm.embed.hashing import hashed_vector
from latent_agent.llm.images import Image
from latent_agent.llm.scripted import Reply, usage_of
from latent_agent.llm.types import GenerationRequest, Message, Role

_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/:]+):generateContent$")
#: The embedding methods: answered with hashed bag-of-words vectors (deterministic, no model).
_EMBED_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/:]+):(embedContent|batchEmbedContents)$")
_STATUS = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "safety": "SAFETY", "other": "OTHER"}
_ROLES: dict[str, Role] = {"user": "user", "model": "assistant"}


class GeminiStandIn(StandInServer):
    """Local ``generateContent`` server driven by a scripted model.

    Args:
        max_candidates: Largest ``candidateCount`` accepted; above it the server answers
            400 as Gemini does for models without multiple candidates.
        **kwargs: See :class:`StandInServer`.
    """

    protocol = "gemini"

    def __init__(self, *args: Any, max_candidates: int = 8, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_candidates = max_candidates

    def authorized(self, path: str, headers: dict[str, str]) -> bool:
        query_key = parse_qs(urlsplit(path).query).get("key", [""])[0]
        return self.api_key in (headers.get("x-goog-api-key", ""), query_key)

    def error(self, status: int, message: str) -> Any:
        body: dict[str, Any] = {"code": status, "message": message, "status": _STATUS.get(status, "UNKNOWN")}
        if status == 429:
            body["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{self.retry_after_s:g}s",
                }
            ]
        return {"error": body}

    def _embed(self, method: str, body: Any) -> Answer:
        """``:embedContent`` / ``:batchEmbedContents``: one vector per text, or a 400 naming the problem."""
        try:
            return Answer(200, _embed_answer(method, body))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return Answer(400, self.error(400, f"Invalid embedding request: {exc}"))

    def malformed(self) -> bytes:
        return b'{"candidates": [{"content": {"parts": [{"text": "trunc'

    def respond(self, path: str, body: Any, authorized: bool) -> Answer:
        if not authorized:
            error = self.error(400, "API key not valid. Please pass a valid API key.")
            error["error"]["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                }
            ]
            return Answer(400, error)
        embed = _EMBED_PATH.match(path)
        if embed is not None:
            return self._embed(embed.group(3), body)
        match = _PATH.match(path)
        if match is None:
            return Answer(404, self.error(404, f"no such method: {path}"))
        model = match.group(2)
        config = body.get("generationConfig", body.get("generation_config")) if isinstance(body, dict) else None
        refused = gemini_schema_error(config) if isinstance(config, dict) else None
        if refused is not None:
            return Answer(400, self.error(400, refused))
        try:
            request = self.described(_request(body))
        except (LLMError, KeyError, TypeError, ValueError) as exc:
            return Answer(400, self.error(400, f"Invalid request: {exc}"))
        if request.n > self.max_candidates:
            return Answer(400, self.error(400, f"Multiple candidates is not enabled for models/{model}"))
        self.count_images(request)
        try:
            replies = self.model.answer(request)
        except LLMSafetyBlockError:
            return Answer(200, {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": model})
        except LLMEmptyResponseError:
            return Answer(200, {"candidates": [], "modelVersion": model})
        except LLMAuthError as exc:
            return Answer(403, self.error(403, str(exc)))
        except LLMRateLimitError as exc:
            return Answer(429, self.error(429, str(exc)), (("Retry-After", f"{self.retry_after_s:g}"),))
        except ScriptExhaustedError as exc:
            return Answer(500, self.error(500, str(exc)))
        except LLMError as exc:
            return Answer(400, self.error(400, str(exc)))
        return Answer(200, _response(request, replies, model))


def _request(body: Any) -> GenerationRequest:
    """The generic request a ``generateContent`` body stands for."""
    messages: list[Message] = []
    system = body.get("systemInstruction") or body.get("system_instruction")
    if system:
        messages.append(Message("system", "".join(p.get("text", "") for p in system.get("parts", []))))
    for content in body["contents"]:
        role = _ROLES[content.get("role", "user")]
        parts = content.get("parts", [])
        # Protobuf JSON takes either spelling of a field (google-genai sends inlineData.mime_type).
        inline = [p.get("inlineData", p.get("inline_data")) for p in parts]
        images: tuple[Image, ...] = tuple(
            inline_image(d.get("data"), d.get("mimeType", d.get("mime_type")))
            for d in inline if isinstance(d, dict)
        )
        messages.append(Message(role, "".join(p.get("text", "") for p in parts), images))
    config = body.get("generationConfig", {})
    return GenerationRequest(
        messages=tuple(messages),
        temperature=float(config.get("temperature", 1.0)),
        n=int(config.get("candidateCount", 1)),
        max_output_tokens=config.get("maxOutputTokens"),
        stop=tuple(config.get("stopSequences", ())),
    )


def _response(request: GenerationRequest, replies: tuple[Reply, ...], model: str) -> dict[str, Any]:
    usage = usage_of(request, replies, images="gemini")
    candidates = []
    for index, reply in enumerate(replies):
        cand: dict[str, Any] = {"finishReason": _FINISH[reply.finish_reason], "index": index}
        if reply.finish_reason != "safety":
            cand["content"] = {"parts": [{"text": reply.text}], "role": "model"}
        candidates.append(cand)
    return {
        "candidates": candidates,
        "usageMetadata": {
            "promptTokenCount": usage.prompt_tokens,
            "candidatesTokenCount": usage.output_tokens,
            "totalTokenCount": usage.total_tokens,
            **({"promptTokensDetails": [
                {"modality": "TEXT", "tokenCount": usage.prompt_tokens - usage.image_tokens},
                {"modality": "IMAGE", "tokenCount": usage.image_tokens},
            ]} if usage.image_tokens else {}),
        },
        "modelVersion": model,
        "responseId": f"standin-{len(request.chat())}",
    }


# -- embeddings -------------------------------------------------------------------------------

#: Gemini's default vector length when the request names none.
_EMBED_DIMENSION = 3072
#: Most texts one ``batchEmbedContents`` request may hold.
_EMBED_BATCH = 100


def _embedded_text(request: Any) -> str:
    """The text of one embed request (``{"content": {"parts": [{"text": ...}]}, ...}``)."""
    parts = request["content"]["parts"]
    text = "".join(str(p.get("text", "")) for p in parts)
    if not text.strip():
        raise ValueError("content must not be empty")
    return text


def _embedding(request: Any) -> dict[str, Any]:
    dimension = int(request.get("outputDimensionality") or _EMBED_DIMENSION)
    if dimension < 1:
        raise ValueError("outputDimensionality must be positive")
    return {"values": hashed_vector(_embedded_text(request), dimension)}


def _embed_answer(method: str, body: Any) -> dict[str, Any]:
    if method == "embedContent":
        return {"embedding": _embedding(body)}
    requests = body["requests"]
    if not isinstance(requests, list) or not requests or len(requests) > _EMBED_BATCH:
        raise ValueError(f"requests must hold 1 to {_EMBED_BATCH} items")
    return {"embeddings": [_embedding(r) for r in requests]}
