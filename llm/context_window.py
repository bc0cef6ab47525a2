"""A prompt that does not fit the server's context window is refused before it is sent.

Servers differ in what they do with such a prompt: llama.cpp answers 400, Ollama cuts it silently to
its window and answers about what is left. Both lose the call; the second also hides it. So a client
that knows the window (:mod:`latent_agent.llm.discovery`) counts the prompt first, with the server's
own tokenizer where it has one (llama.cpp: ``/apply-template`` then ``/tokenize``), else the ``o200k``
estimate (:func:`estimate_tokens`), and adds the call's output cap: the window must hold both.
"""

from __future__ import annotations

import functools
from typing import Any

from latent_agent.errors import LLMContextWindowError
from latent_agent.llm.discovery import Http, ServerProfile, server_root
from latent_agent.llm.types import GenerationRequest

#: Tokens a chat template adds around each message (role markers), in the estimate.
MESSAGE_OVERHEAD = 4
#: Tokens a chat template adds once (the assistant's turn marker), in the estimate.
REPLY_OVERHEAD = 3


@functools.cache
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def estimate_tokens(request: GenerationRequest) -> int:
    """The prompt's size in ``o200k_base`` tokens, with the template's markers (images not counted)."""
    encoding = _encoding()
    chat = request.chat()
    text = sum(len(encoding.encode(m.text, disallowed_special=())) for m in chat)
    return text + MESSAGE_OVERHEAD * len(chat) + REPLY_OVERHEAD


async def server_tokens(base_url: str, request: GenerationRequest, headers: dict[str, str] | None = None) -> int | None:
    """The prompt's size as llama.cpp counts it (its chat template applied), or None if it cannot say."""
    root = server_root(base_url)
    http = Http(headers)
    messages = [{"role": m.role, "content": m.text} for m in request.chat()]
    try:
        templated = await http.json("POST", f"{root}/apply-template", {"messages": messages})
        if not isinstance(templated, dict):
            return None
        tokens = await http.json("POST", f"{root}/tokenize", {"content": templated["prompt"], "add_special": True,
                                                              "parse_special": True})
        return len(tokens["tokens"]) if isinstance(tokens, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


async def check_fits(name: str, base_url: str, profile: ServerProfile, request: GenerationRequest,
                     headers: dict[str, str] | None = None) -> None:
    """Refuse ``request`` when its prompt and output cap exceed ``profile``'s window (no window: nothing to check).

    Raises:
        LLMContextWindowError: It does not fit; the message names the call, both sizes and the fix.
    """
    window = profile.context_window
    if window is None:
        return
    counted = await server_tokens(base_url, request, headers) if profile.tokenizer == "server" else None
    prompt = counted if counted is not None else estimate_tokens(request)
    how = "counted by the server" if counted is not None else "o200k estimate"
    cap = request.max_output_tokens or 0
    if prompt + cap <= window:
        return
    purpose = request.purpose or "request"
    needs = f"{prompt} prompt tokens ({how})" + (f" + {cap} output cap" if cap else "")
    raise LLMContextWindowError(
        f"{name}: the {purpose} call needs {needs} = {prompt + cap} tokens, more than the server's context "
        f"window of {window} tokens ({profile.server}, {profile.context_source}); nothing was sent. Give the "
        "server a larger window (--llm-ctx with --llm llamacpp, or the server's own setting)",
        purpose=purpose, prompt_tokens=prompt, output_tokens=cap, window=window,
    )
