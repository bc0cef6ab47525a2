"""A misspelled name answered with the closest registered ones: ``unknown method 'zero-shot'; did you mean ...``.

The command line's one-line errors (:mod:`latent_agent.cli.usage`) and the parsers of comma-separated
lists of registered names (``--methods``) answer a wrong name the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

#: How many close values a wrong one is answered with.
CLOSE_VALUES = 2


def closest(value: str, choices: Iterable[str]) -> list[str]:
    """The values of ``choices`` closest to ``value`` (a misspelling, or a name without its ``+``/``-``)."""
    names = [str(c) for c in choices]
    close = difflib.get_close_matches(value, names, n=CLOSE_VALUES, cutoff=0.6)
    # A prefix ("zero-shot" of "zero-shot+") is closer than any ratio says.
    prefixed = [n for n in names if n.startswith(value) and value]
    return list(dict.fromkeys([*prefixed, *close]))[:CLOSE_VALUES]


def unknown_value(what: str, value: str, choices: Sequence[str]) -> str:
    """``unknown WHAT 'x'; did you mean 'y'?`` (or, with nothing close, every value)."""
    close = closest(value, choices)
    if close:
        return f"unknown {what} {value!r}; did you mean {' or '.join(close)}?"
    return f"unknown {what} {value!r}; choose one of {', '.join(map(str, choices))}"
