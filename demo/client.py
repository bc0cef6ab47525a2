"""``--llm demo``: the scripted demo oracle behind a local Gemini stand-in, reached through google-genai.

Nothing leaves the machine: the stand-in listens on 127.0.0.1 and the key is a
random local token. The answers come from :class:`~latent_agent.demo.oracle.DemoOracle`,
a scripted stand-in that replays the sim suite's reference solutions - not a
language model.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from latent_agent.llm.base import LLMClient

#: The ``--llm`` value that selects the demo.
DEMO_SPEC = "demo"
#: The model name the demo reports.
DEMO_MODEL = "demo-oracle"
#: What the CLI prints so nobody mistakes the demo for a model.
DEMO_NOTICE = (
    "LLM: demo - a scripted stand-in (it replays the sim task's reference solution), not a language "
    "model; served by a local Gemini stand-in on 127.0.0.1 and reached through google-genai"
)


@contextmanager
def demo_client(*, delay_s: float = 0.0, **client_kwargs: Any) -> Iterator[LLMClient]:
    """A Gemini client talking to a local stand-in that answers with the demo oracle.

    Args:
        delay_s: Fixed latency the stand-in adds to every answer.
        **client_kwargs: Passed to :class:`~latent_agent.llm.gemini.GeminiClient` (budget, accountant, retry).
    """
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.demo.standins.gemini import GeminiStandIn
    from latent_agent.llm.gemini import GeminiClient
    from latent_agent.llm.scripted import ScriptedModel

    key = "local-" + secrets.token_hex(8)
    model = ScriptedModel(responder=DemoOracle(), model=DEMO_MODEL)
    with GeminiStandIn(model, api_key=key, delay_s=delay_s) as server:
        client = GeminiClient(DEMO_MODEL, api_key=key, base_url=server.url, **client_kwargs)
        try:
            yield client
        finally:
            client.close()
