"""Command-line mistakes answered in one line, as every other error of the command line is.

argparse answers a wrong or missing argument with the command's whole usage block (13 lines for
``run``) and, for a value outside a list, every value of the list. :class:`OneLineParser` answers with
one line instead: what is wrong, the closest value when one is close, an example of what a missing
option takes, and the ``--help`` that shows the rest.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from latent_agent.exit_codes import ExitCode
from latent_agent.invocation import COMMAND, command_name
from latent_agent.suggest import unknown_value

#: What a required option takes, for the line that says it is missing.
EXAMPLES = {
    "--llm": "--llm demo (the offline stand-in, no key) or --llm gemini:gemini-2.5-flash",
    "--device": "--device sim (the simulated phone)",
    "--devices": "--devices 'sim*4'",
    "--out": "--out runs/NAME",
}

def missing_options(options: Sequence[str]) -> str:
    """``--llm is required, e.g. --llm demo ...`` for options left out, with an example of each."""
    verb = "is" if len(options) == 1 else "are"
    examples = [EXAMPLES[o] for o in options if o in EXAMPLES]
    return f"{' and '.join(options)} {verb} required" + (f", e.g. {'; '.join(examples)}" if examples else "")


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr, with the usage exit status (2).

    Subcommands' parsers are of the same class (argparse makes them of their parent's class).
    """

    def error(self, message: str) -> NoReturn:
        required = re.fullmatch(r"the following arguments are required: (.*)", message)
        if required:
            message = missing_options([o.strip() for o in required.group(1).split(",")])
        command = self.prog.removeprefix(COMMAND).strip()
        where = " ".join(p for p in (command_name(), command, "--help") if p)
        print(f"{COMMAND}: error: {message} ({where} shows every option)", file=sys.stderr)
        sys.exit(int(ExitCode.USAGE))

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            # The option's own name says what was asked for: "unknown method 'zero-shot'".
            what = ("command" if isinstance(action, argparse._SubParsersAction) or action.dest == argparse.SUPPRESS
                    else action.dest.replace("_", " "))
            raise argparse.ArgumentError(action, unknown_value(what, str(value), [str(c) for c in choices]))
