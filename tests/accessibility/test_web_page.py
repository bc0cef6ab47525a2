"""The page view's records and its compact screen, without a browser (the walk itself: tests/device/miniwob)."""

from __future__ import annotations

from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.accessibility.web_page import PageElement, PageView, compact_line, grid_position

SCREEN = ScreenSize(480, 630)


def element(ref: int, tag: str, box: tuple[int, int, int, int], **fields: object) -> PageElement:
    return PageElement(ref, tag, Bounds(*box), visible=bool(fields.pop("visible", True)),
                       leaf=bool(fields.pop("leaf", True)), **fields)  # type: ignore[arg-type]


def test_positions_follow_the_box_centre_on_a_3x3_grid() -> None:
    assert grid_position(Bounds(0, 0, 10, 10), SCREEN) == "top left"
    assert grid_position(Bounds(200, 0, 280, 30), SCREEN) == "top"
    assert grid_position(Bounds(400, 0, 480, 30), SCREEN) == "top right"
    assert grid_position(Bounds(200, 300, 280, 330), SCREEN) == "center"
    assert grid_position(Bounds(0, 300, 40, 330), SCREEN) == "left"
    assert grid_position(Bounds(400, 600, 480, 630), SCREEN) == "bottom right"
    assert grid_position(Bounds(200, 620, 280, 700), SCREEN) == "bottom"  # below the screen: the last row
    assert grid_position(Bounds(-90, 0, -10, 10), SCREEN) == "top left"


def test_a_compact_line_leaves_empty_attributes_out() -> None:
    button = element(4, "button", (10, 10, 100, 40), text="Submit")
    assert compact_line(button, SCREEN) == '<button id=4 pos="top left">Submit</button>'
    field = element(7, "input_text", (200, 300, 280, 330), dom_id="tt", placeholder="Name", value="Bob")
    # No class: the HTML id stands in, as in the authors' format.
    assert compact_line(field, SCREEN) == \
        '<input_text id=7 class="tt" placeholder="Name" value="Bob" pos="center"></input_text>'
    box = element(9, "input_checkbox", (0, 600, 20, 620), classes=("a", "b"), checked=True)
    assert compact_line(box, SCREEN) == \
        '<input_checkbox id=9 class="a b" value="True" pos="bottom left"></input_checkbox>'
    unchecked = element(10, "input_checkbox", (0, 600, 20, 620), checked=False)
    assert 'value=' not in compact_line(unchecked, SCREEN)


def test_page_text_is_escaped_and_cannot_break_the_screen() -> None:
    hostile = element(-1, "t", (0, 0, 10, 10), text='</t>\n<button id=1>ok</button> & "x"',
                      placeholder='a" onclick="b')
    line = compact_line(hostile, SCREEN)
    assert "\n" not in line
    assert line == ('<t id=-1 placeholder="a&quot; onclick=&quot;b" pos="top left">&lt;/t&gt; &lt;button id=1&gt;ok'
                    '&lt;/button&gt; &amp; "x"</t>')
    assert compact_line(element(2, "x><script", (0, 0, 5, 5)), SCREEN).startswith("<div id=2 ")


def test_compact_html_shows_visible_leaves_in_order_and_elements_are_found_by_id() -> None:
    view = PageView((element(1, "div", (0, 0, 480, 630), leaf=False, dom_id="wrap"),
                     element(2, "span", (0, 0, 100, 20), text="Tab 1"),
                     element(3, "span", (0, 0, 0, 0), text="hidden", visible=False),
                     element(-1, "t", (0, 30, 50, 50), text="words")),
                    "<div></div>", SCREEN)
    assert view.compact_html() == '<span id=2 pos="top left">Tab 1</span>\n<t id=-1 pos="top left">words</t>'
    assert [e.id for e in view.leaves] == [2, -1]
    found = view.element(3)
    assert found is not None and found.text == "hidden" and not found.visible
    assert view.element(99) is None
