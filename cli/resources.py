"""The method resources a run or sweep was given on the command line (one option per declared resource:
``--memory``, ``--embedder``, ``--demos``, ...)."""

from __future__ import annotations

import argparse

from latent_agent.agent.resources import RESOURCES, MethodResources
from latent_agent.cli.embedder_options import embedder_options


def resources_from_args(args: argparse.Namespace) -> MethodResources:
    """The :class:`~latent_agent.agent.resources.MethodResources` named by ``args`` (keys stay out of records)."""
    # As typed, so a message about one names it as the user wrote it; a sweep's manifest records them absolute
    # (MethodResources.to_json), and a resume compares them resolved.
    return MethodResources.of({name: getattr(args, name, None) for name in RESOURCES}, embedder_options(args))
