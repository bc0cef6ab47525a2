"""The subcommand registry: ``latent-agent --help`` imports no command module, and a command imports its own."""

from __future__ import annotations

import argparse
import subprocess
import sys

from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.main import build_parser, given_command

_LOADED = """
import sys
from latent_agent.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted(sys.modules)))
"""


def _loaded(*argv: str) -> set[str]:
    """The modules ``latent-agent ARGV`` imports."""
    done = subprocess.run([sys.executable, "-c", _LOADED, *argv], capture_output=True, text=True, timeout=120,
                          check=True)
    return set(done.stdout.split())


def _command_modules_loaded(*argv: str) -> set[str]:
    loaded = _loaded(*argv)
    return {name for name, command in COMMANDS.items() if command.module in loaded}


def test_help_and_a_wrong_command_import_no_command_module() -> None:
    assert _command_modules_loaded("--help") == set()
    assert _command_modules_loaded("no-such-command") == set()


def test_help_imports_neither_the_demo_nor_an_llm_client() -> None:
    loaded = _loaded("--help")
    assert not {"latent_agent.demo.client", "latent_agent.llm.openai_compat", "latent_agent.llm.gemini"} & loaded


def test_a_command_with_llm_options_offers_the_demo() -> None:
    loaded = _loaded("run", "--help")
    assert "latent_agent.demo.client" in loaded
    run = next(a for a in build_parser(["run"])._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    assert "demo" in " ".join(run.format_help().split())


def test_a_command_imports_its_module_only() -> None:
    assert _command_modules_loaded("describe", "--help") == {"describe"}
    assert _command_modules_loaded("sweep", "--no-such-option") == {"sweep"}


def test_every_command_is_added_by_its_module_with_the_registrys_line() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    assert {a.dest: a.help for a in sub._choices_actions} == {n: c.help for n, c in COMMANDS.items()}
    # Each is its module's whole parser, not the line alone.
    assert all(choice._actions[1:] for choice in sub.choices.values())


def test_the_help_lists_every_command_without_importing_it() -> None:
    text = build_parser([]).format_help()
    for name, command in COMMANDS.items():
        assert name in text and command.help[:40] in " ".join(text.split())


def test_the_given_command_is_the_first_word_that_is_not_an_option() -> None:
    assert given_command(["run", "--llm", "demo"]) == "run"
    assert given_command(["--version"]) is None
    assert given_command(["--help", "sweep"]) == "sweep"
    assert given_command(["rnu"]) is None
    assert given_command([]) is None
