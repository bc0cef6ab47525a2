"""What a provider's model allows, read from ``llm/models.json``.

Kept as data so that a new model needs a table row, not a code branch.
"""

from __future__ import annotations

import fnmatch
import functools
import json
from dataclasses import dataclass
from importlib import resources

from latent_agent.errors import ConfigError, LLMRequestError
from latent_agent.llm.types import GenerationRequest

MODELS_SCHEMA = "latent-agent/llm-models"


@dataclass(frozen=True, slots=True)
class ModelCapabilities:
    """Per-model request options.

    Attributes:
        max_native_n: Most samples one request may ask for; 1 means parallel calls.
        max_tokens_field: Name of the output-token cap in OpenAI-style requests.
        images: Whether the model takes images in its input. Unlisted models are assumed to (an
            OpenAI-compatible server then says itself if it does not); known text-only ones are listed.
        thinking_tokens: Output tokens the model may spend thinking before it answers, counted against the
            same output cap (Gemini 2.5 and later, OpenAI's reasoning models): :meth:`output_cap` adds them
            to the cap a caller asks for, which bounds the answer, so thinking never leaves it empty.
    """

    max_native_n: int = 1
    max_tokens_field: str = "max_tokens"
    images: bool = True
    thinking_tokens: int = 0

    def output_cap(self, asked: int | None) -> int | None:
        """The output cap to send for an answer capped at ``asked`` tokens (None: no cap)."""
        return asked + self.thinking_tokens if asked is not None else None


@functools.cache
def _table() -> tuple[tuple[str, str, ModelCapabilities], ...]:
    try:
        data = json.loads(resources.files("latent_agent.llm").joinpath("models.json").read_text(encoding="utf-8"))
        if data.get("schema") != MODELS_SCHEMA or data.get("version") != 1:
            raise ValueError(f"expected schema {MODELS_SCHEMA} version 1")
        return tuple(
            (
                str(row["provider"]),
                str(row["pattern"]),
                ModelCapabilities(
                    max_native_n=int(row.get("max_native_n", 1)),
                    max_tokens_field=str(row.get("max_tokens_field", "max_tokens")),
                    images=_flag(row.get("images", True), "images"),
                    thinking_tokens=int(row.get("thinking_tokens", 0)),
                ),
            )
            for row in data["models"]
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"llm/models.json: {exc}") from exc


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def check_images(provider: str, model: str, request: GenerationRequest) -> None:
    """Refuse, before anything is sent, a request with images to a model that takes none.

    Raises:
        LLMRequestError: ``request`` carries images and ``models.json`` lists ``model`` as text-only.
    """
    images = request.image_infos()
    if images and not capabilities(provider, model).images:
        raise LLMRequestError(
            f"{provider} {model} takes no images (llm/models.json lists it as text-only), but this "
            f"{request.purpose or 'request'} call carries {len(images)}; use a multimodal model or send text only"
        )


def capabilities(provider: str, model: str) -> ModelCapabilities:
    """Capabilities of ``model`` at ``provider`` (conservative defaults when unlisted)."""
    name = model.removeprefix("models/")
    for prov, pattern, caps in _table():
        if prov == provider and fnmatch.fnmatchcase(name, pattern):
            return caps
    return ModelCapabilities()
