"""A screen as an AndroidEnv accessibility forest, its labels written by the test.

A uiautomator dump is XML 1.0, which cannot carry most control characters; a forest is protobuf, whose
strings carry any text. Hostile-text tests write their labels here so that escape sequences, NUL and
the rest reach the parser as an app on a real AndroidEnv device could send them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from latent_agent.accessibility.tree import UINode, UITree

forest_pb2 = pytest.importorskip("android_env.proto.a11y.android_accessibility_forest_pb2")


def forest_bytes(tree: UITree, label: Callable[[str], str]) -> bytes:
    """``tree`` serialized as a forest (one window a root), each non-empty text and content description
    replaced by ``label(old)``."""
    forest = forest_pb2.AndroidAccessibilityForest()
    ids: Iterator[int] = iter(range(1, 1_000_000))
    for number, root in enumerate(tree.roots, 1):
        window = forest.windows.add()
        window.id = number
        if root.display_id is not None:
            window.display_id = root.display_id
        if root.bounds is not None:
            b = window.bounds_in_screen
            b.left, b.top, b.right, b.bottom = root.bounds.left, root.bounds.top, root.bounds.right, root.bounds.bottom
        _add(window.tree, root, ids, label)
    data: bytes = forest.SerializeToString()
    return data


def _add(tree: object, node: UINode, ids: Iterator[int], label: Callable[[str], str]) -> int:
    out = tree.nodes.add()  # type: ignore[attr-defined]
    out.unique_id = next(ids)
    out.class_name = node.class_name
    out.text = label(node.text) if node.text else ""
    out.content_description = label(node.content_desc) if node.content_desc else ""
    out.hint_text = node.hint
    out.view_id_resource_name = node.resource_id
    out.package_name = node.package
    if node.bounds is not None:
        b = out.bounds_in_screen
        b.left, b.top, b.right, b.bottom = node.bounds.left, node.bounds.top, node.bounds.right, node.bounds.bottom
    for flag, value in (("is_checkable", node.checkable), ("is_checked", node.checked),
                        ("is_clickable", node.clickable), ("is_long_clickable", node.long_clickable),
                        ("is_enabled", node.enabled), ("is_focusable", node.focusable), ("is_focused", node.focused),
                        ("is_scrollable", node.scrollable), ("is_selected", node.selected),
                        ("is_password", node.password), ("is_editable", node.editable),
                        ("is_visible_to_user", node.visible is not False)):
        setattr(out, flag, value)
    if node.drawing_order is not None:
        out.drawing_order = node.drawing_order
    out.child_ids.extend(_add(tree, child, ids, label) for child in node.children)
    unique_id: int = out.unique_id
    return unique_id
