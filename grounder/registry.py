"""Grounders by name (``--grounder llm|hybrid``)."""

from __future__ import annotations

from collections.abc import Callable

from grounder.base import Grounder
from grounder.hybrid import HybridGrounder
from grounder.llm import LLMGrounder
from latent_agent.errors import ConfigError

#: Name -> factory. ``llm`` is the default for benchmarks.
GROUNDERS: dict[str, Callable[[], Grounder]] = {"llm": LLMGrounder, "hybrid": HybridGrounder}


def make_grounder(name: str) -> Grounder:
    """The grounder called ``name``.

    Raises:
        ConfigError: No such grounder.
    """
    try:
        return GROUNDERS[name]()
    except KeyError:
        raise ConfigError(f"unknown grounder {name!r}; choose one of {', '.join(GROUNDERS)}") from None
