"""Parsing AndroidEnv accessibility forests (from the proto object and from bytes)."""

from __future__ import annotations

import pytest

from latent_agent.accessibility.load import parse_any
from latent_agent.accessibility.parse_androidenv import parse_forest
from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.errors import ParseError, TreeTooLargeError

forest_pb2 = pytest.importorskip("android_env.proto.a11y.android_accessibility_forest_pb2")


def make_forest() -> object:
    forest = forest_pb2.AndroidAccessibilityForest()
    app = forest.windows.add()
    app.id = 1
    app.bounds_in_screen.right, app.bounds_in_screen.bottom = 1080, 2400
    root = app.tree.nodes.add()
    root.unique_id = 10
    root.class_name = "android.widget.FrameLayout"
    root.package_name = "com.android.settings"
    root.bounds_in_screen.right, root.bounds_in_screen.bottom = 1080, 2400
    root.is_visible_to_user = True
    root.child_ids.extend([11, 12])
    switch = app.tree.nodes.add()
    switch.unique_id = 11
    switch.class_name = "android.widget.Switch"
    switch.text = "Roaming"
    switch.is_checkable = True
    switch.is_checked = False
    switch.is_clickable = True
    switch.is_visible_to_user = True
    switch.bounds_in_screen.left, switch.bounds_in_screen.top = 900, 300
    switch.bounds_in_screen.right, switch.bounds_in_screen.bottom = 1040, 380
    field = app.tree.nodes.add()
    field.unique_id = 12
    field.class_name = "android.widget.EditText"
    field.hint_text = "Search settings"
    field.content_description = "Search"
    field.is_editable = True
    field.is_focused = True
    field.is_visible_to_user = True
    field.bounds_in_screen.right, field.bounds_in_screen.bottom = 1080, 200
    status = forest.windows.add()
    status.id = 2
    status.bounds_in_screen.right, status.bounds_in_screen.bottom = 1080, 80
    clock = status.tree.nodes.add()
    clock.unique_id = 1
    clock.class_name = "android.widget.TextView"
    clock.text = "12:30"
    clock.is_visible_to_user = True
    clock.bounds_in_screen.right, clock.bounds_in_screen.bottom = 100, 80
    return forest


def test_forest_object_parses_into_windows_and_nodes() -> None:
    tree = parse_forest(make_forest())
    assert tree.source == "androidenv"
    assert tree.screen == ScreenSize(1080, 2400)
    app, status = tree.roots
    assert app.package == "com.android.settings"
    switch, field = app.children
    assert switch.text == "Roaming" and switch.checkable and not switch.checked and switch.clickable
    assert switch.bounds == Bounds(900, 300, 1040, 380)
    assert field.hint == "Search settings" and field.content_desc == "Search"
    assert field.editable and field.focused and field.visible
    assert status.text == "12:30"


def test_serialized_bytes_parse_identically() -> None:
    forest = make_forest()
    data = forest.SerializeToString()  # type: ignore[attr-defined]
    assert parse_forest(data) == parse_forest(forest)
    assert parse_any(data, source="f.pb") == parse_forest(forest)


def test_missing_child_id_is_an_error() -> None:
    forest = make_forest()
    forest.windows[0].tree.nodes[0].child_ids.append(99)  # type: ignore[attr-defined]
    with pytest.raises(ParseError, match="child id 99 names no node"):
        parse_forest(forest)


def test_cycle_is_an_error() -> None:
    forest = make_forest()
    forest.windows[0].tree.nodes[1].child_ids.append(10)  # type: ignore[attr-defined]
    with pytest.raises(ParseError, match="cycle"):
        parse_forest(forest)


def test_empty_forest_is_an_error() -> None:
    with pytest.raises(ParseError, match=r"no windows|no nodes"):
        parse_forest(forest_pb2.AndroidAccessibilityForest().SerializeToString() + b"")


def test_garbage_bytes_name_both_formats() -> None:
    with pytest.raises(ParseError, match="neither an XML screen dump") as caught:
        parse_any(b"\x00\x01\x02garbage\xff" * 10, source="junk.bin")
    assert str(caught.value) == ("junk.bin: neither an XML screen dump (uiautomator / Appium) nor an AndroidEnv "
                                 "accessibility forest")


def test_garbage_bytes_given_as_a_forest_say_they_are_no_forest_not_how_protobuf_failed() -> None:
    with pytest.raises(ParseError) as caught:
        parse_forest(b"\x00\x01\x02garbage\xff" * 10, source="junk.bin")
    assert str(caught.value) == "junk.bin: not an AndroidEnv accessibility forest (the bytes do not decode as one)"
    assert "wire" not in str(caught.value).lower()


def test_broken_forest_read_through_parse_any_keeps_its_reason() -> None:
    forest = make_forest()
    forest.windows[0].tree.nodes[0].child_ids.append(99)  # type: ignore[attr-defined]
    with pytest.raises(ParseError, match="not a readable AndroidEnv accessibility forest: child id 99 names no node"):
        parse_any(forest.SerializeToString(), source="broken.pb")  # type: ignore[attr-defined]


def test_too_deep_forest_error_names_the_ends_of_the_node_path() -> None:
    forest = forest_pb2.AndroidAccessibilityForest()
    window = forest.windows.add()
    window.bounds_in_screen.right, window.bounds_in_screen.bottom = 1080, 2400
    for i in range(500):
        node = window.tree.nodes.add()
        node.unique_id = i
        node.class_name = "android.widget.FrameLayout"
        if i < 499:
            node.child_ids.append(i + 1)
    with pytest.raises(TreeTooLargeError) as caught:
        parse_forest(forest)
    assert len(str(caught.value)) < 200, str(caught.value)
    assert "window[0]/node[1]/node[2]/node[3]/...(" in str(caught.value)


def test_node_limit() -> None:
    with pytest.raises(TreeTooLargeError):
        parse_forest(make_forest(), max_nodes=2)


def _doubling_chain(levels: int) -> object:
    """A forest whose every node lists its one child twice: a few hundred bytes, 2**levels nodes as a tree."""
    forest = forest_pb2.AndroidAccessibilityForest()
    window = forest.windows.add()
    for i in range(levels + 1):
        node = window.tree.nodes.add()
        node.unique_id = i
        node.class_name = "android.widget.FrameLayout"
        if i < levels:
            node.child_ids.extend([i + 1, i + 1])
    return forest


def test_children_listed_twice_cannot_blow_up_the_tree() -> None:
    with pytest.raises(TreeTooLargeError, match="expand to more than 1000"):
        parse_forest(_doubling_chain(12), max_nodes=1000)
    attack = _doubling_chain(20).SerializeToString()  # type: ignore[attr-defined]
    assert len(attack) < 1000
    with pytest.raises(TreeTooLargeError, match="expand to more than 100000"):
        parse_forest(attack)
    assert parse_forest(_doubling_chain(3), max_nodes=15).node_count == 15  # within the limit: kept as listed
