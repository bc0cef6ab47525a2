"""Ctrl-C said once: a command that has told the user what an interruption left raises :class:`Reported`.

The entry point (:mod:`latent_agent.cli.main`) prints ``latent-agent: interrupted`` for a bare
``KeyboardInterrupt``; a command whose own line already said it (and what is kept, and how to go on) raises
:class:`Reported` instead, so the user reads one line, not two.
"""

from __future__ import annotations


class Reported(KeyboardInterrupt):
    """An interruption the command has already reported in its own words (the exit status is still 130)."""
