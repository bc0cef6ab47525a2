"""Test-only stand-ins of local OpenAI-compatible servers: what they say about themselves, and how they refuse.

:class:`LlamaCppStandIn` answers like llama.cpp's server as recorded with Qwen2.5-Coder-0.5B
(``../shared/data/real_model_runs/``): ``n > 1`` refused with llama.cpp's own 400 body (no ``param``),
``GET /props`` with a context window and modalities, ``/apply-template`` and ``/tokenize`` (one token per
whitespace-separated word, so tests can size prompts exactly). :class:`DescribedStandIn` answers one other
server's self-description (Ollama, vLLM, LM Studio) next to the OpenAI API.
"""

from __future__ import annotations

from typing import Any

from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.demo.standins.server import Answer

#: llama.cpp's answer to ``n=8`` with one slot, word for word from the recorded CoT-SC run.
N_REFUSED = {"error": {"code": 400, "message": "Field 'n': Value must be between 1 <= value <= 1, but got {n}",
                       "type": "invalid_request_error"}}
#: Tokens the stand-in's chat template adds per message and once for the reply.
TEMPLATE_TOKENS_PER_MESSAGE = 2


class LlamaCppStandIn(OpenAIStandIn):
    """llama.cpp's server as the client meets it.

    Args:
        n_ctx: The window ``/props`` reports.
        vision: What ``/props`` ``modalities.vision`` says.
        **kwargs: See :class:`OpenAIStandIn` (``n_mode`` is llama.cpp's: refused; the shape fields are llama.cpp's).
    """

    def __init__(self, *args: Any, n_ctx: int = 4096, vision: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("dialect", "llama.cpp")
        super().__init__(*args, **kwargs)
        self.n_ctx = n_ctx
        self.vision = vision

    def respond(self, path: str, body: Any, authorized: bool) -> Answer:
        if path == "/props":
            return Answer(200, {"default_generation_settings": {"n_ctx": self.n_ctx, "params": {}},
                                "total_slots": 1, "modalities": {"vision": self.vision, "audio": False},
                                "build_info": "standin"})
        if path == "/apply-template":
            turns = [f"<{m['role']}> {m['content']}" for m in body["messages"]]
            return Answer(200, {"prompt": " ".join(turns) + " <assistant>"})
        if path == "/tokenize":
            return Answer(200, {"tokens": list(range(len(str(body["content"]).split())))})
        if path == "/v1/chat/completions" and authorized and int(body.get("n") or 1) > 1:
            error = N_REFUSED["error"]
            return Answer(400, {"error": {**error, "message": str(error["message"]).format(n=body["n"])}})
        return super().respond(path, body, authorized)


class DescribedStandIn(OpenAIStandIn):
    """The OpenAI API plus one server's description of itself at ``path`` (answered to GET and POST alike).

    Args:
        describe: Path -> the JSON answered there.
        **kwargs: See :class:`OpenAIStandIn`.
    """

    def __init__(self, *args: Any, describe: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.describe = describe

    def respond(self, path: str, body: Any, authorized: bool) -> Answer:
        if path in self.describe:
            return Answer(200, self.describe[path])
        return super().respond(path, body, authorized)
