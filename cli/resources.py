"""The method resources a run or sweep was given on the command line (``--memory``, ``--embedder``, ``--demos``)."""

from __future__ import annotations

import argparse

from latent_agent.agent.resources import MethodResources
from latent_agent.llm.embed.registry import embedder_options


def resources_from_args(args: argparse.Namespace) -> MethodResources:
    """The :class:`~latent_agent.agent.resources.MethodResources` named by ``args`` (keys stay out of records)."""
    # Absolute paths: a sweep's manifest records them, and a resume from another directory must match.
    return MethodResources(memory=args.memory.resolve() if args.memory else None, embedder=args.embedder,
                           demos=args.demos.resolve() if args.demos else None,
                           embedder_options=embedder_options(args))
