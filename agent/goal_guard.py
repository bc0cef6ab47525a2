"""Whether a rewritten goal still asks for what the user asked: the rule, and why a rewrite fails it.

Goal normalization only polishes the user's words (articles, grammar, capitals, a garbled date), so a
rewrite is used only when it keeps the original's content; otherwise the user's own goal is used, which
costs nothing but the polish. A small real model answered "Turn off data roaming" with the prompt's first
example request ("Read reviews of Audi Q7 in CarTrade app.") and every later prompt pursued that task.

The rule, on words folded to lower case (letters and digits; hyphens and apostrophes inside a word are
dropped, so "Wi-Fi" is "wifi"):

1. **Quoted text** of the original (between double quotes, curly quotes or backticks) appears in the
   rewrite as written (case and spacing aside).
2. **Numbers**: the original's digits appear in the rewrite in the same order, others possibly between
   them (a garbled date may be repaired: "August 123" -> "August 1, 2023"), none dropped or changed.
3. **Content words** (every word but the closed class of :data:`FUNCTION_WORDS`: articles, prepositions,
   pronouns, auxiliaries, politeness) are all kept: the same word, the same letters with the spacing or
   hyphens changed ("wifi" / "Wi-Fi"), or a near spelling (:data:`NEAR` or more in rapidfuzz's ratio:
   an inflection "review" / "reviews", a typo fixed "settigns" / "settings"). Names are content words.
4. **Switch words** (:data:`SWITCH_WORDS`: "off", "enable", "not", ...) are the same set in both: a
   rewrite must not turn "off" into "on" or drop a "not".
5. **Nothing much added**: at most one new content word per two of the original's (at least one; "app"
   after a named app is fine, a second task is not). Digits added by a repaired date do not count.

A rewrite that breaks the rule and is one of the prompt's own few-shot lines (a request or a rephrasing
the template shows) is refused as a copied example, which is what the reason then says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

#: The closed-class words that carry no content of a phone goal (a rewrite may add or drop them). "May" is
#: left out: it is also a month.
FUNCTION_WORDS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every",
    "in", "on", "at", "of", "for", "to", "from", "by", "with", "into", "onto", "about", "via", "as", "than", "per",
    "and", "or", "but", "so", "then", "also",
    "i", "me", "my", "mine", "you", "your", "yours", "it", "its",
    "we", "our", "us", "they", "their", "them", "he", "she", "his", "her",
    "is", "are", "was", "were", "be", "been", "being", "am", "do", "does",
    "did", "can", "could", "would", "should", "will", "shall", "might", "must",
    "please", "kindly", "just", "now", "let", "lets",
})
#: Words that set or negate a state: the rewrite must have the same ones (rule 4).
SWITCH_WORDS = frozenset({"off", "enable", "enabled", "disable", "disabled", "not", "no", "dont", "never",
                          "without", "mute", "unmute"})
#: The rapidfuzz ratio from which two words count as the same word spelled differently (rule 3).
NEAR = 80.0

_WORD = re.compile(r"[^\W_]+")
_DIGITS = re.compile(r"\d+")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|`([^`]+)`')


def _fold(text: str) -> str:
    # Apostrophes and hyphens join what they join: "don't" is "dont", "Wi-Fi" is "wifi".
    return " ".join(re.sub(r"(?<=\w)['’-](?=\w)", "", text.casefold()).split())


def _words(text: str) -> list[str]:
    return _WORD.findall(_fold(text))


def _content(text: str) -> list[str]:
    return [w for w in _words(text) if not w.isdigit() and w not in FUNCTION_WORDS and w not in SWITCH_WORDS]


def _found(word: str, words: list[str], compact: str) -> bool:
    """Whether ``word`` is among ``words``: the same, respaced (within ``compact``) or near (rule 3)."""
    if word in words or (len(word) > 3 and word in compact):
        return True
    return any(fuzz.ratio(word, other) >= NEAR for other in words)


def _subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(ch in it for ch in needle)


def _quoted(text: str) -> list[str]:
    return [_fold(next(g for g in m.groups() if g is not None)) for m in _QUOTED.finditer(text)]


def rewrite_problem(original: str, rewrite: str, examples: Iterable[str] = ()) -> str | None:
    """Why ``rewrite`` does not keep the content of ``original``, in words; None when it does.

    Args:
        original: The user's goal.
        rewrite: The model's rephrasing of it.
        examples: The few-shot lines the rephrasing prompt shows (requests and rephrasings).
    """
    if not _fold(rewrite).rstrip(".!? "):
        return "the rewrite is empty"
    problem = _content_problem(original, rewrite)
    folded = _fold(rewrite).rstrip(".!? ")
    if problem is not None and any(_fold(e).rstrip(".!? ") == folded for e in examples):
        return f"the rewrite {rewrite!r} is one of the prompt's own examples, not the goal"
    return problem


def _content_problem(original: str, rewrite: str) -> str | None:
    """Rules 1-5 of the module's docstring: the first one ``rewrite`` breaks, in words."""
    kept_text = _fold(rewrite)
    lost_quotes = [q for q in _quoted(original) if q not in kept_text]
    if lost_quotes:
        return f"the rewrite drops the quoted text {lost_quotes[0]!r}"
    digits, kept_digits = "".join(_DIGITS.findall(original)), "".join(_DIGITS.findall(rewrite))
    if not _subsequence(digits, kept_digits):
        return f"the rewrite changes the numbers ({' '.join(_DIGITS.findall(original))} -> " \
               f"{' '.join(_DIGITS.findall(rewrite)) or 'none'})"
    words, new_words = _words(original), _words(rewrite)
    compact, new_compact = "".join(words), "".join(new_words)
    lost = [w for w in dict.fromkeys(_content(original)) if not _found(w, new_words, new_compact)]
    if lost:
        return f"the rewrite drops {', '.join(repr(w) for w in lost)}"
    switches, new_switches = set(words) & SWITCH_WORDS, set(new_words) & SWITCH_WORDS
    if switches != new_switches:
        changed = sorted(switches ^ new_switches)
        return f"the rewrite changes the switch word{'s' if len(changed) > 1 else ''} {', '.join(map(repr, changed))}"
    content = list(dict.fromkeys(_content(original)))
    added = [w for w in dict.fromkeys(_content(rewrite)) if not _found(w, words, compact)]
    allowed = max(1, len(content) // 2)
    if len(added) > allowed:
        return f"the rewrite adds {', '.join(repr(w) for w in added)} (at most {allowed} new word" \
               f"{'s' if allowed > 1 else ''} for a goal of {len(content)})"
    return None
