"""The ``latent-agent`` command line.

Every error the project raises on purpose (:class:`LatentAgentError`) is shown
as one line on stderr, with the exit status its class names (2 for usage and
input, 3 when the LLM or a device failed, 4 for a paused sweep; see
:mod:`latent_agent.exit_codes`), and so are a mistake on the command line
(:mod:`latent_agent.cli.usage`) and a module of an optional extra that is not
installed (:mod:`latent_agent.extras`); anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from latent_agent import __version__
from latent_agent.cli.plain import safe_line
from latent_agent.cli.usage import OneLineParser
from latent_agent.demo.client import register as register_demo
from latent_agent.errors import LatentAgentError
from latent_agent.exit_codes import EPILOG, ExitCode
from latent_agent.extras import missing_extra

# The LLM layer sits below the demo and cannot name it; the command line, above both, adds the
# demo to the one provider registry.
register_demo()

#: Command modules under ``latent_agent.cli``, in the order ``--help`` lists them.
COMMANDS = ("annotate", "demos", "describe", "llm", "memory", "report", "run", "show", "sim", "sweep")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="latent-agent",
        description="An Android UI agent that estimates latent state, and its evaluation harness.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"latent-agent {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"latent_agent.cli.{name}")
        module.add_parser(sub)
    _mark_leaves(parser)
    return parser


def _mark_leaves(parser: argparse.ArgumentParser) -> None:
    """Let every command that has no subcommands of its own name itself in the parsed arguments.

    ``parse_args`` reports an unknown option with the top-level usage; :func:`main` reports it
    with the usage of the (sub)command it was given to instead.
    """
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        parser.set_defaults(_leaf_parser=parser)
        return
    for action in subparsers:
        for child in dict.fromkeys(action.choices.values()):
            _mark_leaves(child)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        leaf: argparse.ArgumentParser = getattr(args, "_leaf_parser", parser)
        leaf.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return int(args.func(args))
    except LatentAgentError as exc:
        # The message may quote a screen, a model or a URL: shown without terminal control or secrets.
        print(f"latent-agent: error: {safe_line(exc)}", file=sys.stderr)
        return int(exc.exit_code)
    except ImportError as exc:
        # A command that needs an extra checks for it first; this catches one met on another path.
        missing = missing_extra(exc)
        if missing is None:
            raise
        print(f"latent-agent: error: {safe_line(missing)}", file=sys.stderr)
        return int(missing.exit_code)
    except KeyboardInterrupt:
        print("latent-agent: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
