"""Helpers for tests over the real screens in tests/data."""

from __future__ import annotations

import re
from pathlib import Path

from latent_agent.accessibility.describe import fold
from latent_agent.accessibility.tree import UINode, UITree

DATA = Path(__file__).resolve().parent.parent / "data"
_RESOURCE_ID = re.compile(r"@(?:[a-z.]+:)?(?:[0-9]+|[a-z]+/[A-Za-z0-9_.]+)")


def real_xml_screens() -> list[Path]:
    """Every real uiautomator dump and Appium page source shipped with the tests."""
    files = sorted(DATA.glob("uiautomator_dumps/*/*.xml")) + sorted(DATA.glob("appium_page_sources/*/*.xml"))
    assert len(files) >= 40, "test data missing: expected the real screens in tests/data"
    return files


def screen_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def partition_labels(tree: UITree) -> tuple[set[str], set[str]]:
    """Labels (folded) of nodes a person can see, and of nodes they cannot, judged independently of clean_tree.

    A node is seen when neither it nor an ancestor is marked invisible or lies wholly off the screen.
    Password text is left out of both sets. A label carried by both a seen and a hidden node counts as seen.
    A content description that is an unresolved resource reference (``@2132037175``, ``@string/x``) counts
    as hidden wherever it is: it is an id the app forgot to resolve, never words a person sees or hears, so
    it must not be shown as a label (the one place where this helper follows the cleaner's judgement).
    """
    screen = tree.screen.as_bounds() if tree.screen else None
    seen: set[str] = set()
    hidden: set[str] = set()

    def walk(node: UINode, shown: bool) -> None:
        off = screen is not None and node.bounds is not None and node.bounds.intersection_area(screen) == 0
        here = shown and node.visible is not False and not off
        for label, is_desc in ((node.text, False), (node.content_desc, True), (node.hint, False)):
            if label.strip() and not node.password:
                unresolved = is_desc and _RESOURCE_ID.fullmatch(label.strip()) is not None
                (seen if here and not unresolved else hidden).add(fold(label))
        for child in node.children:
            walk(child, here)

    for root in tree.roots:
        walk(root, True)
    return seen, hidden - seen
