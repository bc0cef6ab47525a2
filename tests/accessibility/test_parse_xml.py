"""Parsing uiautomator dumps and Appium page sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.accessibility.parse_xml import parse_bounds, parse_xml
from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.errors import ParseError, TreeTooLargeError
from tests.accessibility.screens import real_xml_screens, screen_id

NODE = (
    '<node index="0" text="{text}" resource-id="" class="{cls}" package="com.example" content-desc="" '
    'checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" '
    'scrollable="false" long-clickable="false" password="false" selected="false" bounds="{bounds}"{extra}>'
)


def node(text: str = "", cls: str = "android.widget.TextView", bounds: str = "[0,0][100,100]",
         extra: str = "", children: str = "") -> str:
    return NODE.format(text=text, cls=cls, bounds=bounds, extra=extra) + children + "</node>"


def dump(*nodes: str, root_attrs: str = 'rotation="0"') -> str:
    head = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
    return f"{head}<hierarchy {root_attrs}>{''.join(nodes)}</hierarchy>"


@pytest.mark.parametrize("path", real_xml_screens(), ids=screen_id)
def test_every_real_screen_parses(path: Path) -> None:
    tree = parse_xml(path.read_bytes(), source=str(path))
    assert tree.node_count > 0
    assert tree.screen is not None and tree.screen.width > 0 and tree.screen.height > 0
    assert all(n.class_name for n in tree.iter())


def test_old_attribute_set_without_index_package_or_visibility() -> None:
    # AndroidWorld-era dumps (midscene fixture) omit index, package, password, long-clickable.
    xml = ('<hierarchy rotation="0"><node text="Hi" resource-id="" class="android.widget.TextView" '
           'content-desc="" clickable="false" enabled="true" bounds="[0,0][10,10]"/></hierarchy>')
    tree = parse_xml(xml)
    (root,) = tree.roots
    assert root.text == "Hi" and root.package == "" and root.index == 0 and root.visible is None
    assert not root.password and not root.long_clickable and root.enabled


def test_new_attribute_set() -> None:
    xml = dump(node("Name", cls="android.widget.EditText",
                    extra=' visible-to-user="false" drawing-order="3" hint="Your name" display-id="0"'))
    (root,) = parse_xml(xml).roots
    assert root.visible is False
    assert root.drawing_order == 3
    assert root.hint == "Your name"
    assert root.display_id == 0


def test_several_windows_in_one_dump_become_roots() -> None:
    xml = dump(node("app", bounds="[0,0][1080,2400]"), node("status bar", bounds="[0,0][1080,80]"))
    tree = parse_xml(xml)
    assert [r.text for r in tree.roots] == ["app", "status bar"]
    assert tree.screen == ScreenSize(1080, 2400)


def test_display_groups() -> None:
    xml = ('<hierarchy rotation="0"><display id="0">' + node("main", bounds="[0,0][1080,2400]")
           + '</display><display id="2">' + node("cast", bounds="[0,0][1920,1080]") + "</display></hierarchy>")
    tree = parse_xml(xml)
    assert [(r.text, r.display_id) for r in tree.roots] == [("main", 0), ("cast", 2)]
    # The phone's screen is display 0 only.
    assert tree.screen == ScreenSize(1080, 2400)


def test_appium_page_source_uses_class_tags_displayed_and_root_size() -> None:
    xml = ('<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2088">'
           '<android.widget.FrameLayout index="0" package="p" class="android.widget.FrameLayout" text="" '
           'bounds="[0,0][1080,2088]" displayed="true"><android.widget.TextView index="0" package="p" '
           'class="android.widget.TextView" text="Hidden" bounds="[0,0][10,10]" displayed="false"/>'
           "</android.widget.FrameLayout></hierarchy>")
    tree = parse_xml(xml)
    assert tree.source == "appium"
    assert tree.screen == ScreenSize(1080, 2088)
    (root,) = tree.roots
    assert root.visible is True and root.children[0].visible is False


def test_appium_tag_used_when_class_attribute_missing() -> None:
    xml = '<hierarchy width="10" height="10"><android.widget.Button text="OK" bounds="[0,0][5,5]"/></hierarchy>'
    (root,) = parse_xml(xml).roots
    assert root.class_name == "android.widget.Button"


def test_missing_bounds_is_none() -> None:
    xml = '<hierarchy><node class="android.widget.TextView" text="x"/></hierarchy>'
    (root,) = parse_xml(xml).roots
    assert root.bounds is None


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (dump(node("a"))[:-40], "truncated XML"),
        ("<html><body/></html>", "root element is <html>, expected <hierarchy>"),
        (b"<?xml version='1.0' encoding='UTF-8'?><hierarchy><node class='x' text='\xff\xfe'/></hierarchy>",
         "not valid UTF-8"),
        (dump(node("a", bounds="[a,b][c]")), "bad bounds '[a,b][c]'"),
        (dump(node("a", bounds="[0,0][10]")), "bad bounds"),
        ('<hierarchy rotation="0"></hierarchy>', "hierarchy holds no nodes"),
        ("", "empty input"),
        ("   \n", "empty input"),
        (dump(node("a", extra=' clickable2="x"').replace('clickable="false"', 'clickable="maybe"')),
         "clickable='maybe' is not true/false"),
        (dump(node("a", extra=' drawing-order="x1"')), "drawing-order='x1' is not an integer"),
        ('<hierarchy><node text="no class"/></hierarchy>', "node has no class attribute"),
    ],
    ids=["truncated", "wrong-root", "non-utf8", "bad-bounds", "short-bounds", "empty-hierarchy",
         "empty-input", "blank-input", "bad-bool", "bad-int", "no-class"],
)
def test_bad_input_raises_parse_error_saying_what(data: str | bytes, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_xml(data, source="screen.xml")
    message = str(info.value)
    assert fragment in message
    assert message.startswith("screen.xml")


def test_bad_bounds_error_names_the_node() -> None:
    xml = dump(node("root", bounds="[0,0][100,100]", children=node("child", bounds="[1,2][3]")))
    with pytest.raises(ParseError) as info:
        parse_xml(xml, source="s.xml")
    assert info.value.location == "line 1, hierarchy/node[0]/node[0]"


def test_truncated_error_names_line_and_column() -> None:
    xml = dump(node("a")).replace("><", ">\n<")
    with pytest.raises(ParseError) as info:
        parse_xml(xml[: len(xml) // 2])
    assert info.value.location.startswith("line ")


def test_too_many_nodes_refused() -> None:
    xml = dump(*(node(str(i)) for i in range(60)))
    with pytest.raises(TreeTooLargeError, match="more than 50 nodes, the limit"):
        parse_xml(xml, max_nodes=50)


def test_excessive_depth_is_a_parse_error_not_a_crash() -> None:
    deep = "".join(NODE.format(text="", cls="android.widget.FrameLayout", bounds="[0,0][9,9]", extra="")
                   for _ in range(3000)) + "</node>" * 3000
    with pytest.raises(ParseError):
        parse_xml(dump(deep))


def test_too_deep_error_names_the_ends_of_the_node_path_not_every_level() -> None:
    deep = "".join(NODE.format(text="", cls="android.widget.FrameLayout", bounds="[0,0][9,9]", extra="")
                   for _ in range(300)) + "</node>" * 300
    with pytest.raises(TreeTooLargeError) as caught:
        parse_xml(dump(deep), source="deep.xml")
    message = str(caught.value)
    assert len(message) < 250, message
    assert "line 1, hierarchy/node[0]/node[0]/node[0]/...(249 levels).../node[0]/node[0]/node[0]/node[0]:" in message
    assert message.endswith("nested deeper than 256 levels")


def test_str_input_with_encoding_declaration() -> None:
    tree = parse_xml(dump(node("ünïcødé ✓")))
    assert tree.roots[0].text == "ünïcødé ✓"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("[0,0][1080,2400]", Bounds(0, 0, 1080, 2400)), ("[-5,10][20,-3]", Bounds(-5, 10, 20, -3))],
)
def test_parse_bounds(text: str, expected: Bounds) -> None:
    assert parse_bounds(text) == expected


def test_an_unknown_declared_encoding_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="unknown encoding"):
        parse_xml(b"<?xml version='1.0' encoding='UTF-U' ?><hierarchy rotation='0'><node bounds='[0,0][1,1]'/>"
                  b"</hierarchy>")
