"""Untrusted text on the terminal: always plain, never markup or terminal control.

Screens, model answers, goals, labels and error messages reach the console. Passed to Rich as a
string they are parsed as markup: ``[/red]`` raises MarkupError (a run then dies before its end
record) and ``[link=...]`` renders a live link. Printed raw, an ESC sequence would drive the user's
terminal. Every such value goes through :func:`plain` (a Rich :class:`~rich.text.Text`, which Rich
never parses), :func:`safe_line` or :func:`echo` (for ``print``), or :func:`safe_json` (for JSON
printed whole), which also mask registered secrets.
"""

from __future__ import annotations

import sys
from typing import TextIO

from rich.text import Text

from latent_agent.llm.secrets import redact
from latent_agent.plain_text import CONTROL, visible_controls


def safe_line(text: object) -> str:
    """``text`` as a string fit for the terminal: control characters shown as ``\\xNN``, secrets masked."""
    return visible_controls(redact(str(text)))


def safe_json(text: str) -> str:
    """JSON text ``text`` fit for the terminal: control characters escaped as ``\\u00NN``, secrets masked.

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 controls but writes C1 controls (``\\x9b`` starts a
    terminal sequence too) and DEL as they are; the ``\\xNN`` form of :func:`safe_line` is no JSON escape,
    so the output would no longer parse. Controls only occur inside strings of JSON text, where this
    escape reads back as the same character.
    """
    return CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", redact(text))


def echo(text: object = "", *, file: TextIO | None = None) -> None:
    """``print`` for text holding anything untrusted: printed as :func:`safe_line` makes it."""
    print(safe_line(text), file=file if file is not None else sys.stdout)


def plain(text: object, style: str = "") -> Text:
    """``text`` as Rich plain text (no markup is read from it), cleaned by :func:`safe_line`."""
    return Text(safe_line(text), style=style)
