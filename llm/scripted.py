"""The scripted model: queued replies, every request recorded.

One class serves every test and offline demo. Used directly it is an
:class:`~latent_agent.llm.base.LLMClient`; the stand-in servers in
:mod:`latent_agent.demo.standins` call :meth:`ScriptedModel.answer` to produce what
they send over HTTP, so the real SDKs can be driven by the same script.

A queued item is a text, a :class:`Reply` (text plus finish reason and token
counts) or an :class:`~latent_agent.errors.LLMError` instance, which is raised
(or, behind a stand-in, rendered as the provider's equivalent answer: a
safety block, an empty candidate list, a 400).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latent_agent.errors import ConfigError, LLMError, ScriptExhaustedError
from latent_agent.llm.base import ProviderClient
from latent_agent.llm.image_tokens import TokenRule, image_tokens
from latent_agent.llm.types import FinishReason, GenerationRequest, ProviderAnswer, Usage


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted sample.

    Attributes:
        text: The sample's text.
        finish_reason: Why it stopped.
        output_tokens: Tokens to report for it (None: estimated from the text).
    """

    text: str
    finish_reason: FinishReason = "stop"
    output_tokens: int | None = None


ScriptItem = str | Reply | LLMError
Responder = Callable[[GenerationRequest], "str | Reply"]


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token), for scripted usage figures."""
    return (len(text) + 3) // 4


def render(request: GenerationRequest) -> str:
    """The request's chat as plain text (``role: text`` lines, a user turn's images named after its role),
    as tests like to grep it."""
    if request.prompt is not None:
        return request.prompt
    return "\n".join(
        f"{m.role}" + "".join(f" [image {i.width}x{i.height} {i.mime}]" for i in m.image_infos()) + f": {m.text}"
        for m in request.messages
    )


class ScriptedModel(ProviderClient):
    """A model that answers from a script and records what it was asked.

    Args:
        replies: Items answered in order, one per sample.
        responder: Computes a reply from the request once the queue is empty.
        model: Name it reports.
        latency_s: Simulated think time of each call (0: none).
        keep_requests: Keep every request for :attr:`requests` (tests read them; a long-lived
            stand-in such as the demo's does not, so a sweep's memory does not grow with its calls).
        **client_kwargs: Passed to :class:`LLMClient` (budget, accountant, ...).
    """

    provider = "scripted"

    def __init__(
        self,
        replies: Iterable[ScriptItem] = (),
        *,
        responder: Responder | None = None,
        model: str = "scripted",
        latency_s: float = 0.0,
        keep_requests: bool = True,
        **client_kwargs: Any,
    ) -> None:
        client_kwargs.setdefault("max_native_n", 64)
        super().__init__(model, **client_kwargs)
        self.responder = responder
        self.latency_s = latency_s
        self.keep_requests = keep_requests
        self._count = 0
        self._lock = threading.Lock()
        self._queue: deque[ScriptItem] = deque(replies)
        self._requests: list[GenerationRequest] = []

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> ScriptedModel:
        """A model replying with the texts of a JSON file (a list of strings).

        Raises:
            ConfigError: The file is missing or not a JSON list of strings.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"scripted replies {path}: {exc}") from exc
        if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
            raise ConfigError(f"scripted replies {path}: expected a JSON list of strings")
        return cls(data, **kwargs)

    def queue(self, *items: ScriptItem) -> None:
        """Append replies to the script."""
        with self._lock:
            self._queue.extend(items)

    @property
    def pending(self) -> int:
        """Queued items not yet used."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> tuple[GenerationRequest, ...]:
        """Every request received, in order (once per request, whatever its ``n``); none unless ``keep_requests``."""
        with self._lock:
            return tuple(self._requests)

    @property
    def prompts(self) -> tuple[str, ...]:
        """Every request received, rendered as text."""
        return tuple(render(r) for r in self.requests)

    def answer(self, request: GenerationRequest) -> tuple[Reply, ...]:
        """Record ``request`` and return its ``n`` replies (thread-safe).

        Raises:
            LLMError: A queued error item came up.
            ScriptExhaustedError: The queue ran dry and there is no responder.
        """
        with self._lock:
            self._count += 1
            if self.keep_requests:
                self._requests.append(request)
            items: list[ScriptItem] = []
            while self._queue and len(items) < request.n:
                items.append(self._queue.popleft())
            if len(items) < request.n and self.responder is None:
                raise ScriptExhaustedError(
                    f"scripted model {self.model!r} has no reply left for request "
                    f"#{self._count}: {render(request)[:80]!r}"
                )
        # The responder runs outside the lock: concurrent requests must not queue behind it.
        while len(items) < request.n and self.responder is not None:
            items.append(self.responder(request))
        for item in items:
            if isinstance(item, LLMError):
                raise item
        return tuple(i if isinstance(i, Reply) else Reply(str(i)) for i in items)

    async def _call(self, request: GenerationRequest) -> ProviderAnswer:
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        replies = self.answer(request)
        return ProviderAnswer(
            texts=tuple(r.text for r in replies),
            finish_reasons=tuple(r.finish_reason for r in replies),
            usage=usage_of(request, replies),
            model=self.model,
        )


def usage_of(request: GenerationRequest, replies: Iterable[Reply], *, images: TokenRule = "gemini") -> Usage:
    """Estimated usage of scripted replies to ``request``, its images counted by the ``images`` rule."""
    pictures = sum(image_tokens(images, i.width, i.height) for i in request.image_infos())
    prompt = sum(estimate_tokens(m.text) for m in request.chat()) + pictures
    output = sum(r.output_tokens if r.output_tokens is not None else estimate_tokens(r.text) for r in replies)
    return Usage(prompt, output, prompt + output, pictures)
