"""A scripted model behind a local protocol stand-in, asked through the provider's real SDK.

:class:`StandInClient` starts a stand-in (:mod:`latent_agent.demo.standins.gemini` or
:mod:`~latent_agent.demo.standins.openai`) that answers from a
:class:`~latent_agent.llm.scripted.ScriptedModel`, and reaches it through the real SDK client
(:class:`~latent_agent.llm.gemini.GeminiClient` or
:class:`~latent_agent.llm.openai_compat.OpenAICompatClient`), so every call goes over HTTP as a
provider's would. The scripted model answers from each call's purpose and inputs: the client posts
each request on the stand-in's :class:`~latent_agent.demo.standins.board.CallBoard` while it is in
flight, and the stand-in reads it back in-process; the SDK sends only what a provider reads.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from latent_agent.demo.standins.board import CallBoard
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import StandInServer
from latent_agent.errors import ConfigError
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import Completion, GenerationRequest

Protocol = Literal["gemini", "openai"]


class StandInClient(LLMClient):
    """``scripted`` behind a local stand-in, asked through a real SDK client.

    The stand-in starts with the client and stops when it is closed (it starts again if the
    client is used after that). Budget, accounting and recording are this client's (the
    inner SDK client has none), so a call is counted once.

    Args:
        scripted: Produces the answers (its responder reads each request's purpose and inputs).
        protocol: The stand-in's protocol and the SDK that reaches it.
        delay_s: Latency the stand-in adds to every answer.
        model: The model name asked for and reported.
        **client_kwargs: Passed to :class:`LLMClient` (retry, max_concurrency, budget, accountant,
            recorder); the retry policy and concurrency also shape the inner SDK client.
    """

    provider: ClassVar[str] = "stand-in"

    def __init__(self, scripted: ScriptedModel, *, protocol: Protocol = "gemini", delay_s: float = 0.0,
                 model: str = "scripted", **client_kwargs: Any) -> None:
        if protocol not in PROTOCOLS:
            raise ConfigError(f"a stand-in speaks {' or '.join(PROTOCOLS)}, not {protocol!r}")
        if delay_s < 0:
            raise ConfigError(f"a stand-in's latency must be >= 0 seconds, got {delay_s:g}")
        super().__init__(model, **client_kwargs)
        self.scripted = scripted
        self.protocol = protocol
        self.delay_s = delay_s
        self.board = CallBoard()
        self._lock = threading.Lock()
        self._server: StandInServer | None = None
        self._inner: LLMClient | None = None
        self._start()

    @property
    def server(self) -> StandInServer | None:
        """The running stand-in (None once closed)."""
        return self._server

    def _start(self) -> LLMClient:
        """The inner SDK client, starting the stand-in first when it is not running."""
        with self._lock:
            if self._server is not None and self._inner is not None:
                return self._inner
            key = "local-" + secrets.token_hex(8)
            common: dict[str, Any] = {"retry": self.retry, "max_concurrency": self.max_concurrency}
            server, inner = PROTOCOLS[self.protocol].connect(self, key, common)
            self._server, self._inner = server, inner
            return inner

    async def _complete(self, request: GenerationRequest, start: float) -> Completion:
        inner = self._start()
        with self.board.posted(request):
            return await inner.generate(request)

    async def _aclose_backend(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()

    def close(self) -> None:
        """Close the SDK connections and stop the stand-in."""
        super().close()
        with self._lock:
            inner, server = self._inner, self._server
            self._inner = self._server = None
        if inner is not None:
            inner.close()
        if server is not None:
            server.stop()


def _gemini(client: StandInClient, key: str, common: dict[str, Any]) -> tuple[StandInServer, LLMClient]:
    server = GeminiStandIn(client.scripted, api_key=key, delay_s=client.delay_s, board=client.board).start()
    return server, GeminiClient(client.model, api_key=key, base_url=server.url, **common)


def _openai(client: StandInClient, key: str, common: dict[str, Any]) -> tuple[StandInServer, LLMClient]:
    server = OpenAIStandIn(client.scripted, api_key=key, delay_s=client.delay_s, board=client.board).start()
    # The stand-in speaks OpenAI's API: its client asks it nothing, as it asks api.openai.com nothing.
    return server, OpenAICompatClient(client.model, api_key=key, base_url=server.base_url, discover_server=False,
                                      **common)


@dataclass(frozen=True, slots=True)
class StandInProtocol:
    """One protocol a stand-in speaks.

    Attributes:
        label: Its provider's name, for messages (``Gemini``).
        sdk: The SDK that reaches it, for messages (``google-genai``).
        server: The stand-in server speaking it.
        connect: How a client starts its stand-in (with this key) and the SDK client that reaches it.
    """

    label: str
    sdk: str
    server: type[StandInServer]
    connect: Callable[[StandInClient, str, dict[str, Any]], tuple[StandInServer, LLMClient]]


#: Every protocol a stand-in speaks, by name: the one table ``demo``, ``demo:openai`` and ``llm standin`` read.
PROTOCOLS: dict[str, StandInProtocol] = {
    "gemini": StandInProtocol("Gemini", "google-genai", GeminiStandIn, _gemini),
    "openai": StandInProtocol("OpenAI", "the openai SDK", OpenAIStandIn, _openai),
}
