"""One short call that shows whether an LLM answers: ``latent-agent llm ping`` and a sweep's preflight."""

from __future__ import annotations

from latent_agent.llm.base import LLMClient
from latent_agent.llm.types import Completion, GenerationRequest
from latent_agent.purposes import call_kind

#: What a ping asks; any answer will do.
PING_PROMPT = "Reply with the single word: pong"
#: The most tokens a ping's answer may take.
PING_CAP = 64
#: The purpose a ping declares (scripted stand-ins answer it without reading the prompt): any answer will do.
PING_PURPOSE = call_kind("ping", cap=PING_CAP, summary="``latent-agent llm ping`` and a sweep's preflight: any answer "
                         "will do, in a few tokens")


def ping(client: LLMClient, prompt: str = PING_PROMPT) -> Completion:
    """Send one short prompt and return the answer.

    Raises:
        LLMError: The model did not answer (connection, key, model name, retries spent).
    """
    request = GenerationRequest(prompt=prompt, temperature=0.0, max_output_tokens=PING_CAP, purpose=PING_PURPOSE,
                                inputs={"prompt": prompt})
    return client.generate_sync(request)
