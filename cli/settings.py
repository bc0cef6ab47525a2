"""The options of the episode settings, shared by ``run`` and ``sweep``, and the settings they give.

:func:`add_settings_arguments` adds one option per :class:`~latent_agent.agent.settings.EpisodeSettings`
field (its ``dest`` is the field's name), with no default: :func:`settings_from_args` tells an option
given from one left out, so a resumed sweep keeps its planned value where the option is not given again,
and a run or a new sweep gets the record's default.
"""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

from latent_agent.agent.methods import METHODS
from latent_agent.agent.policy import STOP_RULES
from latent_agent.agent.settings import DEFAULT_MAX_STEPS, DEFAULT_STOP_RULE, EpisodeSettings
from latent_agent.cli.embedder_options import add_embedder_access
from latent_agent.cli.resources import resources_from_args
from latent_agent.grounder.registry import DEFAULT_GROUNDER, GROUNDERS


def add_settings_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-steps``, ``--grounder``, ``--stop-rule``, ``--name-icons``, one option per resource a registered
    method reads (``--memory``, ``--embedder``, ``--demos``, ...: :attr:`Method.resources
    <latent_agent.agent.methods.Method.resources>`) and the embedder's endpoint and key, none with a default (read by
    :func:`settings_from_args`)."""
    parser.add_argument("--max-steps", type=int, metavar="N",
                        help=f"step limit per episode (default: {DEFAULT_MAX_STEPS})")
    parser.add_argument("--grounder", choices=list(GROUNDERS),
                        help=f"{DEFAULT_GROUNDER} (default): the method's grounder (leaf elements, one call, no "
                             "validation); paper-history: the same, shown its earlier actions; llm: checked against "
                             "the element list, one retry; hybrid: rules for unambiguous steps, else llm")
    parser.add_argument("--stop-rule", choices=list(STOP_RULES),
                        help=f"when a '-' agent stops: {DEFAULT_STOP_RULE} (default; 'done' anywhere in the chosen "
                             "action, the method's rule) or strict (the action is only 'done' / 'You should be "
                             "done.')")
    parser.add_argument("--name-icons", action="store_true", default=None,
                        help="with --observation screen or both: name the unlabelled icons of each screenshot by one "
                             "multimodal LLM call per step")
    for resource in dict.fromkeys(r for method in METHODS.values() for r in method.resources):
        parser.add_argument(resource.option, dest=resource.name, type=Path if resource.path else str,
                            metavar=resource.metavar, help=resource.help)
    add_embedder_access(parser)


def settings_from_args(args: argparse.Namespace, planned: EpisodeSettings | None = None) -> EpisodeSettings:
    """The settings the options of :func:`add_settings_arguments` give: each one given, else the ``planned`` one
    (a resumed sweep's), else the default.

    Raises:
        ConfigError: A bad value, or a method resource that differs from the planned one
            (:meth:`EpisodeSettings.merged`).
    """
    given = {f.name: getattr(args, f.name) for f in fields(EpisodeSettings) if f.name != "resources"}
    return (planned or EpisodeSettings()).merged({**given, "resources": resources_from_args(args)})
