"""Embedders by name: ``--embedder NAME[:MODEL]`` and the table that builds them.

Adding an embedder is one :func:`register_embedder` call (or one entry in :data:`EMBEDDERS`); nothing
else names embedders. The default, :data:`DEFAULT_EMBEDDER`, needs no network and no download.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from latent_agent.errors import ConfigError
from latent_agent.llm.embed.base import Embedder, EmbedderInfo
from latent_agent.llm.embed.gemini import GeminiEmbedder
from latent_agent.llm.embed.hashing import HashingEmbedder
from latent_agent.llm.embed.minilm import MiniLMEmbedder

DEFAULT_EMBEDDER = "minilm"


@dataclass(frozen=True, slots=True)
class EmbedderOptions:
    """What some embedders need besides their model.

    Attributes:
        api_key: The provider key given on the command line (else the entry's environment variables).
        base_url: Endpoint override (a proxy or a local stand-in).
    """

    api_key: str | None = None
    base_url: str | None = None


@dataclass(frozen=True, slots=True)
class EmbedderEntry:
    """How to build one registered embedder.

    Attributes:
        build: ``(model, options, key) -> Embedder``; ``key`` is the API key found, if any.
        default_model: The model a bare ``--embedder NAME`` means.
        summary: One line for ``--help``.
        key_env: Environment variables the API key is read from, in order.
    """

    build: Callable[[str, EmbedderOptions, str | None], Embedder]
    default_model: str
    summary: str
    key_env: tuple[str, ...] = ()

    @property
    def sends_key(self) -> bool:
        """Whether it sends the texts to a service with an API key (found in :attr:`key_env` unless given)."""
        return bool(self.key_env)


def _minilm(model: str, options: EmbedderOptions, key: str | None) -> Embedder:

    return MiniLMEmbedder(model)


def _gemini(model: str, options: EmbedderOptions, key: str | None) -> Embedder:

    return GeminiEmbedder(model, api_key=key, base_url=options.base_url)


def _hash(model: str, options: EmbedderOptions, key: str | None) -> Embedder:

    return HashingEmbedder(model)


#: Embedder name -> how to build it (:func:`register_embedder` adds more).
EMBEDDERS: dict[str, EmbedderEntry] = {
    "minilm": EmbedderEntry(_minilm, "all-MiniLM-L6-v2-int8",
                            "all-MiniLM-L6-v2 on onnxruntime, offline (the default)"),
    "gemini": EmbedderEntry(_gemini, "gemini-embedding-001", "Gemini embeddings (GEMINI_API_KEY)",
                            ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
    "hash": EmbedderEntry(_hash, "256", "hashed bag of words, no model (tests; shared words only)"),
}


def register_embedder(name: str, entry: EmbedderEntry) -> None:
    """Add ``entry`` under ``name`` (registering the same entry again is harmless).

    Raises:
        ConfigError: ``name`` is taken by another entry.
    """
    if EMBEDDERS.get(name, entry) != entry:
        raise ConfigError(f"embedder {name!r} is registered already")
    EMBEDDERS[name] = entry


def parse_embedder_spec(text: str) -> tuple[str, str]:
    """``NAME[:MODEL]`` as ``(name, model)``, the entry's default model when none is given.

    Raises:
        ConfigError: Unknown name or an empty model, with the names known.
    """
    name, sep, model = text.strip().partition(":")
    entry = EMBEDDERS.get(name)
    if entry is None:
        raise ConfigError(f"--embedder {text!r}: unknown embedder {name!r}; expected one of {sorted(EMBEDDERS)}")
    if sep and not model:
        raise ConfigError(f"--embedder {text!r}: nothing after ':' (e.g. {name}:{entry.default_model})")
    return name, model or entry.default_model


def user_only(spec: str) -> str | None:
    """What an embedder spec read from a file (a memory's manifest, a resumed sweep's) names that only the user's
    command line may choose, in words: an embedder that sends the texts with the user's API key; None otherwise.

    Raises:
        ConfigError: A bad spec.
    """
    name, model = parse_embedder_spec(spec)
    entry = EMBEDDERS[name]
    return (f"the embedder {name}:{model}, which sends texts with your API key ({' or '.join(entry.key_env)})"
            if entry.sends_key else None)


def load_embedder(spec: str | EmbedderInfo = DEFAULT_EMBEDDER, options: EmbedderOptions | None = None) -> Embedder:
    """Build the embedder ``spec`` names (an ``--embedder`` text, or the info a memory recorded).

    The info a memory recorded comes from a file: an embedder that sends texts with the user's API key is
    built from it only when the command line gave that embedder's key or endpoint (else ``--embedder``
    names it, and the spec is that text).

    Raises:
        ConfigError: Bad spec, the embedder's packages are missing, or a memory's own embedder sends the
            user's key and the command line did not confirm it.
        LLMAuthError: A remote embedder has no API key.
    """
    options = options or EmbedderOptions()
    name, model = parse_embedder_spec(spec.spec if isinstance(spec, EmbedderInfo) else spec)
    entry = EMBEDDERS[name]
    if isinstance(spec, EmbedderInfo) and options.api_key is None and options.base_url is None:
        chosen = user_only(spec.spec)
        if chosen is not None:
            raise ConfigError(f"the memory names {chosen}; only your command line chooses that: pass --embedder "
                              f"{spec.spec} to confirm it")
    key = options.api_key or next((os.environ[v] for v in entry.key_env if os.environ.get(v)), None)
    embedder = entry.build(model, options, key)
    if isinstance(spec, EmbedderInfo) and embedder.info != spec:
        raise ConfigError(f"--embedder {spec.spec} makes vectors of dimension {embedder.info.dimension}, "
                          f"the memory's have {spec.dimension}")
    return embedder


def embedder_help() -> str:
    """``--embedder`` help: every registered name and what it is."""
    listed = "; ".join(f"{name}[:MODEL] - {e.summary}" for name, e in EMBEDDERS.items())
    return f"text embedder (default {DEFAULT_EMBEDDER}): {listed}"
