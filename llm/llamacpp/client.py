"""The ``llamacpp`` provider's client: a llama.cpp server of its own, reached as an OpenAI-compatible one.

The server starts when the client is made (so a model that cannot be loaded stops the command before
any work) and stops when it is closed; a client used again after closing starts it again, like the
other clients reconnect. Everything else is :class:`~latent_agent.llm.openai_compat.OpenAICompatClient`:
discovery reads the window from ``/props``, prompts are counted by the server's tokenizer, and ``n``
samples are ``n`` requests (llama.cpp refuses ``n`` with one slot and undercounts its usage with more).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from latent_agent.llm.llamacpp import process
from latent_agent.llm.llamacpp.options import ServerOptions
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.retry import call_with_retries
from latent_agent.llm.types import GenerationRequest, ProviderAnswer


class LlamaCppClient(OpenAICompatClient):
    """A client that owns a llama.cpp server for ``model_path``.

    Args:
        model_path: The GGUF file.
        name: The model's name in messages and records (default: the file's stem).
        options: How to run the server.
        **client_kwargs: Passed to :class:`LLMClient`. However many clients share the server, at most one
            request per slot runs at a time (:class:`~latent_agent.llm.llamacpp.process.SlotGate`): no request
            waits in the server's queue while its timeout runs.

    Raises:
        ConfigError: ``xllamacpp`` is missing or the model cannot be loaded.
        LLMUnavailableError: The server did not answer in time.
    """

    provider = "llamacpp"

    def __init__(self, model_path: Path, *, name: str | None = None, options: ServerOptions | None = None,
                 **client_kwargs: Any) -> None:
        self.model_path = model_path
        self.options = options or ServerOptions()
        client_kwargs["max_native_n"] = 1
        server = process.acquire(model_path, self.options)
        try:
            super().__init__(name or model_path.stem, api_key=server.api_key, base_url=server.base_url,
                             discover_server=True, **client_kwargs)
        except BaseException:
            process.release(server)
            raise
        self.server: process.LlamaCppServer | None = server

    def _prepare(self) -> None:
        if self.server is None:  # closed before: start again
            server = process.acquire(self.model_path, self.options)
            self.server = server
            self.base_url = server.base_url
            self._api_key = server.api_key  # a new server has a key of its own
            self._sdk = None  # bound to the old server's address
            self.server_profile = None
        super()._prepare()

    async def _attempts(self, request: GenerationRequest) -> tuple[ProviderAnswer, int]:
        self._prepare()
        server = self.server
        assert server is not None  # _prepare started it
        return await call_with_retries(lambda: self._call(request), self.retry, what=self.name, rng=self._rng,
                                       sleep=self._sleep, gate=server.slots)

    def close(self) -> None:
        """Close the connections, then stop the server (unless another client shares it)."""
        try:
            super().close()
        finally:
            server, self.server = self.server, None
            if server is not None:
                process.release(server)
