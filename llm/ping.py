"""One short call that shows whether an LLM answers: ``latent-agent llm ping`` and a sweep's preflight."""

from __future__ import annotations

from latent_agent.llm.base import LLMClient
from latent_agent.llm.types import Completion, GenerationRequest

#: What a ping asks; any answer will do.
PING_PROMPT = "Reply with the single word: pong"


def ping(client: LLMClient, prompt: str = PING_PROMPT) -> Completion:
    """Send one short prompt and return the answer.

    Raises:
        LLMError: The model did not answer (connection, key, model name, retries spent).
    """
    return client.generate_sync(GenerationRequest(prompt=prompt, temperature=0.0, max_output_tokens=64))
