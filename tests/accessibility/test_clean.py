"""Cleaning: invisible and off-screen nodes dropped, empty container chains collapsed."""

from __future__ import annotations

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree

SCREEN = ScreenSize(1080, 2400)
FULL = Bounds(0, 0, 1080, 2400)


SMALL = Bounds(0, 0, 100, 50)


def text(label: str, bounds: Bounds = SMALL, **kw: object) -> UINode:
    return UINode(class_name="android.widget.TextView", text=label, bounds=bounds, **kw)  # type: ignore[arg-type]


def group(*children: UINode, cls: str = "android.widget.FrameLayout", bounds: Bounds = FULL,
          **kw: object) -> UINode:
    return UINode(class_name=cls, bounds=bounds, children=children, **kw)  # type: ignore[arg-type]


def tree(*roots: UINode) -> UITree:
    return UITree(roots=roots, screen=SCREEN)


def labels(t: UITree) -> list[str]:
    return [n.text for n in t.iter() if n.text]


def test_invisible_nodes_dropped_with_subtree() -> None:
    hidden = group(text("inside hidden"), text("also inside"), visible=False)
    cleaned = clean_tree(tree(group(text("shown"), hidden)))
    assert labels(cleaned) == ["shown"]


def test_offscreen_nodes_dropped_but_partly_visible_kept() -> None:
    below = text("below the fold", Bounds(0, 2400, 1080, 2500))
    left = text("left of screen", Bounds(-300, 10, 0, 60))
    partly = text("half visible", Bounds(0, 2350, 1080, 2450))
    empty = text("zero size", Bounds(10, 10, 10, 10))
    cleaned = clean_tree(tree(group(text("top"), below, left, partly, empty)))
    assert labels(cleaned) == ["top", "half visible"]


def test_chain_of_empty_containers_collapses_to_content() -> None:
    leaf = text("Roaming")
    chain = group(group(group(group(leaf, cls="android.widget.LinearLayout"))))
    cleaned = clean_tree(tree(chain))
    assert cleaned.roots == (leaf,)


def test_container_with_several_children_stays_as_group() -> None:
    cleaned = clean_tree(tree(group(group(text("a"), text("b")))))
    (root,) = cleaned.roots
    assert [c.text for c in root.children] == ["a", "b"]


def test_clickable_labelled_or_scrollable_containers_are_kept() -> None:
    row = group(text("Wi-Fi"), cls="android.widget.LinearLayout", clickable=True)
    labelled = group(text("x"), content_desc="Toolbar")
    scroller = group(text("y"), cls="androidx.recyclerview.widget.RecyclerView", scrollable=True)
    cleaned = clean_tree(tree(group(row, labelled, scroller)))
    kept = [n for n in cleaned.iter() if n.children]
    assert row in kept and labelled in kept and scroller in kept


def test_empty_leaves_and_unlabelled_images_removed_but_unlabelled_buttons_kept() -> None:
    icon = UINode(class_name="android.widget.ImageView", bounds=Bounds(0, 0, 40, 40))
    button = UINode(class_name="android.widget.ImageButton", bounds=Bounds(0, 0, 40, 40), clickable=True)
    switch = UINode(class_name="android.widget.Switch", bounds=Bounds(0, 0, 40, 40), checkable=True)
    cleaned = clean_tree(tree(group(icon, button, switch, group())))
    assert [n.class_name for n in cleaned.iter()] == [
        "android.widget.FrameLayout", "android.widget.ImageButton", "android.widget.Switch"]


def test_input_tree_is_not_modified_and_unchanged_nodes_are_shared() -> None:
    a, b = text("a"), text("b")
    root = group(a, b, content_desc="keep")
    original = tree(root)
    cleaned = clean_tree(original)
    assert cleaned.roots[0] is root
    assert original.roots == (root,)


def test_without_screen_size_only_visibility_and_containers_are_cleaned() -> None:
    far = text("far away", Bounds(5000, 5000, 5100, 5100))
    cleaned = clean_tree(UITree(roots=(group(far, text("hidden", visible=False)),), screen=None))
    assert labels(cleaned) == ["far away"]
