"""Helpers shared by the simulated-phone tests."""

from __future__ import annotations

from accessibility.clean import clean_tree
from accessibility.describe import describe, fold
from accessibility.tree import UITree

#: Attributes of every node in a sim dump, in the order ``uiautomator dump`` writes them.
SIM_ATTRIBUTES = (
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "visible-to-user",
    "bounds",
    "drawing-order",
    "hint",
)


def assert_description_invariants(tree: UITree) -> None:
    """Visible on-screen labels appear in the description; invisible or off-screen ones do not."""
    text = fold(describe(clean_tree(tree)))
    screen = tree.screen.as_bounds() if tree.screen else None
    shown: set[str] = set()
    hidden: set[str] = set()

    def walk(node, visible: bool) -> None:  # type: ignore[no-untyped-def]
        on_screen = node.bounds is None or screen is None or node.bounds.intersection_area(screen) > 0
        vis = visible and node.visible is not False and on_screen
        for label in (node.text, node.content_desc):
            if label.strip() and not node.password:
                (shown if vis else hidden).add(fold(label))
        for child in node.children:
            walk(child, vis)

    for root in tree.roots:
        walk(root, True)
    for label in shown:
        assert f'"{label}"' in text, f"visible label {label!r} missing from the description"
    for label in hidden - shown:
        assert f'"{label}"' not in text, f"invisible label {label!r} leaked into the description"
