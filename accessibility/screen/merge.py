"""A dump's tree plus what only the screenshot shows (``--observation both``).

The dump stays as it is; the screenshot's elements that the dump lacks are added as one
more window after the dump's own. A text line is lacking when no element of the dump
whose box holds the line's centre carries that text (a canvas, a WebView or a game draws
text the dump does not have). A control is lacking when no element of the dump of about
its size sits where it is: an element much larger than the control (the canvas it is drawn
on, a list) does not count.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from latent_agent.accessibility.tree import UINode, UITree

#: Fuzzy score (0-100, rapidfuzz partial ratio) at which a dump's label counts as the line's text.
SAME_TEXT = 80.0
#: A dump element more than this many times a control's area is a container, not the control.
CONTAINER_FACTOR = 6


def _labels(node: UINode) -> list[str]:
    return [label.casefold() for label in (node.text, node.content_desc, node.hint) if label]


def _has_text(tree: UITree, line: UINode) -> bool:
    assert line.bounds is not None
    cx, cy = line.bounds.center
    wanted = line.text.casefold()
    for node in tree.iter():
        if node.bounds is None or not node.bounds.contains_point(cx, cy):
            continue
        if any(fuzz.partial_ratio(wanted, label) >= SAME_TEXT for label in _labels(node)):
            return True
    return False


def _has_control(tree: UITree, control: UINode) -> bool:
    assert control.bounds is not None
    cx, cy = control.bounds.center
    largest = CONTAINER_FACTOR * max(1, control.bounds.area)
    return any(
        node.bounds is not None and node.bounds.contains_point(cx, cy) and node.bounds.area <= largest
        and (node.is_interactive or node.has_label)
        for node in tree.iter()
    )


def screen_only(tree: UITree, screen: UITree) -> list[UINode]:
    """The leaves of ``screen`` (a screenshot's tree) that ``tree`` (a cleaned dump) lacks, in screen order."""
    out: list[UINode] = []
    for node in screen.iter():
        if node.children or node.bounds is None:
            continue
        is_text = not node.clickable and bool(node.text)
        if (_has_text(tree, node) if is_text else _has_control(tree, node)):
            continue
        out.append(node)
    return out


def merge_trees(tree: UITree, screen: UITree) -> UITree:
    """``tree`` with one more window holding what only ``screen`` shows (``tree`` itself when nothing)."""
    extra = screen_only(tree, screen)
    if not extra or not screen.roots:
        return tree
    window = screen.roots[0]._replace(children=tuple(extra))
    return UITree(roots=(*tree.roots, window), screen=tree.screen or screen.screen, source=tree.source,
                  rotation=tree.rotation, foreground_package=tree.foreground_package)
