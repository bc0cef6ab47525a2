"""A call's purpose and inputs as one HTTP header, for the scripted stand-ins.

The stand-in servers (:mod:`latent_agent.demo.standins`) answer from what a call is for and
the structured values its prompt was rendered from, never from the prompt's wording. A
client configured to (``call_metadata=True``) sends both in the :data:`CALL_HEADER` header;
the value is the JSON object ``{"purpose": ..., "inputs": {...}}``, zlib-compressed and
base64url-encoded, because header values must be ASCII on one line and a screen description
is long, multi-line Unicode text.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Mapping

from latent_agent.errors import LLMRequestError
from latent_agent.llm.types import GenerationRequest

#: The request header that carries the metadata.
CALL_HEADER = "X-Latent-Agent-Call"


def encode_call(request: GenerationRequest) -> str:
    """The header value for ``request``'s purpose and inputs."""
    data = json.dumps({"purpose": request.purpose, "inputs": dict(request.inputs)},
                      ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(zlib.compress(data.encode("utf-8"), 6)).decode("ascii")


def decode_call(value: str) -> tuple[str | None, dict[str, object]]:
    """``(purpose, inputs)`` from a header value :func:`encode_call` wrote.

    Raises:
        LLMRequestError: The value is not one :func:`encode_call` writes.
    """
    try:
        data = json.loads(zlib.decompress(base64.urlsafe_b64decode(value.encode("ascii"))))
    except (ValueError, zlib.error) as exc:
        raise LLMRequestError(f"unreadable {CALL_HEADER} header ({type(exc).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("inputs"), Mapping) \
            or not isinstance(data.get("purpose"), str | None):
        raise LLMRequestError(f"{CALL_HEADER} header: expected {{purpose, inputs}}")
    return data["purpose"], dict(data["inputs"])
