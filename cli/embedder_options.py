"""The ``--embedder`` options (``run``, ``sweep``, ``memory``) and the options record they give."""

from __future__ import annotations

import argparse

from latent_agent.llm.embed.registry import DEFAULT_EMBEDDER, EmbedderOptions, embedder_help


def add_embedder_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--embedder`` (default :data:`~latent_agent.llm.embed.registry.DEFAULT_EMBEDDER`) and its endpoint and key
    (:func:`add_embedder_access`)."""
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER, metavar="NAME[:MODEL]", help=embedder_help())
    add_embedder_access(parser)


def add_embedder_access(parser: argparse.ArgumentParser) -> None:
    """Add ``--embedder-base-url`` and ``--embedder-api-key`` (what a remote embedder needs; never recorded)."""
    parser.add_argument("--embedder-base-url", metavar="URL", help="embedder endpoint override (proxy, stand-in)")
    parser.add_argument("--embedder-api-key", metavar="KEY",
                        help="embedder API key (prefer GEMINI_API_KEY / GOOGLE_API_KEY: command lines are visible)")


def embedder_options(args: argparse.Namespace) -> EmbedderOptions:
    """The :class:`~latent_agent.llm.embed.registry.EmbedderOptions` of :func:`add_embedder_options`."""
    return EmbedderOptions(api_key=args.embedder_api_key, base_url=args.embedder_base_url)
