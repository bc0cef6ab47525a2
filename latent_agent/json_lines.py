"""Splitting a JSON-lines file into its records' lines.

Records are written one a line, ended by ``"\\n"``, with their text unescaped (``ensure_ascii=False``), so a
value may hold characters that :meth:`str.splitlines` also takes for line ends (``\\x85``, ``\\u2028``,
``\\x0b``, ...): an error text or a model's answer holding one would split its record in two and make the
file unreadable. Only ``"\\n"`` ends a record here.
"""

from __future__ import annotations


def record_lines(text: str) -> list[str]:
    """The lines of a JSON-lines text, split at ``"\\n"`` only (a ``"\\r"`` before it is dropped).

    A final empty piece (the text ended with its last record's newline) is not a line.
    """
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines
