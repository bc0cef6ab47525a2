"""The ``latent-agent`` command line.

Every error the project raises on purpose (:class:`LatentAgentError`) is shown
as one line on stderr, with the exit status its class names (2 for usage and
input, 3 when the LLM or a device failed, 4 for a paused sweep; see
:mod:`latent_agent.exit_codes`), and so are a mistake on the command line
(:mod:`latent_agent.cli.usage`) and a module of an optional extra that is not
installed (:mod:`latent_agent.extras`); anything else is a bug and keeps its traceback.

Only the module of the command given is imported (the registry :mod:`latent_agent.cli.commands`), so
``latent-agent --help`` does not import what every command uses; a command that takes ``--llm`` adds the
demo to the LLM providers as it builds its parser (:mod:`latent_agent.cli.llm_options`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Collection, Sequence

from latent_agent import __version__
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.interrupted import Reported
from latent_agent.cli.plain import safe_line
from latent_agent.cli.usage import OneLineParser
from latent_agent.errors import LatentAgentError
from latent_agent.exit_codes import EPILOG, ExitCode
from latent_agent.extras import missing_extra


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``latent-agent`` parser.

    Args:
        commands: The commands whose modules are imported to add their whole parsers (all when None); the
            others are listed by their line in :data:`~latent_agent.cli.commands.COMMANDS` only.
    """
    parser = OneLineParser(
        prog="latent-agent",
        description="An Android UI agent that estimates latent state, and its evaluation harness.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"latent-agent {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        if commands is None or name in commands:
            importlib.import_module(command.module).add_parser(sub)
        else:
            sub.add_parser(name, help=command.help)
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


def given_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, if it names one: its first word that is not an option (the top-level
    options take no value)."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    given = given_command(sys.argv[1:] if argv is None else argv)
    # Only the given command's module is imported; without one, --help and the error list them all.
    parser = build_parser([given] if given is not None else [])
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
    except KeyboardInterrupt as exc:
        if not isinstance(exc, Reported):
            print("latent-agent: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
