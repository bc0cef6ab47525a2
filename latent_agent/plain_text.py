"""Untrusted text made inert for where it is read: a terminal, or a Markdown file.

A label, a goal, a model's answer or a name from a copied folder can hold terminal control (``ESC]0;...BEL``
retitles the window, ``ESC[2J`` clears it) and markup (``<script>``, ``[x](javascript:...)``). Printed or
written as it is, it would act instead of being read. :func:`visible_controls` shows every control
character as ``\\xNN`` (the terminal's helper, :mod:`latent_agent.cli.plain`, adds the masking of secrets);
:func:`markdown_text` also makes the text one line of Markdown that renders as the characters written.
"""

from __future__ import annotations

import re

#: C0 and C1 control characters and DEL, except newline and tab (kept: they only lay text out).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: What Markdown reads as markup that matters: raw HTML and entities (``<``, ``>``, ``&``), links and images
#: (``[``, ``]``), code spans, the table's cell separator, and the escape character itself. Emphasis
#: (``*``, ``_``) is left alone: it cannot run or fetch anything, and task ids are full of ``_``.
_MARKDOWN = re.compile(r"[\\`<>&\[\]|]")


def _shown(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def visible_controls(text: str) -> str:
    """``text`` with every control character but newline and tab shown as ``\\xNN``."""
    return CONTROL.sub(_shown, text)


def markdown_text(text: str) -> str:
    """``text`` as inline Markdown that renders as written: on one line (newlines and tabs as spaces), control
    characters shown as ``\\xNN``, and HTML, links, code spans and table separators backslash-escaped."""
    flat = visible_controls(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
    return _MARKDOWN.sub(lambda m: "\\" + m.group(), flat)
