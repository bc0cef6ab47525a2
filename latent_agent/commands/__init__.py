"""Subcommands of the ``latent-agent`` CLI, one module each.

Each module defines ``add_parser(subparsers)`` which registers the command and
sets ``func`` to a ``run(args) -> int`` callable. Heavy imports happen inside
``run`` so that ``latent-agent --help`` stays fast.
"""
