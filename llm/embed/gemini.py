"""Gemini text embeddings through ``google-genai`` (``client.aio.models.embed_content``).

The SDK sends the Developer API's ``models/{model}:batchEmbedContents``; up to :data:`BATCH` texts go in
one request. The vectors are asked for at :data:`DEFAULT_DIMENSION` dimensions (Gemini's embedding models
shorten their vectors on request) with the ``SEMANTIC_SIMILARITY`` task type, and scaled to unit length
here because shortened vectors are not. As in :mod:`latent_agent.llm.gemini`, the SDK's own retries are off
and :mod:`latent_agent.llm.retry` decides; the key is registered as a secret so no message or log holds it.
The base URL can point at the local stand-in (:mod:`latent_agent.demo.standins.gemini`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pydantic

from latent_agent.errors import ConfigError, LLMAuthError, LLMRequestError, LLMResponseError
from latent_agent.llm.embed.base import Embedder, EmbedderInfo, Vectors, check_texts, normalise
from latent_agent.llm.retry import RetryPolicy, TransientFailure, call_with_retries
from latent_agent.llm.secrets import redact, register_secret, register_url

NAME = "gemini"
DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_DIMENSION = 768
#: Most texts the API takes in one ``batchEmbedContents`` request.
BATCH = 100
TASK_TYPE = "SEMANTIC_SIMILARITY"
_TRANSIENT = {429: "rate_limit", 408: "timeout", 500: "server", 502: "server", 503: "server", 504: "server"}


class GeminiEmbedder(Embedder):
    """Gemini embedding models (``gemini-embedding-001``).

    Args:
        model: The embedding model.
        api_key: The Gemini API key (never logged).
        base_url: Endpoint override (a proxy or the stand-in); None for Google's.
        dimension: Length of the vectors asked for.
        retry: Attempts, backoff and per-attempt timeout.

    Raises:
        LLMAuthError: No API key.
        ConfigError: A dimension below 1.
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, api_key: str | None, base_url: str | None = None,
                 dimension: int = DEFAULT_DIMENSION, retry: RetryPolicy | None = None) -> None:
        if not api_key:
            raise LLMAuthError(f"--embedder {NAME}:{model}: no API key; set GEMINI_API_KEY or GOOGLE_API_KEY")
        if dimension < 1:
            raise ConfigError(f"--embedder {NAME}:{model}: the dimension must be positive, got {dimension}")
        register_secret(api_key)
        register_url(base_url)
        self._api_key = api_key
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self._info = EmbedderInfo(NAME, model, dimension)

    @property
    def info(self) -> EmbedderInfo:
        return self._info

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Blocking :meth:`aembed`, run on its own event loop in a worker thread (safe inside a running loop)."""
        items = check_texts(texts)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.aembed(items)).result()

    async def aembed(self, texts: Sequence[str]) -> Vectors:
        from google import genai
        from google.genai import types

        items = check_texts(texts)
        out = np.zeros((len(items), self._info.dimension), dtype=np.float32)
        if not items:
            return out
        options = types.HttpOptions(base_url=self.base_url, timeout=max(1, int(self.retry.timeout_s * 1000)),
                                    retry_options=types.HttpRetryOptions(attempts=1))
        client = genai.Client(api_key=self._api_key, http_options=options)
        config = types.EmbedContentConfig(task_type=TASK_TYPE, output_dimensionality=self._info.dimension)
        try:
            for start in range(0, len(items), BATCH):
                chunk = items[start:start + BATCH]

                async def attempt(chunk: list[str] = chunk) -> Any:
                    return await self._request(client, chunk, config)

                response, _ = await call_with_retries(attempt, self.retry, what=f"{NAME} {self._info.model}")
                out[start:start + len(chunk)] = self._vectors(response, len(chunk))
        finally:
            await client.aio.aclose()
            client.close()
        return normalise(out)

    async def _request(self, client: Any, chunk: list[str], config: Any) -> Any:
        import httpx2
        from google.genai import errors as genai_errors

        try:
            return await client.aio.models.embed_content(model=self._info.model, contents=chunk, config=config)
        except genai_errors.APIError as exc:
            raise self._api_error(exc) from None
        except httpx2.TimeoutException as exc:
            raise TransientFailure("timeout", f"{type(exc).__name__} from {NAME}") from None
        except httpx2.TransportError as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            where = redact(self.base_url or "the Gemini API")
            raise TransientFailure("connection", f"cannot connect to {where} ({redact(detail)})") from None
        except (json.JSONDecodeError, pydantic.ValidationError) as exc:
            raise LLMResponseError(f"{NAME} embeddings: unreadable response ({type(exc).__name__})") from None

    def _api_error(self, exc: Any) -> Exception:
        code = int(getattr(exc, "code", 0) or 0)
        status = str(getattr(exc, "status", "") or "")
        message = redact(str(getattr(exc, "message", "") or ""))
        kind = _TRANSIENT.get(code)
        if kind is not None:
            return TransientFailure(kind, f"HTTP {code} {status}")  # type: ignore[arg-type]
        what = f"{NAME} embeddings ({self._info.model}): HTTP {code} {status}: {message}"
        details = json.dumps(getattr(exc, "details", None), default=str)
        if code in (401, 403) or "API_KEY_INVALID" in details:
            return LLMAuthError(f"{what} (check GEMINI_API_KEY / GOOGLE_API_KEY)")
        return LLMRequestError(what)

    def _vectors(self, response: Any, count: int) -> Vectors:
        embeddings = list(response.embeddings or [])
        if len(embeddings) != count:
            raise LLMResponseError(f"{NAME} embeddings: {len(embeddings)} vectors for {count} texts")
        rows = [list(e.values or []) for e in embeddings]
        bad = [len(r) for r in rows if len(r) != self._info.dimension]
        if bad:
            raise LLMResponseError(f"{NAME} embeddings: a vector of {bad[0]} values, "
                                   f"expected {self._info.dimension}")
        return np.asarray(rows, dtype=np.float32)
