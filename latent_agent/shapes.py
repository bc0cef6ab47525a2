"""The shape of an answer, as a server that constrains decoding can be held to it, and where each call kind's is.

A call kind whose answer has a form its parser reads declares that form here, once, as an
:class:`AnswerShape`: a JSON schema where the answer is JSON (the grounder's action), else a regular
:data:`Pattern` over the answer's text (a plan's lines, CAAP's action lines, "Yes" or "No"). A pattern is
written with the small constructors below (:func:`lit`, :func:`chars`, :func:`seq`, :func:`alt`,
:func:`repeat`, :func:`word`) and rendered two ways from that one definition: as a GBNF grammar (llama.cpp's
``grammar``) and as a regular expression (vLLM's structured outputs). Each provider sends the shape in its
own API's field, or none where its API has no field for it (:mod:`latent_agent.llm`); the parser reads the
answer the same way whether it was constrained or not.

The shapes are found by the call's purpose and the surface the agent operates (:func:`shape_for`): each method
package registers its call kinds' rules (:func:`register_shape`), and a call whose answer differs from its
purpose's usual one (CoT-SC's and ReAct's ``select`` calls) passes its own shape, as it passes its own output
cap. It lives at the package root because shapes are declared by the grounders and the agent's methods and
sent by the LLM layer below them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from latent_agent.errors import ConfigError
from latent_agent.purposes import Purpose
from latent_agent.surfaces import Surface

#: How a shape is written: a JSON schema, or a regular pattern over the text.
ShapeKind = Literal["json", "text"]


# -- patterns -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lit:
    """These characters, as written."""

    text: str


@dataclass(frozen=True, slots=True)
class Chars:
    """One character of a set (``negated``: any character but those of the set)."""

    members: frozenset[str]
    negated: bool = False

    def without(self, excluded: frozenset[str]) -> Chars:
        """This class less ``excluded``."""
        return Chars(self.members | excluded, True) if self.negated else Chars(self.members - excluded)

    def allows(self, char: str) -> bool:
        """Whether ``char`` is one of the class's characters."""
        return (char in self.members) != self.negated


@dataclass(frozen=True, slots=True)
class Seq:
    """The items one after another."""

    items: tuple[Pattern, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    """One of the options."""

    options: tuple[Pattern, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    """``item`` from ``low`` to ``high`` times (``high`` None: no upper bound)."""

    item: Pattern
    low: int = 0
    high: int | None = None


#: A regular pattern over an answer's text.
Pattern = Lit | Chars | Seq | Alt | Repeat


def lit(text: str) -> Lit:
    """Exactly ``text``."""
    return Lit(text)


def chars(spec: str, *, negated: bool = False) -> Chars:
    """A character class from a spec of single characters and ``a-z`` ranges (``-`` last is itself)."""
    members: set[str] = set()
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            members.update(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            members.add(spec[i])
            i += 1
    return Chars(frozenset(members), negated)


def seq(*items: Pattern | str) -> Pattern:
    """The items in order (a string is a literal)."""
    parts = tuple(lit(i) if isinstance(i, str) else i for i in items)
    return parts[0] if len(parts) == 1 else Seq(parts)


def alt(*options: Pattern | str) -> Pattern:
    """One of the options (a string is a literal)."""
    parts = tuple(lit(o) if isinstance(o, str) else o for o in options)
    return parts[0] if len(parts) == 1 else Alt(parts)


def repeat(item: Pattern | str, low: int = 0, high: int | None = None) -> Repeat:
    """``item`` ``low`` to ``high`` times."""
    if low < 0 or (high is not None and high < max(low, 1)):
        raise ValueError(f"a repeat needs 0 <= low <= high and high >= 1, got {low}, {high}")
    return Repeat(lit(item) if isinstance(item, str) else item, low, high)


def optional(item: Pattern | str) -> Repeat:
    """``item`` or nothing."""
    return repeat(item, 0, 1)


def lines(line: Pattern, low: int, high: int) -> Pattern:
    """``low`` to ``high`` of ``line``, one a line (newlines between them, none after the last)."""
    if low < 1:
        return optional(lines(line, 1, high))
    return seq(line, repeat(seq("\n", line), low - 1, high - 1)) if high > 1 else line


def word(allowed: Chars, high: int, exclude: frozenset[str] = frozenset(), low: int = 1,
         first: Chars | None = None) -> Pattern:
    """A run of ``low`` to ``high`` characters of ``allowed`` (the first one of ``first``, when given) that is none
    of the words ``exclude``.

    Built as a pattern over the excluded words' prefixes: at each prefix, the run may end (unless the prefix is
    an excluded word or too short), go on along an excluded word, or leave every excluded word with another
    character, after which anything of ``allowed`` may follow.
    """
    if not exclude and first is None:
        return repeat(allowed, low, high)
    if not exclude:
        assert first is not None
        return seq(first, repeat(allowed, max(0, low - 1), high - 1)) if high > 1 else first

    def after(prefix: str) -> Pattern | None:
        depth = len(prefix)
        here = first if depth == 0 and first is not None else allowed
        options: list[Pattern] = []
        if depth >= low and prefix not in exclude:
            options.append(lit(""))
        if depth < high:
            nexts = frozenset(w[depth] for w in exclude if len(w) > depth and w.startswith(prefix))
            for char in sorted(c for c in nexts if here.allows(c)):
                follow = after(prefix + char)
                if follow is not None:
                    options.append(seq(char, follow))
            rest = here.without(nexts)
            if rest.negated or rest.members:
                tail_low = max(0, low - depth - 1)
                options.append(seq(rest, repeat(allowed, tail_low, high - depth - 1)) if high - depth > 1 else rest)
        return alt(*options) if options else None

    found = after("")
    if found is None:
        raise ValueError("no word is left once the excluded ones are taken out")
    return found


# -- rendering ----------------------------------------------------------------------------------------------

_GBNF_LITERAL = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_GBNF_CLASS = {"\\": "\\\\", "]": "\\]", "[": "\\[", "\n": "\\n", "\r": "\\r", "\t": "\\t", "-": "\\x2D",
               "^": "\\x5E"}
_REGEX_SPECIAL = frozenset("\\.^$*+?{}[]|()")
_REGEX_CLASS = {"\\": "\\\\", "]": "\\]", "[": "\\[", "^": "\\^", "-": "\\-", "\n": "\\n", "\r": "\\r",
                "\t": "\\t"}


def _ranges(members: frozenset[str]) -> list[tuple[str, str]]:
    points = sorted(members)
    out: list[tuple[str, str]] = []
    for char in points:
        if out and ord(char) == ord(out[-1][1]) + 1:
            out[-1] = (out[-1][0], char)
        else:
            out.append((char, char))
    return out


def _class(c: Chars, escapes: Mapping[str, str]) -> str:
    if not c.members:
        raise ValueError("an empty character class matches nothing (or, negated, everything)")
    body = ""
    for first, last in _ranges(c.members):
        a, b = escapes.get(first, first), escapes.get(last, last)
        body += a if first == last else (a + b if ord(last) == ord(first) + 1 else f"{a}-{b}")
    return f"[{'^' if c.negated else ''}{body}]"


def _count(low: int, high: int | None) -> str:
    if (low, high) == (0, 1):
        return "?"
    if high is None:
        return "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def gbnf(pattern: Pattern) -> str:
    """``pattern`` as a GBNF grammar (llama.cpp's ``grammar``): a ``root`` rule, and a rule of its own for each
    repeated part that is more than one literal or class.

    llama.cpp expands a repeat into copies of what it repeats and refuses a grammar whose repeated part holds
    so many generated rules that the copies would pass 2,000; repeating a rule by name counts as one. A part
    used in several places (the same pattern object) is one rule.
    """
    rules: dict[int, tuple[str, str]] = {}

    def named(p: Pattern) -> str:
        if id(p) not in rules:
            name = f"r{len(rules) + 1}"
            rules[id(p)] = (name, "")
            rules[id(p)] = (name, expression(p))
        return rules[id(p)][0]

    def expression(p: Pattern) -> str:
        match p:
            case Lit(text=text):
                return '"' + "".join(_GBNF_LITERAL.get(c, c) for c in text) + '"'
            case Chars():
                return _class(p, _GBNF_CLASS)
            case Seq(items=items):
                return "(" + " ".join(expression(i) for i in items) + ")"
            case Alt(options=options):
                return "(" + " | ".join(expression(o) for o in options) + ")"
            case Repeat(item=item, low=low, high=high):
                unit = expression(item) if isinstance(item, Lit | Chars) else named(item)
                return unit + _count(low, high)

    root = expression(pattern)
    return "".join([f"root ::= {root}\n", *(f"{name} ::= {body}\n" for name, body in rules.values())])


def regex(pattern: Pattern) -> str:
    """``pattern`` as a regular expression to match the whole answer (vLLM's ``regex``; Python's ``fullmatch``)."""
    return _regex(pattern)


def _regex(p: Pattern) -> str:
    match p:
        case Lit(text=text):
            return "".join(("\\" + c if c in _REGEX_SPECIAL else _REGEX_CLASS.get(c, c) if c in "\n\r\t" else c)
                           for c in text)
        case Chars():
            return _class(p, _REGEX_CLASS)
        case Seq(items=items):
            return "(?:" + "".join(_regex(i) for i in items) + ")"
        case Alt(options=options):
            return "(?:" + "|".join(_regex(o) for o in options) + ")"
        case Repeat(item=item, low=low, high=high):
            inner = _regex(item)
            unit = isinstance(item, Chars | Seq | Alt) or (isinstance(item, Lit) and len(item.text) == 1)
            return (inner if unit else f"(?:{inner})") + _count(low, high)


# -- the shape of an answer ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnswerShape:
    """What a call kind's answer must look like for its parser to read it.

    Made with :meth:`json` or :meth:`text`. The JSON form of the request (cassettes, call logs) keeps what was
    asked to be sent: the schema, or the grammar and the regular expression.

    Attributes:
        name: What the answer is, in words (``the grounder's action``), for records and messages.
        kind: ``json`` (a JSON schema) or ``text`` (a pattern over the text).
        schema_json: The JSON schema, as compact JSON text in its own key order (``json`` shapes; empty otherwise).
        grammar: The pattern as a GBNF grammar (``text`` shapes; empty otherwise).
        expression: The pattern as a regular expression matching the whole answer (``text`` shapes).
        source: The pattern a text shape was made from (None for a JSON shape, or one read back from a record).
    """

    name: str
    kind: ShapeKind
    schema_json: str = ""
    grammar: str = ""
    expression: str = ""
    source: Pattern | None = field(default=None, compare=False, repr=False)

    @classmethod
    def json(cls, name: str, schema: Mapping[str, Any]) -> AnswerShape:
        """A shape given by a JSON schema."""
        # The properties' order is kept: llama.cpp's grammar and Gemini's ordering follow it.
        return cls(name, "json", schema_json=json.dumps(schema, separators=(",", ":")))

    @classmethod
    def text(cls, name: str, pattern: Pattern) -> AnswerShape:
        """A shape given by a regular pattern over the text."""
        return cls(name, "text", grammar=gbnf(pattern), expression=regex(pattern), source=pattern)

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON schema (``json`` shapes; empty otherwise)."""
        loaded: dict[str, Any] = json.loads(self.schema_json) if self.schema_json else {}
        return loaded

    @property
    def slug(self) -> str:
        """The name in letters, digits and underscores (a JSON schema's ``name`` field at OpenAI)."""
        cleaned = "".join(c if c.isascii() and c.isalnum() else "_" for c in self.name.lower())
        return "_".join(part for part in cleaned.split("_") if part)[:64] or "answer"

    def to_json(self) -> dict[str, object]:
        """What a record keeps: the name and kind, and the schema or the grammar and expression."""
        if self.kind == "json":
            return {"name": self.name, "kind": self.kind, "schema": self.schema}
        return {"name": self.name, "kind": self.kind, "grammar": self.grammar, "regex": self.expression}

    @classmethod
    def from_json(cls, data: object) -> AnswerShape:
        """Inverse of :meth:`to_json` (a text shape comes back without its pattern).

        Raises:
            ValueError: ``data`` is not a serialised shape.
        """
        if not isinstance(data, dict) or data.get("kind") not in ("json", "text") or not isinstance(
                data.get("name"), str):
            raise ValueError(f"not a serialised answer shape: {data!r:.120}")
        if data["kind"] == "json":
            if not isinstance(data.get("schema"), dict):
                raise ValueError("a JSON answer shape needs its schema")
            return cls.json(data["name"], data["schema"])
        grammar, expression = data.get("grammar"), data.get("regex")
        if not isinstance(grammar, str) or not isinstance(expression, str):
            raise ValueError("a text answer shape needs its grammar and regex")
        return cls(data["name"], "text", grammar=grammar, expression=expression)


# -- where each call kind's shape is ---------------------------------------------------------------------

#: A call kind's shape on a surface (None: its answer is free there).
ShapeRule = Callable[[Surface], AnswerShape | None]

_RULES: dict[str, ShapeRule] = {}


def register_shape(purpose: Purpose, rule: ShapeRule) -> None:
    """Give the calls of ``purpose`` the shape ``rule`` says for their surface (the same rule again is harmless).

    Raises:
        ConfigError: ``purpose`` has another rule already.
    """
    if _RULES.get(purpose, rule) is not rule:
        raise ConfigError(f"the answers of {purpose} calls have a shape registered already")
    _RULES[purpose] = rule


def shape_for(purpose: str, surface: Surface) -> AnswerShape | None:
    """The shape of ``purpose``'s answers on ``surface``; None where it has none (free text)."""
    rule = _RULES.get(purpose)
    return rule(surface) if rule is not None else None


def shaped_purposes() -> tuple[str, ...]:
    """The purposes with a registered shape, in the order they were registered."""
    return tuple(_RULES)
