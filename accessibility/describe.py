"""Describe a (cleaned) UI tree in concise natural language.

One line per element, indented two spaces per level of depth, e.g.::

    a toolbar
      an image button described as "Navigate up"
      a text "SIMs"
    a switch with the text "Roaming" that is off

Output is deterministic: it depends only on the tree. Whitespace inside labels
is folded to single spaces so that one element is always one line.
"""

from __future__ import annotations

from accessibility.tree import UINode, UITree
from accessibility.widgets import Kind, info, kind_of

PASSWORD_MASK = "••••••"


def fold(text: str) -> str:
    """Collapse runs of whitespace (including newlines) into single spaces."""
    return " ".join(text.split())


def _quote(text: str) -> str:
    return '"' + fold(text) + '"'


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


def _states(node: UINode, kind: Kind) -> list[str]:
    states: list[str] = []
    ki = info(kind)
    if ki.on_off:
        states.append("on" if node.checked else "off")
    elif node.checkable or kind in (Kind.CHECK_BOX, Kind.RADIO_BUTTON, Kind.CHECKED_TEXT):
        states.append("checked" if node.checked else "not checked")
    elif node.checked:
        states.append("checked")
    if node.selected:
        states.append("selected")
    if not node.enabled:
        states.append("disabled")
    if node.focused:
        states.append("focused")
    if node.scrollable:
        states.append("scrollable")
    return states


def _join_states(states: list[str]) -> str:
    if len(states) == 1:
        return states[0]
    return ", ".join(states[:-1]) + " and " + states[-1]


def describe_node(node: UINode) -> str:
    """One line (without indentation) describing ``node``."""
    kind = kind_of(node.class_name)
    if kind is Kind.UNKNOWN:
        pkg = f" from {node.package}" if node.package else ""
        head = f'an element of class "{node.class_name}"{pkg}'
    else:
        noun = kind.value
        if node.password:
            noun = f"password {noun}"
        head = f"{_article(noun)} {noun}"
    parts = [head]
    if node.text:
        if node.password:
            parts.append(f'with hidden text "{PASSWORD_MASK}"')
        elif kind is Kind.TEXT:
            parts[0] = f"{head} {_quote(node.text)}"
        else:
            parts.append(f"with the text {_quote(node.text)}")
    if node.content_desc and fold(node.content_desc) != fold(node.text):
        parts.append(f"described as {_quote(node.content_desc)}")
    if node.hint and fold(node.hint) != fold(node.text):
        parts.append(f"with the hint {_quote(node.hint)}")
    states = _states(node, kind)
    if states:
        parts.append(f"that is {_join_states(states)}")
    return " ".join(parts)


def describe(tree: UITree, *, indent: str = "  ") -> str:
    """The whole screen as an indented list, one element per line.

    Pass a tree through :func:`accessibility.clean.clean_tree` first: this
    function describes every node it is given.
    """
    lines = [indent * depth + describe_node(node) for node, depth in tree.iter_with_depth()]
    return "\n".join(lines)
