"""Clean a UI tree as the method prescribes.

1. Nodes the source marks as not visible are dropped with their subtrees.
2. Nodes whose bounds share no area with the screen are dropped with their
   subtrees (uiautomator reports bounds clipped to the parent, so children of
   an off-screen node are off-screen too).
3. Content descriptions that are unresolved resource references (``@2132037175``,
   ``@string/play``: an app set the id instead of the string) are removed; they
   name nothing a person sees or hears.
4. Containers that carry no text, content description or hint and cannot be
   acted on are removed: with one child they are replaced by it (collapsing
   chains such as ``FrameLayout > LinearLayout > FrameLayout``), with none they
   vanish, with several they stay as a group.
"""

from __future__ import annotations

import re

from latent_agent.accessibility.tree import Bounds, UINode, UITree
from latent_agent.accessibility.widgets import info, kind_of

_RESOURCE_REFERENCE = re.compile(
    r"@(?:\d+|(?:[\w.]+:)?(?:anim|array|bool|color|dimen|drawable|id|integer|mipmap|plurals|raw|string"
    r"|style|xml)/[\w.]+)"
)


def is_resource_reference(label: str) -> bool:
    """True for ``@2132037175`` or ``@string/name``: a resource id left unresolved, not words."""
    label = label.strip()
    return label[:1] == "@" and _RESOURCE_REFERENCE.fullmatch(label) is not None


def _carries_nothing(node: UINode) -> bool:
    """True for a node that is only layout: no label and nothing to act on.

    ``selected`` alone does not keep a node: Compose and Material tabs mark
    every layer of a selected tab selected, and the labelled layer says it.
    """
    if node.has_label or node.is_interactive:
        return False
    return info(kind_of(node.class_name)).container


def _clean(node: UINode, screen: Bounds | None) -> list[UINode]:
    if node.visible is False:
        return []
    if screen is not None and node.bounds is not None and node.bounds.intersection_area(screen) == 0:
        return []
    if node.content_desc and is_resource_reference(node.content_desc):
        node = node._replace(content_desc="")
    children: list[UINode] = []
    for child in node.children:
        children.extend(_clean(child, screen))
    if len(children) <= 1 and _carries_nothing(node):
        return children
    if len(children) == len(node.children) and all(a is b for a, b in zip(children, node.children, strict=True)):
        return [node]
    return [_with_children(node, tuple(children))]


def _with_children(node: UINode, children: tuple[UINode, ...]) -> UINode:
    # Spelled out rather than _replace(): this runs for most nodes of every
    # screen and _replace() is several times slower.
    return UINode(
        class_name=node.class_name, text=node.text, content_desc=node.content_desc, hint=node.hint,
        resource_id=node.resource_id, package=node.package, bounds=node.bounds, checkable=node.checkable,
        checked=node.checked, clickable=node.clickable, long_clickable=node.long_clickable,
        enabled=node.enabled, focusable=node.focusable, focused=node.focused, scrollable=node.scrollable,
        selected=node.selected, password=node.password, editable=node.editable, visible=node.visible,
        index=node.index, drawing_order=node.drawing_order, display_id=node.display_id, children=children,
    )


def clean_tree(tree: UITree) -> UITree:
    """Return a cleaned copy of ``tree`` (the input is not modified).

    The screen rectangle comes from ``tree.screen``; when a tree has no known
    screen size only visibility flags and empty containers are cleaned.
    """
    screen = tree.screen.as_bounds() if tree.screen is not None else None
    roots: list[UINode] = []
    for root in tree.roots:
        # Only the default display is "the screen"; nodes on other displays
        # are judged by their own bounds being non-empty.
        on_default = root.display_id in (None, 0)
        roots.extend(_clean(root, screen if on_default else None))
    return UITree(roots=tuple(roots), screen=tree.screen, source=tree.source, rotation=tree.rotation,
                  foreground_package=tree.foreground_package)
