"""The ``latent-agent`` command line: :func:`main` and one module per subcommand.

Each subcommand module defines ``add_parser(subparsers)``, which registers the command and sets
``func`` to a ``run(args) -> int`` callable.
"""

from latent_agent.cli.main import main

__all__ = ["main"]
