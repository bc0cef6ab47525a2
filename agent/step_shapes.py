"""The steps a template's vocabulary allows, as a pattern: what a plan or step list is held to with shapes on.

A planner or action-generation prompt lists the steps a model may write (``Tap "label"``, ``Scroll up / Scroll
down``, ``Open the NAME app``; :func:`latent_agent.agent.placeholders.vocabulary`). The same list gives the shape
of one step (:func:`vocabulary_step`): each entry's words as written, and each placeholder a slot to fill in,
never with the placeholder itself (a quoted ``"label"`` is not a label, and no slot holds the word ``NAME``), since
an answer copying one is unusable (:func:`latent_agent.agent.placeholders.placeholder_problem`). A template that
rewords its vocabulary changes its shape with it. A step in other words (``Open quick settings``, which the
grounders understand and the list does not name) is allowed too: it begins with a capital letter and holds no quote,
no ``/`` and no placeholder's word even unquoted (``Tap the label`` is the list copied): the parsers read any line as
a step, and a shape narrower than the grounder would take steps from a competent model.

:func:`filled_text` is the slot's text: words of letters, digits and underscores between runs of other
characters, no word a placeholder, bounded in length so a runaway answer ends before its output cap.
"""

from __future__ import annotations

import re

from latent_agent.agent.placeholders import placeholders, vocabulary
from latent_agent.shapes import Chars, Pattern, alt, chars, lines, optional, repeat, seq, word

#: A word's characters (what ``\b`` counts as a word in the placeholder check).
WORD = chars("A-Za-z0-9_")
#: Longest word of a slot, in characters.
WORD_CHARS = 24
#: Most words in one slot, and in a name (an app's).
SLOT_WORDS = 10
NAME_WORDS = 4

_SLOT = re.compile(r'"[a-z]+"|\b[A-Z]{2,}\b')


def filled_text(*, quote: str = '"', exclude: frozenset[str] = frozenset(), alone: frozenset[str] = frozenset(),
                words: int = SLOT_WORDS, leading: bool = True, first: Chars | None = None,
                also_between: str = "") -> Pattern:
    """A slot's text: up to ``words`` words between runs of other characters (never ``quote`` or a newline).

    Args:
        quote: The character that closes the slot (it cannot be in it).
        exclude: Words no slot may hold anywhere (a capitalised placeholder: ``NAME``).
        alone: Words the slot may not be on their own (a quoted placeholder: ``label``).
        words: Most words in the slot.
        leading: Whether it may begin with other characters than a word's (a step does not: a line of spaces is
            none).
        first: What the first word begins with (None: any character of a word).
        also_between: Characters kept out from between the words too.
    """
    between = repeat(chars("A-Za-z0-9_\n" + quote + also_between, negated=True), 1, 3)
    free = word(WORD, WORD_CHARS, exclude)
    opening = word(WORD, WORD_CHARS, exclude, first=first)
    more = repeat(seq(between, free), 1, words - 1)
    forms = [
        word(WORD, WORD_CHARS, exclude | alone, first=first),  # one word alone
        seq(opening, more, optional(between)),  # several words
        seq(opening, between),  # one word and what ends it
    ]
    if leading:
        forms.append(seq(between, optional(seq(free, repeat(seq(between, free), 0, words - 1), optional(between)))))
    return alt(*forms)


def vocabulary_step(*templates: str, leave_out: frozenset[str] = frozenset(), other_words: int = 12) -> Pattern:
    """One step of the vocabulary of ``templates`` (the first that has one), its placeholders slots to fill in, or a
    step in up to ``other_words`` other words (no quotes, no placeholder, none of ``leave_out`` alone).

    Args:
        templates: The templates whose vocabulary lists the steps (their placeholders are all refused).
        leave_out: Entries left out, by their words (``DONE`` in a reflection's fix).
        other_words: Most words of a step not in the vocabulary (none of them a placeholder's word or one of
            ``leave_out``).

    Raises:
        ValueError: No template has a vocabulary.
    """
    entries = next((v for v in map(vocabulary, templates) if v), ())
    if not entries:
        raise ValueError(f"no step vocabulary in {', '.join(templates)}")
    marks = placeholders(*templates)
    caps = frozenset(m for m in marks if not m.startswith('"'))
    quoted = frozenset(m.strip('"') for m in marks if m.startswith('"'))
    steps: list[Pattern] = []
    for entry in entries:
        for form in entry.split("(", 1)[0].split(" / "):
            form = form.strip()
            if form and form not in leave_out:
                steps.append(_form(form, caps, quoted))
    # Words of the vocabulary's own forms are kept out of other steps (a placeholder's word, unquoted: "Tap the
    # label"; a form left out, with its explanation: "DONE (the task is complete)"), and so are a number first (a
    # list's "1.") and the list's "/" between two forms.
    steps.append(filled_text(quote='"', exclude=caps | quoted | leave_out, words=other_words, leading=False,
                             first=chars("A-Z"), also_between="/"))
    return alt(*steps)


def _form(form: str, caps: frozenset[str], quoted: frozenset[str]) -> Pattern:
    """One vocabulary form (``Tap "label"``) with its placeholders as slots."""
    parts: list[Pattern | str] = []
    at = 0
    for slot in _SLOT.finditer(form):
        if form[at:slot.start()]:
            parts.append(form[at:slot.start()])
        if slot.group().startswith('"'):
            parts.extend(('"', filled_text(exclude=caps, alone=quoted), '"'))
        elif len(form.split()) > 1:  # a capitalised word inside a longer step is a placeholder (DONE alone is not)
            parts.append(filled_text(quote='"', exclude=caps, alone=caps, words=NAME_WORDS))
        else:
            parts.append(slot.group())
        at = slot.end()
    if form[at:]:
        parts.append(form[at:])
    return seq(*parts)


def numbered(line: Pattern, high: int, *, last: Pattern | None = None) -> Pattern:
    """``N. line``, one a line, one to ``high`` of them, the last one ``N. last`` when given (the numbers as the model
    writes them: the parsers read any)."""
    number = seq(chars("1-9"), optional(chars("0-9")), ". ")
    if last is None:
        return lines(seq(number, line), 1, high)
    return seq(repeat(seq(number, line, "\n"), 0, high - 1), number, last)


def quoted(*, quote: str = '"', exclude: frozenset[str] = frozenset(), high: int = 80) -> Pattern:
    """``quote`` text ``quote``: up to ``high`` characters that are neither the quote nor a newline, and not one of
    ``exclude`` on their own."""
    inner: Chars = chars("\n" + quote, negated=True)
    return seq(quote, word(inner, high, exclude) if exclude else repeat(inner, 1, high), quote)
