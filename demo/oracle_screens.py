"""Reading screen descriptions (the accessibility layer's format) in the demo oracles.

The oracles answer from a call's inputs; where an input is a screen description they read its labels, tap
targets and controls here, in one place, so a change of the description's wording is met once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from latent_agent.demo.oracle_miniwob import TEXT_BOX

#: A quoted label.
QUOTED = re.compile(r'"([^"]+)"')
_TEXT_LINE = re.compile(r'^(\s*)a text "(.*)"$')
#: A tap target named on its own line by the texts it shows (a settings row, a tab): their quoted list.
_TARGET_TEXTS = re.compile(r'^\s*an? clickable (?:group|view|card|text|image) with the texts? ((?:"[^"]*"(?:, )?)+)')
_STATE = re.compile(r"that is (?:[a-z ]+, )?(on|off|checked|not checked)\b")
_OWN_TEXT = re.compile(r'with the text "([^"]*)"')
_OWN_DESC = re.compile(r'described as "([^"]*)"')


@dataclass(frozen=True, slots=True)
class _Line:
    indent: int
    text: str


def _lines(description: str) -> list[_Line]:
    return [_Line(len(raw) - len(raw.lstrip(" ")), raw.strip()) for raw in description.splitlines() if raw.strip()]


def _line_texts(line: str) -> list[str]:
    """The texts a description line shows as labels: a text's own, or those naming a tap target."""
    if m := _TEXT_LINE.match(line):
        return [m.group(2)]
    if m := _TARGET_TEXTS.match(line):
        return re.findall(r'"([^"]*)"', m.group(1))
    return []


def screen_texts(description: str) -> list[str]:
    """Every label the screen shows, in order (its first is the screen's title)."""
    return [text for line in description.splitlines() for text in _line_texts(line)]


def _row_labels(lines: list[_Line], index: int) -> list[str]:
    """Text labels of the row (the enclosing group's subtree) of line ``index``."""
    depth = lines[index].indent
    start = index
    while start > 0 and lines[start].indent >= depth:
        start -= 1
    parent = lines[start].indent
    out: list[str] = []
    for line in lines[start:]:
        if line is not lines[start] and line.indent <= parent:
            break
        out.extend(_line_texts(line.text))
    return out


def controls(description: str) -> list[tuple[tuple[str, ...], str]]:
    """Every switch, checkbox and radio button in screen order: the names it goes by, and its state."""
    lines = _lines(description)
    out: list[tuple[tuple[str, ...], str]] = []
    for i, line in enumerate(lines):
        state = _STATE.search(line.text)
        if state is None:
            continue
        names: list[str] = []
        if (own := _OWN_TEXT.search(line.text)) and own.group(1):
            names.append(own.group(1))
        if desc := _OWN_DESC.search(line.text):
            names.append(desc.group(1))
        names.extend(_row_labels(lines, i))
        out.append((tuple(names), state.group(1)))
    return out


def control_label(names: tuple[str, ...]) -> str:
    """The name a person would use for a control: not its "ON"/"OFF" text when it has another."""
    return next((n for n in names if n not in ("ON", "OFF")), names[0] if names else "")


def control_states(description: str) -> dict[str, str]:
    """Label -> state of every switch, checkbox and radio button."""
    out: dict[str, str] = {}
    for names, state in controls(description):
        if label := control_label(names):
            out.setdefault(label, state)
    return out


def _same_names(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return set(a) - {"ON", "OFF"} == set(b) - {"ON", "OFF"}


def same_controls(before: str, after: str) -> bool:
    """Whether two screens show the same controls (in whatever states)."""
    was, now = controls(before), controls(after)
    return len(was) == len(now) and all(_same_names(a, b) for (a, _), (b, _) in zip(was, now, strict=True))


def names_control(description: str, label: str) -> bool:
    """Whether ``label`` names a switch, checkbox or radio button of the screen."""
    wanted = label.casefold()
    return any(wanted in {n.casefold() for n in names} for names, _ in controls(description))


def toggled(before: str, after: str) -> list[tuple[str, ...]]:
    """The names of the controls whose state differs between two screens showing the same controls."""
    if not same_controls(before, after):
        return []
    was, now = controls(before), controls(after)
    return [a for (a, s0), (_, s1) in zip(was, now, strict=True) if s0 != s1]


def row_of(description: str, label: str) -> set[str]:
    """The labels of the row that shows ``label`` (``{label}`` when no row shows it)."""
    lines = _lines(description)
    for i, line in enumerate(lines):
        if line.text == f'a text "{label}"':
            return set(_row_labels(lines, i))
        if label in (shown := _line_texts(line.text)):
            return set(shown)  # a tap target named by its texts is a row of its own
    return {label}


def field_name(description: str) -> str | None:
    """The name the screen's first text box goes by in a screen description (its text, description or hint)."""
    for line in _lines(description):
        if line.text.startswith(f"a {TEXT_BOX}") and (quoted := QUOTED.search(line.text)):
            return quoted.group(1)
    return None
