"""The ``latent-agent`` command line.

Every error the project raises on purpose (:class:`LatentAgentError`) is shown
as one line on stderr with exit status 2; anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from latent_agent import __version__
from latent_agent.errors import LatentAgentError

#: Command modules under ``latent_agent.commands``, in the order ``--help`` lists them.
COMMANDS = ("annotate", "describe", "llm", "report", "run", "show", "sim", "sweep")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="latent-agent",
        description="An Android UI agent that estimates latent state, and its evaluation harness.",
    )
    parser.add_argument("--version", action="version", version=f"latent-agent {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"latent_agent.commands.{name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except LatentAgentError as exc:
        print(f"latent-agent: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("latent-agent: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
