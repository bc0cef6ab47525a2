"""Module docstrings as ``--help`` text: the reST markup they are written in, turned into plain text.

A command whose description is its module's docstring (sweep, report, memory, demos) would otherwise
show ````latent-agent sweep````, ``:func:`...``` and ``Example::`` to the person reading ``--help``.
"""

from __future__ import annotations

import re

# ``:func:`~latent_agent.x.y```, ``:class:`Name```: the name alone (after ``~``, its last part, as Sphinx shows it).
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
# The summary line's "``latent-agent sweep``: run ...": the usage line already names the command.
_COMMAND_HEAD = re.compile(r"\A``latent-agent [^`]*``:\s*")


def _role(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"


def plain_help(doc: str | None) -> str:
    """``doc`` as a command's description: literals in single backticks (as the other commands quote
    commands), roles reduced to their name, ``::`` to ``:``, and the summary line without the command's name.
    """
    text = (doc or "").strip("\n")
    head = _COMMAND_HEAD.match(text)
    if head is not None:
        rest = text[head.end():]
        text = rest[:1].upper() + rest[1:]
    text = _ROLE.sub(_role, text)
    text = _LITERAL.sub(r"`\1`", text)
    return re.sub(r"::$", ":", text, flags=re.M)
