"""Gemini through the ``google-genai`` SDK (the Gemini Developer API, API-key auth).

The SDK's own retries are switched off (``HttpRetryOptions(attempts=1)``) so
that :mod:`latent_agent.llm.retry` alone decides; its timeout is set from the retry
policy so no request waits longer than that. The base URL can point at a proxy
or at the local stand-in (:mod:`latent_agent.demo.standins.gemini`).

A user message's images go into its turn as inline-data parts (``Part.from_bytes``), before its
text. The image share of the prompt tokens is Gemini's own per-modality count when the answer
holds one, else the published rule's estimate (:mod:`latent_agent.llm.image_tokens`).

An answer's JSON shape (``--llm-structured on``) is sent as ``response_schema`` with ``response_mime_type``
``application/json``: the schema in Gemini's own form (:func:`gemini_schema`: its types in capitals, the
properties' order kept as ``propertyOrdering``, no ``additionalProperties``). Gemini takes no grammar or pattern
for an answer's text: a call with such a shape is sent without it, and its record says why.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pydantic

from latent_agent.errors import (
    LLMAuthError,
    LLMEmptyResponseError,
    LLMRequestError,
    LLMResponseError,
    LLMSafetyBlockError,
)
from latent_agent.llm.base import NSamplesRejected, SdkClient, ShapeDelivery, ShapeRefused
from latent_agent.llm.capabilities import capabilities
from latent_agent.llm.image_tokens import gemini_tokens
from latent_agent.llm.retry import TransientFailure, parse_retry_after
from latent_agent.llm.secrets import redact, register_secret, register_url
from latent_agent.llm.types import FinishReason, GenerationRequest, ProviderAnswer, Usage, sendable
from latent_agent.shapes import AnswerShape

#: Gemini finish reasons that mean the output was withheld.
_SAFETY_REASONS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)
_FINISH: dict[str, FinishReason] = {"STOP": "stop", "MAX_TOKENS": "length"}
_TRANSIENT_STATUS = {
    429: "rate_limit", 408: "timeout", 500: "server", 502: "server", 503: "server", 504: "server"
}
#: Where the SDK sends requests when no base URL is given.
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_DURATION = re.compile(r"^\s*([0-9.]+)s\s*$")
#: What Gemini's refusal of a response schema says (a field of it, or the MIME type it needs).
_SCHEMA_REFUSED = re.compile(r"response_schema|response_mime_type|responseSchema|responseMimeType|schema",
                             re.IGNORECASE)
#: The JSON Schema keywords Gemini's ``Schema`` has, by the name the SDK gives them.
_GEMINI_KEYWORDS = {"description": "description", "enum": "enum", "required": "required", "minimum": "minimum",
                    "maximum": "maximum", "minLength": "min_length", "maxLength": "max_length",
                    "minItems": "min_items", "maxItems": "max_items", "format": "format", "nullable": "nullable"}


class GeminiClient(SdkClient):
    """Gemini models via ``google-genai``.

    Args:
        model: e.g. ``gemini-2.5-flash``.
        api_key: Gemini API key (never logged or recorded).
        base_url: Endpoint override (proxy, stand-in); None for Google's.
        api_version: API version path segment; None for the SDK's default.
        **client_kwargs: Passed to :class:`LLMClient`.
    """

    provider = "gemini"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        api_version: str | None = None,
        **client_kwargs: Any,
    ) -> None:
        client_kwargs.setdefault("max_native_n", capabilities("gemini", model).max_native_n)
        super().__init__(model, **client_kwargs)
        if not api_key:
            raise LLMAuthError("gemini: no API key (set GEMINI_API_KEY or GOOGLE_API_KEY, or pass --api-key)")
        register_secret(api_key)
        register_url(base_url)
        self._api_key = api_key
        self.base_url = base_url
        self.api_version = api_version

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (for messages)."""
        return redact(self.base_url or DEFAULT_BASE_URL)

    def _new_sdk(self) -> Any:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=self.base_url,
            api_version=self.api_version,
            timeout=max(1, int(self.retry.timeout_s * 1000)),
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        return genai.Client(api_key=self._api_key, http_options=options)

    async def _close_sdk(self, client: Any, *, same_loop: bool) -> None:
        if same_loop:
            await client.aio.aclose()
        client.close()

    def shape_delivery(self, shape: AnswerShape) -> ShapeDelivery:
        """A JSON shape goes in ``response_schema``; Gemini takes nothing for a text pattern."""
        if shape.kind == "json":
            return ShapeDelivery("json_schema", "response_schema")
        return ShapeDelivery(None, note="Gemini's API takes no grammar or pattern for an answer's text (only a JSON "
                                        "schema)")

    def _build(self, request: GenerationRequest) -> tuple[list[Any], Any]:
        """The SDK's contents and config for ``request``."""
        from google.genai import types

        system = "\n\n".join(m.text for m in request.chat() if m.role == "system")
        contents = [
            types.Content(
                role="model" if m.role == "assistant" else "user",
                parts=[*(types.Part.from_bytes(data=sendable(i).data, mime_type=i.mime) for i in m.images),
                       types.Part(text=m.text)],
            )
            for m in request.chat()
            if m.role != "system"
        ]
        config = types.GenerateContentConfig(
            temperature=request.temperature,
            candidate_count=request.n if request.n > 1 else None,
            max_output_tokens=capabilities("gemini", self.model).output_cap(request.max_output_tokens),
            stop_sequences=list(request.stop) or None,
            system_instruction=system or None,
        )
        if request.shape is not None:
            config.response_mime_type = "application/json"
            config.response_schema = types.Schema.model_validate(gemini_schema(request.shape.schema))
        return contents, config

    async def _call(self, request: GenerationRequest) -> ProviderAnswer:
        import httpx2
        from google.genai import errors as genai_errors

        contents, config = self._build(request)
        try:
            response = await self._client().aio.models.generate_content(
                model=self.model, contents=contents, config=config
            )
        except genai_errors.APIError as exc:
            raise self._api_error(exc, request) from None
        except httpx2.TimeoutException as exc:
            raise TransientFailure("timeout", f"{type(exc).__name__} from {self.name}") from None
        except httpx2.TransportError as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise TransientFailure("connection", f"cannot connect to {self.endpoint} ({redact(detail)})") from None
        except (json.JSONDecodeError, pydantic.ValidationError) as exc:
            raise LLMResponseError(f"{self.name}: unreadable response ({type(exc).__name__})") from None
        return self._answer(response, request)

    def _api_error(self, exc: Any, request: GenerationRequest) -> Exception:
        code = int(getattr(exc, "code", 0) or 0)
        status = str(getattr(exc, "status", "") or "")
        message = redact(str(getattr(exc, "message", "") or ""))
        details = json.dumps(getattr(exc, "details", None), default=str)
        what = f"{self.name}: HTTP {code} {status}: {message}"
        kind = _TRANSIENT_STATUS.get(code)
        if kind is not None:
            return TransientFailure(
                kind,  # type: ignore[arg-type]
                f"HTTP {code} {status}",
                retry_after_s=_retry_after(exc) if code == 429 else None,
            )
        if code in (401, 403) or "API_KEY_INVALID" in details:
            return LLMAuthError(f"{what} (check GEMINI_API_KEY / GOOGLE_API_KEY)")
        if code == 400 and request.n > 1 and "candidate" in message.lower():
            return NSamplesRejected(message)
        if code == 400 and request.shape is not None and _SCHEMA_REFUSED.search(message):
            return ShapeRefused(f"HTTP {code} {status}: {message}")
        return LLMRequestError(what)

    def _answer(self, response: Any, request: GenerationRequest) -> ProviderAnswer:
        candidates = sorted(response.candidates or [], key=lambda c: c.index or 0)
        if not candidates:
            feedback = response.prompt_feedback
            block = getattr(feedback, "block_reason", None) if feedback is not None else None
            if block is not None:
                reason = getattr(block, "value", str(block))
                raise LLMSafetyBlockError(f"{self.name}: the prompt was blocked ({reason})")
            raise LLMEmptyResponseError(f"{self.name}: the response holds no candidates")
        texts: list[str] = []
        reasons: list[FinishReason] = []
        for cand in candidates:
            parts = cand.content.parts if cand.content is not None and cand.content.parts else []
            texts.append("".join(p.text for p in parts if p.text and not p.thought))
            raw = getattr(cand.finish_reason, "value", None) or "STOP"
            reasons.append("safety" if raw in _SAFETY_REASONS else _FINISH.get(raw, "other"))
        meta = response.usage_metadata
        prompt = (meta.prompt_token_count or 0) if meta is not None else 0
        output = ((meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)) if meta else 0
        total = (meta.total_token_count or 0) if meta is not None else 0
        return ProviderAnswer(
            texts=tuple(texts),
            finish_reasons=tuple(reasons),
            usage=Usage(prompt, output, max(total, prompt + output), _image_tokens(meta, request)),
            model=response.model_version or self.model,
        )


def gemini_schema(schema: Any) -> dict[str, Any]:
    """A JSON schema in the form of Gemini's ``Schema`` (as the SDK names its fields): the type in capitals, the
    properties' order as ``property_ordering`` (Gemini orders them by name otherwise), ``anyOf`` as ``any_of``;
    keywords Gemini has no field for (``additionalProperties``) are left out."""
    out: dict[str, Any] = {}
    if isinstance(schema.get("type"), str):
        out["type"] = schema["type"].upper()
    for keyword, name in _GEMINI_KEYWORDS.items():
        if keyword in schema:
            out[name] = schema[keyword]
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {key: gemini_schema(value) for key, value in schema["properties"].items()}
        out["property_ordering"] = list(schema["properties"])
    if isinstance(schema.get("items"), dict):
        out["items"] = gemini_schema(schema["items"])
    if isinstance(schema.get("anyOf"), list):
        out["any_of"] = [gemini_schema(option) for option in schema["anyOf"]]
    return out


def _image_tokens(meta: Any, request: GenerationRequest) -> int:
    """The prompt's image tokens: Gemini's per-modality count if given, else the published rule's estimate."""
    images = request.image_infos()
    if not images:
        return 0
    details = (getattr(meta, "prompt_tokens_details", None) if meta is not None else None) or []
    reported = [int(d.token_count or 0) for d in details if str(getattr(d.modality, "value", d.modality)) == "IMAGE"]
    if reported:
        return sum(reported)
    return sum(gemini_tokens(i.width, i.height) for i in images)


def _retry_after(exc: Any) -> float | None:
    """The wait a 429 asks for: the Retry-After header, else the RetryInfo detail."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is not None:
        wait = parse_retry_after(headers.get("retry-after"))
        if wait is not None:
            return wait
    details = getattr(exc, "details", None)
    error = details.get("error", details) if isinstance(details, dict) else None
    for item in (error or {}).get("details", []) if isinstance(error, dict) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None

