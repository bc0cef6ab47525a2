"""Parse a shell command line the way ``/system/bin/sh`` (mksh) does.

Covers the POSIX subset that adb clients send: words with single quotes,
double quotes and backslashes; ``$NAME``, ``${NAME}``, ``$?`` and friends;
command substitution with ``$(...)`` and backticks; ``;``, ``&``, ``&&``,
``||``, ``|`` and newlines; redirections (``>``, ``>>``, ``<``, ``N>&M``);
comments; prefix assignments. Compound commands (``if``, ``for``, subshells,
functions) are refused with a syntax error rather than misread.

The parser only builds a syntax tree: nothing is expanded or executed here,
which is what lets the interpreter prove that quoted text stays inert.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PartKind = Literal["lit", "param", "cmdsub"]

_OPERATORS = ("&&", "||", ";;", ">>", ">&", "<&", ">|", ";", "&", "|", "<", ">", "(", ")")
_SPECIAL_PARAMS = "?$#!@*-0123456789"
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
                       "esac", "function", "select", "{", "}", "[[", "]]", "time"})


class ShellSyntaxError(Exception):
    """The command line is not valid shell syntax; ``str()`` is the shell's message."""


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a word.

    Attributes:
        kind: ``lit`` (literal text), ``param`` (parameter name) or ``cmdsub``
            (the source of a command substitution).
        text: The literal text, parameter name or substitution source.
        quoted: Whether the piece was inside quotes (or backslash-escaped):
            quoted pieces are not split into fields nor matched as globs.
    """

    kind: PartKind
    text: str
    quoted: bool


Word = tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Redirect:
    """``fd op target``, e.g. ``2>&1`` is ``Redirect(2, ">&", "1")``."""

    fd: int
    op: str
    target: Word


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """Assignments, words and redirections of one command."""

    assignments: tuple[tuple[str, Word], ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True, slots=True)
class Pipeline:
    """Commands joined by ``|``; ``negate`` for a leading ``!``."""

    commands: tuple[SimpleCommand, ...]
    negate: bool = False


@dataclass(frozen=True, slots=True)
class AndOr:
    """A pipeline followed by ``&&``/``||`` pipelines."""

    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...] = ()


Script = tuple[AndOr, ...]


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: Literal["word", "op"]
    word: Word = ()
    op: str = ""


def _scan_parens(s: str, i: int) -> int:
    """Index of the ``)`` closing a ``$(`` whose contents start at ``i``."""
    depth = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = s.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("no closing quote")
            i = end + 1
            continue
        if c == '"':
            i = _scan_dquote(s, i + 1) + 1
            continue
        if c == "`":
            i = _scan_backtick(s, i + 1)[1] + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError("missing ')'")


def _scan_dquote(s: str, i: int) -> int:
    """Index of the ``"`` closing a double-quoted string whose contents start at ``i``."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i
        if c == "$" and i + 1 < n and s[i + 1] == "(":
            i = _scan_parens(s, i + 2) + 1
            continue
        if c == "`":
            i = _scan_backtick(s, i + 1)[1] + 1
            continue
        i += 1
    raise ShellSyntaxError("no closing quote")


def _scan_backtick(s: str, i: int, *, in_dquote: bool = False) -> tuple[str, int]:
    """Source of a backtick substitution starting at ``i`` and the index of its closing backtick."""
    out: list[str] = []
    n = len(s)
    escapable = "$`\\" + ('"' if in_dquote else "")
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n and s[i + 1] in escapable:
            out.append(s[i + 1])
            i += 2
            continue
        if c == "`":
            return "".join(out), i
        out.append(c)
        i += 1
    raise ShellSyntaxError("no closing quote")


class _Lexer:
    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0
        self.toks: list[_Tok] = []
        self.parts: list[Part] = []
        self.in_word = False

    def lit(self, text: str, quoted: bool) -> None:
        self.in_word = True
        if self.parts and self.parts[-1].kind == "lit" and self.parts[-1].quoted == quoted:
            self.parts[-1] = Part("lit", self.parts[-1].text + text, quoted)
        else:
            self.parts.append(Part("lit", text, quoted))

    def end_word(self) -> None:
        if self.in_word:
            self.toks.append(_Tok("word", tuple(self.parts)))
        self.parts = []
        self.in_word = False

    def dollar(self, quoted: bool) -> None:
        s, i = self.s, self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "(":
            if i + 2 < len(s) and s[i + 2] == "(":
                raise ShellSyntaxError("arithmetic expansion $((...)) is not supported")
            end = _scan_parens(s, i + 2)
            self.parts.append(Part("cmdsub", s[i + 2:end], quoted))
            self.in_word = True
            self.i = end + 1
        elif nxt == "{":
            end = s.find("}", i + 2)
            if end < 0:
                raise ShellSyntaxError("missing '}'")
            name = s[i + 2:end]
            if not ((name in _SPECIAL_PARAMS and len(name) == 1) or name.isidentifier()):
                raise ShellSyntaxError(f"${{{name}}}: bad substitution")
            self.parts.append(Part("param", name, quoted))
            self.in_word = True
            self.i = end + 1
        elif nxt and nxt in _SPECIAL_PARAMS:
            self.parts.append(Part("param", nxt, quoted))
            self.in_word = True
            self.i = i + 2
        elif nxt and (nxt.isascii() and (nxt.isalpha() or nxt == "_")):
            j = i + 1
            while j < len(s) and s[j].isascii() and (s[j].isalnum() or s[j] == "_"):
                j += 1
            self.parts.append(Part("param", s[i + 1:j], quoted))
            self.in_word = True
            self.i = j
        else:
            self.lit("$", quoted)
            self.i = i + 1

    def dquote(self) -> None:
        s = self.s
        self.in_word = True
        self.lit("", True)
        i = self.i + 1
        n = len(s)
        while True:
            if i >= n:
                raise ShellSyntaxError("no closing quote")
            c = s[i]
            if c == '"':
                self.i = i + 1
                return
            if c == "\\" and i + 1 < n and s[i + 1] in '$`"\\\n':
                if s[i + 1] != "\n":
                    self.lit(s[i + 1], True)
                i += 2
            elif c == "$":
                self.i = i
                self.dollar(True)
                i = self.i
            elif c == "`":
                src, end = _scan_backtick(s, i + 1, in_dquote=True)
                self.parts.append(Part("cmdsub", src, True))
                i = end + 1
            else:
                self.lit(c, True)
                i += 1

    def run(self) -> list[_Tok]:
        s = self.s
        n = len(s)
        while self.i < n:
            c = s[self.i]
            if c in " \t":
                self.end_word()
                self.i += 1
            elif c == "\n":
                self.end_word()
                self.toks.append(_Tok("op", op="\n"))
                self.i += 1
            elif c == "#" and not self.in_word:
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == "\\":
                if self.i + 1 < n:
                    if s[self.i + 1] != "\n":
                        self.lit(s[self.i + 1], True)
                    self.i += 2
                else:
                    self.lit("\\", True)
                    self.i += 1
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("no closing quote")
                self.lit(s[self.i + 1:end], True)
                self.i = end + 1
            elif c == '"':
                self.dquote()
            elif c == "$":
                self.dollar(False)
            elif c == "`":
                src, end = _scan_backtick(s, self.i + 1)
                self.parts.append(Part("cmdsub", src, False))
                self.in_word = True
                self.i = end + 1
            elif c in ";&|<>()":
                self.operator()
            else:
                self.lit(c, False)
                self.i += 1
        self.end_word()
        return self.toks

    def operator(self) -> None:
        s, i = self.s, self.i
        op = next(o for o in _OPERATORS if s.startswith(o, i))
        fd_prefix = ""
        if op[0] in "<>" and self.in_word and len(self.parts) == 1:
            only = self.parts[0]
            if only.kind == "lit" and not only.quoted and only.text.isdigit():
                fd_prefix = only.text
                self.parts = []
                self.in_word = False
        self.end_word()
        self.toks.append(_Tok("op", op=fd_prefix + op))
        self.i = i + len(op)


def tokenize(source: str) -> list[_Tok]:
    """Split ``source`` into word and operator tokens."""
    return _Lexer(source).run()


def _word_text(word: Word) -> str | None:
    """The word's text when it is a single unquoted literal (used for keywords)."""
    if len(word) == 1 and word[0].kind == "lit" and not word[0].quoted:
        return word[0].text
    return None


class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def script(self) -> Script:
        out: list[AndOr] = []
        while True:
            tok = self.peek()
            while tok is not None and tok.kind == "op" and tok.op in (";", "\n", "&"):
                if tok.op != "\n" and not out:
                    raise ShellSyntaxError(f"syntax error: '{tok.op}' unexpected")
                self.i += 1
                tok = self.peek()
            if tok is None:
                return tuple(out)
            out.append(self.and_or())
            tok = self.peek()
            if tok is not None and not (tok.kind == "op" and tok.op in (";", "\n", "&")):
                raise ShellSyntaxError(f"syntax error: '{tok.op}' unexpected")
            if tok is not None:
                self.i += 1
                nxt = self.peek()
                if nxt is not None and nxt.kind == "op" and nxt.op in (";", "&"):
                    raise ShellSyntaxError(f"syntax error: '{nxt.op}' unexpected")

    def and_or(self) -> AndOr:
        first = self.pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.op in ("&&", "||"):
            self.i += 1
            while (t := self.peek()) is not None and t.kind == "op" and t.op == "\n":
                self.i += 1
            rest.append((tok.op, self.pipeline()))
        return AndOr(first, tuple(rest))

    def pipeline(self) -> Pipeline:
        negate = False
        tok = self.peek()
        if tok is not None and tok.kind == "word" and _word_text(tok.word) == "!":
            negate = True
            self.i += 1
        cmds = [self.command()]
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.op == "|":
            self.i += 1
            while (t := self.peek()) is not None and t.kind == "op" and t.op == "\n":
                self.i += 1
            cmds.append(self.command())
        return Pipeline(tuple(cmds), negate)

    def command(self) -> SimpleCommand:
        assignments: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while (tok := self.peek()) is not None:
            if tok.kind == "word":
                self.i += 1
                if not words:
                    kw = _word_text(tok.word)
                    if kw in _RESERVED:
                        raise ShellSyntaxError(f"syntax error: '{kw}' is not supported by this shell")
                    assign = _assignment(tok.word)
                    if assign is not None:
                        assignments.append(assign)
                        continue
                words.append(tok.word)
                continue
            op = tok.op
            stripped = op.lstrip("0123456789")
            if stripped in (">", ">>", "<", ">&", "<&", ">|"):
                self.i += 1
                target = self.peek()
                if target is None or target.kind != "word":
                    raise ShellSyntaxError(f"syntax error: '{op}' needs a target")
                self.i += 1
                digits = op[: len(op) - len(stripped)]
                fd = int(digits) if digits else (0 if stripped[0] == "<" else 1)
                redirects.append(Redirect(fd, ">" if stripped == ">|" else stripped, target.word))
                continue
            if op in ("(", ")", ";;"):
                raise ShellSyntaxError(f"syntax error: '{op}' is not supported by this shell")
            break
        if not (assignments or words or redirects):
            tok = self.peek()
            where = "unexpected end of line" if tok is None else f"'{tok.op}' unexpected"
            raise ShellSyntaxError(f"syntax error: {where}")
        return SimpleCommand(tuple(assignments), tuple(words), tuple(redirects))


def _assignment(word: Word) -> tuple[str, Word] | None:
    first = word[0]
    if first.kind != "lit" or first.quoted or "=" not in first.text:
        return None
    name, _, value = first.text.partition("=")
    if not name.isidentifier() or not name.isascii():
        return None
    rest: list[Part] = [Part("lit", value, False)] if value else []
    rest.extend(word[1:])
    return name, tuple(rest)


def parse(source: str) -> Script:
    """Parse a command line into a :data:`Script`.

    Raises:
        ShellSyntaxError: On unbalanced quotes or parentheses, misplaced
            operators and unsupported compound commands.
    """
    return _Parser(tokenize(source)).script()
