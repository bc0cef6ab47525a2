"""CAAP's element list: the method's line form, the Android field mapping, what is listed, the screen signature."""

from __future__ import annotations

from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.agent.caap.elements import build_elements, element_lines, screen_signature

SIZE = ScreenSize(1080, 2400)


def _tree(*nodes: UINode) -> UITree:
    return UITree(roots=(UINode("android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400), children=nodes),),
                  screen=SIZE)


def _row(title: str, switch_on: bool, top: int) -> UINode:
    return UINode("android.widget.LinearLayout", clickable=True, bounds=Bounds(0, top, 1080, top + 200), children=(
        UINode("android.widget.TextView", text=title, bounds=Bounds(198, top + 40, 400, top + 100)),
        UINode("android.widget.Switch", text="ON" if switch_on else "OFF", checkable=True, checked=switch_on,
               bounds=Bounds(908, top + 60, 1036, top + 134)),
    ))


SCREEN = _tree(
    UINode("android.widget.ImageButton", content_desc="Navigate up", clickable=True, bounds=Bounds(0, 128, 154, 304)),
    UINode("android.widget.EditText", hint="Search", editable=True, focused=True, clickable=True,
           bounds=Bounds(200, 150, 900, 280)),
    UINode("androidx.recyclerview.widget.RecyclerView", scrollable=True, bounds=Bounds(0, 304, 1080, 2300), children=(
        _row("Roaming", True, 304),
        UINode("android.view.View", bounds=Bounds(0, 504, 1080, 506)),  # a divider
        UINode("android.widget.CheckBox", text="Remember", checkable=True, checked=False,
               bounds=Bounds(40, 520, 600, 600)),
        UINode("android.widget.Button", text="Save", clickable=True, enabled=False, bounds=Bounds(700, 620, 1000, 700)),
        UINode("android.widget.TextView", text="Hidden", visible=False, bounds=Bounds(0, 720, 300, 780)),
        UINode("android.widget.TextView", text="Below the screen", bounds=Bounds(0, 2500, 300, 2600)),
    )),
)


def test_each_element_is_one_line_in_the_methods_form() -> None:
    lines = element_lines(build_elements(SCREEN)).splitlines()
    assert lines == [
        '- ID: element_1, data: {type: icon, X: 77 [0-154], Y: 216 [128-304], text: "Navigate up"}',
        '- ID: element_2, data: {type: input_field, X: 550 [200-900], Y: 215 [150-280], text: "Search", '
        'focused: True}',
        '- ID: element_3, data: {type: scroll_area, X: 540 [0-1080], Y: 1302 [304-2300], text: "", scrollable: True}',
        '- ID: element_4, data: {type: text, X: 299 [198-400], Y: 374 [344-404], text: "Roaming"}',
        '- ID: element_5, data: {type: checkbox, subtype: switch, X: 972 [908-1036], Y: 401 [364-438], text: "ON", '
        'checked: True}',
        '- ID: element_6, data: {type: checkbox, X: 320 [40-600], Y: 560 [520-600], text: "Remember", checked: False}',
        '- ID: element_7, data: {type: button, X: 850 [700-1000], Y: 660 [620-700], text: "Save", enabled: False}',
    ]


def test_the_row_container_the_divider_the_invisible_and_the_offscreen_are_not_listed() -> None:
    texts = [e.text for e in build_elements(SCREEN)]
    assert "Hidden" not in texts and "Below the screen" not in texts
    assert len(texts) == 7  # no line for the clickable row (its title is listed) or the divider


def test_a_text_is_quoted_with_escapes_and_an_unlabelled_control_is_kept() -> None:
    tree = _tree(UINode("android.widget.TextView", text='Say "hi"', bounds=Bounds(0, 300, 500, 400)),
                 UINode("android.widget.ImageView", clickable=True, bounds=Bounds(600, 300, 700, 400)))
    lines = element_lines(build_elements(tree)).splitlines()
    assert 'text: "Say \\"hi\\""' in lines[0]
    assert lines[1] == '- ID: element_2, data: {type: icon, X: 650 [600-700], Y: 350 [300-400], text: ""}'


def test_the_signature_ignores_the_clock_and_focus_but_not_a_state_or_a_scroll() -> None:
    def signature(tree: UITree) -> str:
        return screen_signature(build_elements(tree), SIZE)

    def clock(time: str, focused: bool = False, checked: bool = True, top: int = 304) -> UITree:
        return _tree(UINode("android.widget.TextView", text=f"Alarm at {time}", focused=focused,
                            bounds=Bounds(0, 300, 500, 400)),
                     _row("Roaming", checked, top))

    base = signature(clock("7:00"))
    assert signature(clock("7:01")) == base
    assert signature(clock("7:00", focused=True)) == base
    assert signature(clock("7:00", checked=False)) != base
    assert signature(clock("7:00", top=904)) != base
    status_bar = _tree(UINode("android.widget.TextView", text="96%", bounds=Bounds(900, 10, 1000, 60)))
    assert screen_signature(build_elements(status_bar), SIZE) == screen_signature((), SIZE)
