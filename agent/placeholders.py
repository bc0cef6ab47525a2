"""The placeholders of a prompt's step vocabulary, and answers that copy them instead of filling them in.

The planner and action-generation prompts list the steps a model may write, with placeholders to fill
in (``Tap "label"``, ``Type "text"``, ``Open the NAME app``). A small model answered with that list
itself, and ``Open the NAME app`` was grounded and executed. An answer holding a placeholder is a copy
of the instructions, not a plan: none of its lines can be trusted, so the method records it as
unparsable (the raw answer stays in the call's record).

The placeholders are read from the templates' own vocabulary lists (the ``- `` lines under "The steps
you may use:"), so a template that renames one is followed without a second list to keep in step:
a quoted lower-case word (``"label"``) or a capitalised word inside a longer step (``NAME``; not
``DONE``, which is a whole step).
"""

from __future__ import annotations

import re
from functools import cache

from latent_agent.prompts.render import environment

#: The line that opens a template's step vocabulary.
VOCABULARY_HEADING = "The steps you may use:"

_QUOTED_WORD = re.compile(r'"[a-z]+"')
_CAPS_WORD = re.compile(r"\b[A-Z]{2,}\b")


def vocabulary(template: str) -> tuple[str, ...]:
    """The step vocabulary of ``template``: its ``- `` lines after the line ending :data:`VOCABULARY_HEADING`."""
    source = environment().loader.get_source(environment(), template)[0]  # type: ignore[union-attr]
    lines = source.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip().endswith(VOCABULARY_HEADING))
    except StopIteration:
        return ()
    steps: list[str] = []
    for line in lines[start + 1:]:
        if not line.startswith("- "):
            break
        steps.append(line[2:].strip())
    return tuple(steps)


@cache
def placeholders(*templates: str) -> frozenset[str]:
    """The placeholders of the vocabularies of ``templates`` (``'"label"'``, ``'"text"'``, ``'NAME'``)."""
    found: set[str] = set()
    for template in templates:
        for step in vocabulary(template):
            head = step.split("(", 1)[0].strip()  # the step without its explanation in brackets
            found.update(_QUOTED_WORD.findall(head))
            if len(head.split()) > 1:
                found.update(_CAPS_WORD.findall(head))
    return frozenset(found)


def copied_placeholder(text: str, *templates: str) -> str | None:
    """The first placeholder of ``templates``' vocabularies that ``text`` holds unfilled, else None."""
    found: list[tuple[int, str]] = []
    for mark in placeholders(*templates):
        pattern = re.escape(mark) if mark.startswith('"') else rf"\b{re.escape(mark)}\b"
        hit = re.search(pattern, text)
        if hit is not None:
            found.append((hit.start(), mark))
    return min(found)[1] if found else None


def placeholder_problem(text: str, *templates: str) -> str | None:
    """Why ``text`` is a copy of the prompt's instructions (as a parse error), else None."""
    mark = copied_placeholder(text, *templates)
    if mark is None:
        return None
    return f"the answer copies the prompt's placeholder {mark} instead of filling it in"
