"""What a provider's model allows, read from ``llm/models.json``.

Kept as data so that a new model needs a table row, not a code branch.
"""

from __future__ import annotations

import fnmatch
import functools
import json
from dataclasses import dataclass
from importlib import resources

from latent_agent.errors import ConfigError

MODELS_SCHEMA = "latent-agent/llm-models"


@dataclass(frozen=True, slots=True)
class ModelCapabilities:
    """Per-model request options.

    Attributes:
        max_native_n: Most samples one request may ask for; 1 means parallel calls.
        max_tokens_field: Name of the output-token cap in OpenAI-style requests.
    """

    max_native_n: int = 1
    max_tokens_field: str = "max_tokens"


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
                ),
            )
            for row in data["models"]
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"llm/models.json: {exc}") from exc


def capabilities(provider: str, model: str) -> ModelCapabilities:
    """Capabilities of ``model`` at ``provider`` (conservative defaults when unlisted)."""
    name = model.removeprefix("models/")
    for prov, pattern, caps in _table():
        if prov == provider and fnmatch.fnmatchcase(name, pattern):
            return caps
    return ModelCapabilities()
