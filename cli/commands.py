"""The subcommand registry: each ``latent-agent`` command, the module that implements it and its line in
``latent-agent --help``.

The command line imports a command's module (with :mod:`importlib`) only when that command is the one
given: :func:`latent_agent.cli.main.main` builds the parser of that command alone and lists the others by
their line here. A command module imports what it uses at its top, which for most of them is the agent,
the benchmarks and the devices, and for ``describe`` a token counter whose library builds every BPE
vocabulary when it is imported (about half a second); ``latent-agent --help``, a mistake in a command's
name and each command pay for their own imports only.

A command module defines ``add_parser(subparsers)``, which adds the command with its line from
:data:`COMMANDS` as ``help`` and sets ``func`` to a ``run(args) -> int`` callable.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One subcommand.

    Attributes:
        module: The module that adds its parser (``add_parser``) and runs it.
        help: Its line in ``latent-agent --help``.
    """

    module: str
    help: str


#: Every subcommand, in the order ``--help`` lists them.
COMMANDS: dict[str, Command] = {
    "annotate": Command("latent_agent.cli.annotate",
                        "export rating forms for a run, import raters' answers, score them"),
    "demos": Command("latent_agent.cli.demos", "build the CAAP method's demonstrations (with cached rationales)"),
    "describe": Command("latent_agent.cli.describe",
                        "describe a screen dump (uiautomator XML, Appium page source or AndroidEnv forest)"),
    "llm": Command("latent_agent.cli.llm", "check an LLM connection or serve a local stand-in"),
    "memory": Command("latent_agent.cli.memory", "build, inspect and query an exemplar memory"),
    "report": Command("latent_agent.cli.report", "write the Markdown/HTML report of a sweep directory"),
    "run": Command("latent_agent.cli.run", "run the agent on a goal (live view of each step)"),
    "show": Command("latent_agent.cli.show", "render an episode as a self-contained HTML page"),
    "sim": Command("latent_agent.cli.sim", "the simulated phone: show a screen, list its tasks, serve it over adb"),
    "sweep": Command("latent_agent.cli.sweep",
                     "run agent variants over a benchmark suite on a pool of devices (resumable)"),
}
