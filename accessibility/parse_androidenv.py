"""Parse AndroidEnv accessibility forests (``android_env.proto.a11y``) into a :class:`UITree`.

A forest holds windows; each window holds a tree as a flat list of nodes that
point at their children by ``unique_id``. The proto classes come from the
optional ``android-env`` dependency (the ``androidenv`` extra)
and are imported only when a forest is parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from latent_agent.accessibility.parse_xml import short_path
from latent_agent.accessibility.text_cap import cap_text
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.errors import ParseError, TreeTooLargeError
from latent_agent.extras import error_for

if TYPE_CHECKING:
    from android_env.proto.a11y.android_accessibility_forest_pb2 import AndroidAccessibilityForest

#: Deeper trees are refused: no real screen nests this deep, and the builder recurses.
MAX_DEPTH = 400


def _forest_class() -> type[AndroidAccessibilityForest]:
    try:
        from android_env.proto.a11y.android_accessibility_forest_pb2 import (
            AndroidAccessibilityForest,
        )
    except ImportError as exc:  # pragma: no cover - depends on the environment

        raise error_for("androidenv", ["android_env"], "parsing AndroidEnv forests") from exc
    forest_class: type[AndroidAccessibilityForest] = AndroidAccessibilityForest
    return forest_class


def forest_from_bytes(data: bytes, *, source: str = "<forest>") -> AndroidAccessibilityForest:
    """Decode a serialized ``AndroidAccessibilityForest``.

    Raises:
        ParseError: If the bytes are not a forest with at least one window.
    """
    from google.protobuf.message import DecodeError

    forest = _forest_class()()
    try:
        forest.ParseFromString(data)
    except DecodeError:
        # protobuf's own words ("Wire format was corrupt") say nothing to someone who
        # passed the wrong file; what matters is that these bytes are no forest.
        raise ParseError("not an AndroidEnv accessibility forest (the bytes do not decode as one)",
                         source=source) from None
    if not forest.windows:
        raise ParseError("not an AndroidEnv accessibility forest (it decodes to no windows)", source=source)
    return forest


def parse_forest(
    forest: AndroidAccessibilityForest | bytes, *, source: str = "<forest>", max_nodes: int = 100_000
) -> UITree:
    """Turn an AndroidEnv forest (proto object or its serialized bytes) into a tree.

    Windows become roots in the forest's order. A window's root is the node no
    other node lists as a child.

    Raises:
        ParseError: For bytes that are not a forest, a tree with missing or
            cyclic child ids, or a forest without nodes.
        TreeTooLargeError: Above ``max_nodes`` nodes (in the flat lists, or in the tree they expand
            to: a child listed twice at each of 20 levels is a million nodes) or :data:`MAX_DEPTH` levels.
    """
    if isinstance(forest, bytes | bytearray):
        forest = forest_from_bytes(bytes(forest), source=source)
    total = sum(len(w.tree.nodes) for w in forest.windows)
    if total > max_nodes:
        raise TreeTooLargeError(f"{total} nodes exceed the limit of {max_nodes}", source=source)
    roots: list[UINode] = []
    budget = _Budget(max_nodes, source)
    right = bottom = 0
    for wi, window in enumerate(forest.windows):
        b = window.bounds_in_screen
        right, bottom = max(right, b.right), max(bottom, b.bottom)
        by_id = {n.unique_id: n for n in window.tree.nodes}
        if not by_id:
            continue
        children_ids = {c for n in window.tree.nodes for c in n.child_ids}
        for cid in children_ids:
            if cid not in by_id:
                raise ParseError(f"child id {cid} names no node", source=source, location=f"window[{wi}]")
        tops = [n for n in window.tree.nodes if n.unique_id not in children_ids]
        if not tops:
            raise ParseError("every node is some node's child (cycle)", source=source,
                             location=f"window[{wi}]")
        for top in tops:
            roots.append(_build(top, by_id, source, f"window[{wi}]", set(), 0, window.display_id, budget))
    if not roots:
        raise ParseError("forest holds no nodes (empty screen)", source=source)
    screen = ScreenSize(right, bottom) if right > 0 and bottom > 0 else None
    return UITree(roots=tuple(roots), screen=screen, source="androidenv")


class _Budget:
    """How many nodes a forest may still expand to.

    A node listed as the child of two nodes (or twice by one) is built once per listing, so the
    flat count says nothing about the tree's size: every built node is counted here.
    """

    __slots__ = ("left", "limit", "source")

    def __init__(self, limit: int, source: str) -> None:
        self.limit = limit
        self.left = limit
        self.source = source

    def spend(self, where: str) -> None:
        """Count one more node built.

        Raises:
            TreeTooLargeError: The tree has grown past the limit.
        """
        self.left -= 1
        if self.left < 0:
            raise TreeTooLargeError(
                f"the nodes expand to more than {self.limit} (children listed more than once)",
                source=self.source, location=short_path(where.split("/")))


def _build(node: Any, by_id: dict[int, Any], source: str, where: str, seen: set[int], depth: int,
           display_id: int, budget: _Budget) -> UINode:
    budget.spend(where)
    if depth > MAX_DEPTH:
        raise TreeTooLargeError(f"tree deeper than {MAX_DEPTH} levels", source=source,
                                location=short_path(where.split("/")))
    if node.unique_id in seen:
        raise ParseError(f"node {node.unique_id} is its own ancestor (cycle)", source=source,
                         location=short_path(where.split("/")))
    seen.add(node.unique_id)
    b = node.bounds_in_screen
    children = tuple(
        _build(by_id[cid], by_id, source, f"{where}/node[{cid}]", seen, depth + 1, display_id, budget)
        for cid in node.child_ids
    )
    seen.discard(node.unique_id)
    return UINode(
        class_name=cap_text(node.class_name or "android.view.View"),
        text=cap_text(node.text),
        content_desc=cap_text(node.content_description),
        hint=cap_text(node.hint_text),
        resource_id=cap_text(node.view_id_resource_name),
        package=cap_text(node.package_name),
        bounds=Bounds(b.left, b.top, b.right, b.bottom),
        checkable=node.is_checkable,
        checked=node.is_checked,
        clickable=node.is_clickable,
        long_clickable=node.is_long_clickable,
        enabled=node.is_enabled,
        focusable=node.is_focusable,
        focused=node.is_focused,
        scrollable=node.is_scrollable,
        selected=node.is_selected,
        password=node.is_password,
        editable=node.is_editable,
        visible=node.is_visible_to_user,
        drawing_order=node.drawing_order,
        display_id=display_id,
        children=children,
    )
