"""OpenAI-compatible chat completions through the ``openai`` SDK.

One backend for OpenAI and the servers that copy its API (vLLM, Ollama,
llama.cpp's server, LM Studio): only the base URL differs. The SDK's retries
are off (``max_retries=0``) so :mod:`latent_agent.llm.retry` alone decides, and its
timeout comes from the retry policy. Servers that ignore ``n`` (Ollama) or refuse it (llama.cpp's
``Field 'n'`` 400, which names no ``param``) are detected from the answer and served by parallel calls.

A client with a base URL (a local or self-hosted server) first asks the server what it is, once
(:mod:`latent_agent.llm.discovery`): its context window, whether ``n`` is worth sending (not to llama.cpp,
whose usage counts one sample for all) and whether it takes images. With a known window, a prompt that
does not fit is refused before it is sent (:mod:`latent_agent.llm.context_window`); a request with images
to a server that says it takes none is refused too. :attr:`OpenAICompatClient.server_profile` keeps what
was found, for the trajectory header.

An answer's shape (``--llm-structured on``, :mod:`latent_agent.shapes`) goes in the field the server takes:
OpenAI's API takes a JSON schema as ``response_format`` (``strict`` where the schema keeps to strict mode's
rules) and no grammar; a local server takes what discovery says its kind takes (llama.cpp: ``json_schema`` and a
GBNF ``grammar``; vLLM: ``response_format`` and a regular expression in ``structured_outputs``; Ollama and LM
Studio: ``response_format``). A server discovery does not know is sent none. A 400 that names the field is a
refusal: the call is asked again without it (:class:`~latent_agent.llm.base.ShapeRefused`).

A user message with images is sent as content parts: its text, then one ``image_url`` part per
image holding a ``data:`` URL (base64) and the client's ``detail``. The API counts images inside
``prompt_tokens`` without a breakdown, so their share is the published rule's estimate
(:mod:`latent_agent.llm.image_tokens`), never more than the reported prompt.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
from typing import Any, Literal

from latent_agent.errors import (
    ConfigError,
    LLMAuthError,
    LLMEmptyResponseError,
    LLMRequestError,
    LLMResponseError,
)
from latent_agent.llm.base import NSamplesRejected, SdkClient, ShapeDelivery, ShapeRefused
from latent_agent.llm.capabilities import capabilities
from latent_agent.llm.context_window import check_fits
from latent_agent.llm.discovery import ServerProfile, discover
from latent_agent.llm.image_tokens import openai_tokens
from latent_agent.llm.retry import TransientFailure, parse_retry_after
from latent_agent.llm.secrets import redact, register_secret, register_url
from latent_agent.llm.types import (
    Completion,
    FinishReason,
    GenerationRequest,
    Message,
    ProviderAnswer,
    Usage,
    sendable,
)
from latent_agent.shapes import AnswerShape

_FINISH: dict[str, FinishReason] = {"stop": "stop", "length": "length", "content_filter": "safety"}

#: Where the SDK sends requests when no base URL is given.
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Local servers need no key but the SDK insists on one; this value is what vLLM's docs use.
NO_KEY = "EMPTY"
#: llama.cpp's refusal of ``n`` (``"Field 'n': Value must be between 1 <= value <= 1, but got 8"``), which
#: carries no ``param`` field.
_N_REFUSED = re.compile(r"\bField 'n'|\bn\b.*\bnot supported|\bparameter 'n'", re.IGNORECASE)
#: What a server's refusal of a shape's field says (llama.cpp: "failed to parse grammar", "JSON schema error";
#: OpenAI: "Invalid schema for response_format"; vLLM: its structured outputs' errors).
_SHAPE_REFUSED = re.compile(r"grammar|schema|response_format|structured|regex|guided", re.IGNORECASE)
#: How a text pattern is sent in each field that takes one: llama.cpp's GBNF or a regular expression.
_PATTERN_SENT = {"grammar": "grammar", "structured_outputs": "regex", "guided_regex": "regex"}


class OpenAICompatClient(SdkClient):
    """Chat completions over the OpenAI API shape.

    Args:
        model: Model name the server knows.
        api_key: Bearer key (never logged or recorded); None for keyless local servers.
        base_url: e.g. ``http://127.0.0.1:8000/v1``; None for api.openai.com.
        discover_server: Ask the server what it is before the first call (see the module docstring);
            None: when a base URL other than api.openai.com is given.
        image_detail: The ``detail`` of every image sent: ``high`` (tiles; small text stays
            legible) or ``low`` (one 512 px thumbnail, 85 tokens).
        **client_kwargs: Passed to :class:`LLMClient`.
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str | None = None,
        image_detail: Literal["high", "low"] = "high",
        discover_server: bool | None = None,
        **client_kwargs: Any,
    ) -> None:
        if image_detail not in ("high", "low"):
            raise ConfigError(f"openai: image detail must be high or low, got {image_detail!r}")
        caps = capabilities("openai", model)
        client_kwargs.setdefault("max_native_n", caps.max_native_n)
        super().__init__(model, **client_kwargs)
        if not api_key and base_url is None:
            raise LLMAuthError("openai: no API key (set OPENAI_API_KEY or pass --api-key)")
        register_secret(api_key)
        register_url(base_url)
        self._api_key = api_key or NO_KEY
        self.base_url = base_url
        self.image_detail: Literal["high", "low"] = image_detail
        self.max_tokens_field = caps.max_tokens_field
        self.discover_server = (base_url is not None and base_url.rstrip("/") != DEFAULT_BASE_URL
                                if discover_server is None else discover_server)
        self.server_profile: ServerProfile | None = None
        self._discovering: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    async def discover(self) -> ServerProfile | None:
        """What the server says about itself (asked once; None for a server that is not asked)."""
        if not self.discover_server or self.base_url is None:
            return None
        loop = asyncio.get_running_loop()
        if self._discovering is None or self._discovering[0] is not loop:
            self._discovering = (loop, asyncio.Lock())
        async with self._discovering[1]:  # calls in flight at the start wait for one discovery
            if self.server_profile is None:
                profile = await discover(self.base_url, self.model, headers=self._auth_headers())
                if profile.native_n is False:
                    self.max_native_n = 1
                self.server_profile = profile
        return self.server_profile

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"}

    def shape_delivery(self, shape: AnswerShape) -> ShapeDelivery:
        """Where ``shape`` goes: OpenAI's fields, or those discovery says the server takes (none for a server it
        does not know)."""
        profile = self.server_profile if self.discover_server else None
        if self.discover_server and (profile is None or profile.server == "unknown"):
            return ShapeDelivery(None, note=f"the server at {self.endpoint} did not say what it is (discovery knows "
                                            "llama.cpp, Ollama, vLLM and LM Studio), so it is sent no shape")
        where = "OpenAI's API" if profile is None else profile.server
        if shape.kind == "json":
            json_field = "response_format" if profile is None else profile.json_field
            if json_field is None:
                return ShapeDelivery(None, note=f"{where} takes no JSON schema for an answer")
            return ShapeDelivery("json_schema", json_field)
        pattern_field = None if profile is None else profile.pattern_field
        if pattern_field is None:
            return ShapeDelivery(None, note=f"{where} takes no grammar or pattern for an answer's text")
        return ShapeDelivery(_PATTERN_SENT[pattern_field], pattern_field)  # type: ignore[arg-type]

    async def _complete(self, request: GenerationRequest, start: float) -> Completion:
        profile = await self.discover()
        if profile is not None:
            if profile.images is False and request.image_infos():
                raise LLMRequestError(
                    f"{self.name}: the server says the model takes no images ({profile.server}), but this "
                    f"{request.purpose or 'request'} call carries {len(request.image_infos())}; nothing was sent"
                )
            await check_fits(self.name, self.base_url or DEFAULT_BASE_URL, profile, request, self._auth_headers())
        return await super()._complete(request, start)

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (for messages)."""
        return redact(self.base_url or DEFAULT_BASE_URL)

    def _new_sdk(self) -> Any:
        from openai import AsyncOpenAI

        return AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, max_retries=0,
                           timeout=self.retry.timeout_s)

    async def _close_sdk(self, client: Any, *, same_loop: bool) -> None:
        if same_loop:
            await client.close()

    def _params(self, request: GenerationRequest) -> dict[str, Any]:
        """Keyword arguments of ``chat.completions.create`` for ``request``."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [self._message(m) for m in request.chat()],
            "temperature": request.temperature,
        }
        if request.n > 1:
            params["n"] = request.n
        if request.max_output_tokens is not None:
            # A reasoning model spends its thinking out of the same cap: it gets room for it on top.
            params[self.max_tokens_field] = capabilities("openai", self.model).output_cap(request.max_output_tokens)
        if request.stop:
            params["stop"] = list(request.stop)
        if request.shape is not None:
            self._shape_params(request.shape, params)
        return params

    def _shape_params(self, shape: AnswerShape, params: dict[str, Any]) -> None:
        """Put ``shape`` into ``params`` in the field :meth:`shape_delivery` names (another server's own fields go
        in ``extra_body``, which the SDK merges into the request)."""
        field = self.shape_delivery(shape).field
        extra: dict[str, Any] = {}
        if field == "response_format":
            params["response_format"] = {"type": "json_schema", "json_schema": {
                "name": shape.slug, "schema": shape.schema, "strict": strict_schema(shape.schema)}}
        elif field == "json_schema":
            extra["json_schema"] = shape.schema
        elif field == "grammar":
            extra["grammar"] = shape.grammar
        elif field == "structured_outputs":
            extra["structured_outputs"] = {"regex": shape.expression}
        elif field == "guided_regex":
            extra["guided_regex"] = shape.expression
        if extra:
            params["extra_body"] = extra

    def _message(self, message: Message) -> dict[str, Any]:
        """One chat message; plain text unless it carries images (then text and image parts)."""
        if not message.images:
            return {"role": message.role, "content": message.text}
        parts: list[dict[str, Any]] = [{"type": "text", "text": message.text}]
        for image in message.images:
            pixels = sendable(image)
            url = f"data:{pixels.mime};base64,{base64.b64encode(pixels.data).decode('ascii')}"
            parts.append({"type": "image_url", "image_url": {"url": url, "detail": self.image_detail}})
        return {"role": message.role, "content": parts}

    async def _call(self, request: GenerationRequest) -> ProviderAnswer:
        import openai

        params = self._params(request)
        try:
            response = await self._client().chat.completions.create(**params)
        except openai.APITimeoutError:
            raise TransientFailure("timeout", f"no answer from {self.name}") from None
        except openai.APIConnectionError as exc:
            cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else "connection error"
            raise TransientFailure("connection", f"cannot connect to {self.endpoint} ({cause})") from None
        except openai.APIStatusError as exc:
            raise self._status_error(exc, request) from None
        except (json.JSONDecodeError, openai.APIResponseValidationError) as exc:
            raise LLMResponseError(f"{self.name}: unreadable response ({type(exc).__name__})") from None
        if isinstance(response, str):
            raise LLMResponseError(f"{self.name}: the server answered non-JSON text")
        return self._answer(response, request)

    def _status_error(self, exc: Any, request: GenerationRequest) -> Exception:
        code = int(exc.status_code)
        body = exc.body if isinstance(exc.body, dict) else {}
        message = redact(str(body.get("message") or exc.message))
        what = f"{self.name}: HTTP {code}: {message}"
        if code == 429:
            headers = exc.response.headers
            wait = parse_retry_after(headers.get("retry-after"))
            ms = headers.get("retry-after-ms")
            if ms is not None:
                with contextlib.suppress(ValueError):
                    wait = float(ms) / 1000
            return TransientFailure("rate_limit", f"HTTP 429: {message}", retry_after_s=wait)
        if code == 408:
            return TransientFailure("timeout", "HTTP 408")
        if code >= 500 or code == 409:
            return TransientFailure("server", f"HTTP {code}")
        if code in (401, 403):
            return LLMAuthError(f"{what} (check OPENAI_API_KEY or --api-key)")
        if code == 400 and request.n > 1 and (body.get("param") == "n" or _N_REFUSED.search(message)):
            return NSamplesRejected(message)
        if code in (400, 422) and request.shape is not None and _SHAPE_REFUSED.search(f"{body.get('param')} {message}"):
            return ShapeRefused(f"HTTP {code}: {message}")
        return LLMRequestError(what)

    def _answer(self, response: Any, request: GenerationRequest) -> ProviderAnswer:
        choices = sorted(response.choices or [], key=lambda c: c.index or 0)
        if not choices:
            raise LLMEmptyResponseError(f"{self.name}: the response holds no choices")
        texts = tuple((c.message.content or "") if c.message is not None else "" for c in choices)
        reasons = tuple(_FINISH.get(str(c.finish_reason), "other") for c in choices)
        u = response.usage
        prompt = (u.prompt_tokens or 0) if u is not None else 0
        output = (u.completion_tokens or 0) if u is not None else 0
        total = (u.total_tokens or 0) if u is not None else 0
        images = sum(openai_tokens(i.width, i.height, self.image_detail) for i in request.image_infos())
        if prompt:  # the estimate is a share of what the server counted, when it counted
            images = min(images, prompt)
        return ProviderAnswer(
            texts=texts,
            finish_reasons=reasons,
            usage=Usage(prompt, output, max(total, prompt + output), images),
            model=response.model or self.model,
        )


def strict_schema(schema: object) -> bool:
    """Whether ``schema`` keeps to the rules of OpenAI's strict structured outputs: an object at the root, and
    every object closed (``additionalProperties: false``) with all its properties required."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    return _strict(schema)


def _strict(node: object) -> bool:
    if not isinstance(node, dict):
        return True
    found = node.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    if node.get("type") == "object" and (node.get("additionalProperties") is not False
                                         or set(node.get("required") or ()) != set(properties)):
        return False
    children = [*properties.values(), *(node.get("anyOf") or ()), *([node["items"]] if "items" in node else [])]
    return all(_strict(child) for child in children)
