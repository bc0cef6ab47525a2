"""The ``--llm`` options of a command, with the demo among their providers.

The LLM layer sits below the demo and cannot name it; the command line, above both, adds the demo to the
one provider registry. It does so when a command that takes ``--llm`` builds its parser, not when
``latent-agent`` starts: the demo's stand-ins import the LLM clients, which ``latent-agent --help`` and
the commands without an LLM do not need.
"""

from __future__ import annotations

import argparse

from latent_agent.demo.client import register as register_demo
from latent_agent.llm.spec import add_llm_arguments


def add_llm_options(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """Register the demo provider, then add ``--llm`` and its options (:func:`add_llm_arguments`)."""
    register_demo()
    add_llm_arguments(parser, required=required)
