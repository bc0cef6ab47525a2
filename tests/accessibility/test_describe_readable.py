"""Descriptions that read as a person sees the screen: one line per control, nothing said twice or empty.

Each class of misleading or wasteful passage found on real screens has a test here, on a
screen from tests/data or on a minimal tree built to show it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from latent_agent.accessibility.clean import clean_tree, is_resource_reference
from latent_agent.accessibility.describe import describe, fold
from latent_agent.accessibility.elements import SLIVER_PX, elements_json, grounder_elements
from latent_agent.accessibility.load import load_tree
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.roles import STRUCTURE_KINDS
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.accessibility.widgets import Kind, kind_of
from tests.accessibility.screens import DATA, partition_labels, real_xml_screens, screen_id

SCREEN = ScreenSize(1080, 2400)


def described(rel: str) -> str:
    return describe(clean_tree(load_tree(DATA / rel)))


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def n(cls: str, box: tuple[int, int, int, int], *children: UINode, **kw: object) -> UINode:
    return UINode(class_name=cls, bounds=Bounds(*box), children=children, **kw)  # type: ignore[arg-type]


def screen(*nodes: UINode, package: str = "com.example") -> UITree:
    root = n("android.widget.FrameLayout", (0, 0, 1080, 2400), *nodes, package=package)
    return clean_tree(UITree(roots=(root,), screen=SCREEN))


# -- a control whose label sits on its children ------------------------------------------------


def test_compose_buttons_are_one_labelled_line_not_a_bare_button() -> None:
    text = described("uiautomator_dumps/nku-medgemma-conversion/triage_with_chip.xml")
    assert 'a button with the text "Run Triage Assessment"' in lines(text)
    assert 'a button described as "Voice input"' in lines(text)
    assert "a button" not in lines(text)
    assert text.count("Run Triage Assessment") == 1


def test_quick_settings_tile_states_its_name_once_with_its_state() -> None:
    text = described("uiautomator_dumps/keydroidx-launcher/systemui_ui_dump.xml")
    assert 'a switch with the texts "关闭", "已关闭" described as "蓝牙。" that is off' in lines(text)
    assert text.count("蓝牙") == 1
    assert 'a switch with the text "开启" described as "互联网,zxgj_5G" that is on' in lines(text)
    assert 'a text "zxgj_5G"' not in text


def test_tile_whose_children_repeat_its_label_is_one_line() -> None:
    tile = n("android.widget.Switch", (0, 300, 540, 500),
             n("android.widget.LinearLayout", (20, 320, 520, 480),
               n("android.widget.TextView", (40, 330, 400, 390), text="Flashlight"),
               n("android.widget.TextView", (40, 400, 400, 460), text="Off")),
             text="Off", content_desc="Flashlight", checkable=True, clickable=True)
    assert describe(screen(tile)) == 'a switch with the text "Off" described as "Flashlight" that is off'


def test_clickable_row_of_labels_is_one_line_named_by_its_texts() -> None:
    row = n("android.widget.LinearLayout", (0, 300, 1080, 500),
            n("android.widget.ImageView", (20, 330, 100, 410)),  # the row's icon, unlabelled
            n("android.widget.LinearLayout", (120, 320, 1000, 480),
              n("android.widget.TextView", (140, 330, 600, 390), text="Network & internet"),
              n("android.widget.TextView", (140, 400, 600, 460), text="Mobile, Wi-Fi, hotspot")),
            clickable=True)
    label = n("android.widget.TextView", (40, 100, 600, 160), text="Settings")
    assert describe(screen(label, row)) == (
        'a text "Settings"\n'
        'a clickable group with the texts "Network & internet", "Mobile, Wi-Fi, hotspot"')


def test_bottom_navigation_tab_is_one_line_and_keeps_its_own_states() -> None:
    tabs = [n("android.view.View", (270 * i, 2200, 270 * (i + 1), 2400),
              n("android.widget.TextView", (270 * i + 40, 2330, 270 * i + 200, 2380), text=name),
              n("android.view.View", (270 * i + 100, 2230, 270 * i + 170, 2300)),  # the tab's icon
              clickable=True, selected=(i == 1))
            for i, name in enumerate(("Home", "Search"))]
    assert describe(screen(*tabs)).splitlines() == [
        'a clickable view with the text "Home"',
        'a clickable view with the text "Search" that is selected',
    ]


def test_tap_target_holding_a_control_keeps_the_control_on_a_line_of_its_own() -> None:
    row = n("android.widget.LinearLayout", (0, 300, 1080, 500),
            n("android.widget.TextView", (40, 330, 600, 390), text="Roaming"),
            n("android.widget.Switch", (900, 330, 1040, 470), text="OFF", checkable=True, clickable=True),
            clickable=True)
    assert describe(screen(row)).splitlines() == [
        "a clickable group",
        '  a text "Roaming"',
        '  a switch with the text "OFF" that is off',
    ]


def test_search_bar_with_an_unclickable_icon_button_is_one_line() -> None:
    bar = n("android.widget.LinearLayout", (40, 100, 1040, 250),
            n("android.widget.ImageButton", (60, 120, 170, 230)),  # the magnifier, not clickable itself
            n("android.widget.TextView", (200, 140, 900, 210), text="Search settings"),
            clickable=True)
    assert describe(screen(bar)) == 'a clickable group with the text "Search settings"'


def test_row_of_labels_with_one_unlabelled_radio_button_is_that_choice_named_by_them() -> None:
    rows = [n("android.widget.LinearLayout", (0, 300 + 200 * i, 1080, 500 + 200 * i),
              n("android.widget.TextView", (40, 330 + 200 * i, 900, 390 + 200 * i), text=label),
              n("android.widget.TextView", (40, 400 + 200 * i, 900, 460 + 200 * i), text=summary),
              n("android.widget.RadioButton", (940, 330 + 200 * i, 1020, 410 + 200 * i), checkable=True,
                clickable=True, checked=(i == 0)),
              clickable=True)
            for i, (label, summary) in enumerate((("Wi-Fi only", "Saves data"), ("Always", "Any network")))]
    assert describe(screen(*rows)).splitlines() == [
        'a radio button with the texts "Wi-Fi only", "Saves data" that is checked',
        'a radio button with the texts "Always", "Any network" that is not checked',
    ]


def test_what_is_not_one_tap_target_is_not_merged() -> None:
    texts = [n("android.widget.TextView", (40, 330 + 100 * i, 600, 390 + 100 * i), text=f"Item {i}")
             for i in range(2)]
    scrolled = n("android.widget.LinearLayout", (0, 300, 1080, 600), *texts, clickable=True, scrollable=True)
    widget = n("android.widget.FrameLayout", (0, 700, 1080, 900),
               n("android.widget.TextView", (40, 730, 600, 790), text="6:40"), long_clickable=True)
    # Nothing names this one: its unlabelled icon stays listed under it rather than the line saying nothing.
    icon_only = n("android.widget.FrameLayout", (0, 1000, 200, 1200),
                  n("android.widget.ImageButton", (40, 1040, 160, 1160)), clickable=True)
    assert describe(screen(scrolled, widget, icon_only)).splitlines() == [
        "a clickable group that is scrollable",
        '  a text "Item 0"',
        '  a text "Item 1"',
        "a group",
        '  a text "6:40"',
        "a clickable group",
        "  an image button",
    ]


# -- the same long text twice --------------------------------------------------------------------


CAPTION = "Ten tips for a faster morning run, tested for a month"


def test_caption_on_a_feed_item_and_its_text_view_is_said_once() -> None:
    item = n("android.view.ViewGroup", (0, 300, 540, 900),
             n("android.widget.TextView", (20, 700, 520, 780), text=CAPTION),
             n("android.widget.TextView", (20, 800, 200, 840), text="1.2M views"),
             n("android.widget.FrameLayout", (440, 800, 520, 880), content_desc="More", clickable=True),
             content_desc=CAPTION, clickable=True)
    text = describe(screen(item))
    assert text.count(CAPTION) == 1
    assert text.splitlines()[0] == f'a clickable group described as "{CAPTION}"'
    assert '  a text "1.2M views"' in text.splitlines()


def test_caption_inside_a_longer_description_is_kept_as_a_label_of_its_own() -> None:
    desc = f"Video, {CAPTION}, 1.2M views, 12 minutes"
    item = n("android.view.ViewGroup", (0, 300, 540, 900),
             n("android.widget.TextView", (20, 700, 520, 780), text=CAPTION),
             n("android.widget.TextView", (20, 800, 200, 840), text="12:00"),
             n("android.widget.FrameLayout", (440, 800, 520, 880), content_desc="More", clickable=True),
             content_desc=desc, clickable=True)
    text = describe(screen(item))
    assert f'  a text "{CAPTION}"' in text.splitlines()
    assert 'a text "12:00"' in lines(text)


def test_description_repeated_by_a_slider_under_its_row_is_said_once_but_a_switch_keeps_its_name() -> None:
    slider_row = n("android.widget.LinearLayout", (0, 300, 1080, 420),
                   n("android.widget.SeekBar", (40, 320, 1040, 400), text="60", content_desc="Brightness"),
                   content_desc="Brightness")
    switch_row = n("android.widget.LinearLayout", (0, 500, 1080, 620),
                   n("android.widget.Switch", (900, 520, 1040, 600), text="OFF", content_desc="Wi-Fi",
                     checkable=True, clickable=True),
                   n("android.widget.ImageView", (40, 520, 120, 600), content_desc="Signal"),
                   content_desc="Wi-Fi")
    assert describe(screen(slider_row, switch_row)).splitlines() == [
        'a group described as "Brightness"',
        '  a seek bar with the text "60"',
        'a group described as "Wi-Fi"',
        '  a switch with the text "OFF" described as "Wi-Fi" that is off',
        '  an image described as "Signal"',
    ]


# -- unresolved resource references --------------------------------------------------------------


RESOURCE_DUMP = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" '
    'content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]">'
    '<node index="0" text="" resource-id="" class="android.widget.ImageButton" package="com.example" '
    'content-desc="@2132037175" clickable="true" enabled="true" bounds="[0,100][132,232]" />'
    '<node index="1" text="" resource-id="" class="android.widget.ImageView" package="com.example" '
    'content-desc="@string/cover_art" clickable="false" enabled="true" bounds="[200,100][500,400]" />'
    '<node index="2" text="Play" resource-id="" class="android.widget.Button" package="com.example" '
    'content-desc="@android:string/ok" clickable="true" enabled="true" bounds="[600,100][900,232]" />'
    '<node index="3" text="" resource-id="" class="android.widget.TextView" package="com.example" '
    'content-desc="@sam, 2 new posts" clickable="true" enabled="true" bounds="[0,500][1080,600]" />'
    "</node></hierarchy>"
)


@pytest.mark.parametrize("label", ["@2132037175", "@string/cover_art", "@android:string/ok", " @0 "])
def test_resource_references_are_recognised(label: str) -> None:
    assert is_resource_reference(label)


@pytest.mark.parametrize("label", ["@sam", "@sam, 2 new posts", "email me @ home", "@", "Play @2x"])
def test_words_starting_with_at_are_not_resource_references(label: str) -> None:
    assert not is_resource_reference(label)


def test_unresolved_resource_references_are_never_shown_as_labels() -> None:
    tree = clean_tree(parse_xml(RESOURCE_DUMP))
    text = describe(tree)
    listed = elements_json(grounder_elements(tree))
    for ref in ("@2132037175", "@string/cover_art", "@android:string/ok"):
        assert ref not in text and ref not in listed
    assert text.splitlines() == [
        "an image button",  # still a control to tap, now without a bogus name
        'a button with the text "Play"',
        'a clickable text described as "@sam, 2 new posts"',
    ]


# -- one choice, one line ------------------------------------------------------------------------


def sound_row(name: str, top: int, checked: bool) -> UINode:
    return n("android.widget.LinearLayout", (0, top, 1080, top + 150),
             n("android.widget.RadioButton", (40, top + 40, 110, top + 110), checkable=True, checked=checked),
             n("android.widget.CheckedTextView", (140, top + 40, 900, top + 110), text=name, checkable=True,
               checked=checked),
             clickable=True)


def test_radio_button_and_the_checked_text_view_naming_it_are_one_choice_on_one_line() -> None:
    text = describe(screen(sound_row("Argon", 300, True), sound_row("Awaken", 450, False)))
    assert text.splitlines() == [
        "a clickable group",
        '  a radio button with the text "Argon" that is checked',
        "a clickable group",
        '  a radio button with the text "Awaken" that is not checked',
    ]


def test_radio_button_and_text_that_disagree_are_both_listed() -> None:
    row = sound_row("Argon", 300, True)
    odd = row._replace(children=(row.children[0]._replace(checked=False), row.children[1]))
    text = describe(screen(odd))
    assert "a radio button that is not checked" in lines(text)
    assert 'a checked text view with the text "Argon" that is checked' in lines(text)


# -- launcher icons ------------------------------------------------------------------------------


def test_launcher_icons_are_app_icons() -> None:
    text = described("uiautomator_dumps/nku-medgemma-conversion/window_dump.xml")
    assert 'an app icon "Phone"' in lines(text)
    assert 'a text "Phone"' not in text
    home = described("uiautomator_dumps/midscene/android-world-clock-stopwatch-running.xml")
    assert 'an app icon "VLC" described as "Predicted app: VLC"' in lines(home)
    assert 'a clickable text "Sun, Oct 15"' in lines(home)  # the launcher's date is no app icon


def test_hotseat_icon_without_text_is_an_app_icon_named_by_its_description() -> None:
    icon = n("android.widget.TextView", (40, 2000, 240, 2200), content_desc="Phone", clickable=True,
             package="com.google.android.apps.nexuslauncher",
             resource_id="com.google.android.apps.nexuslauncher:id/icon")
    date = n("android.widget.TextView", (40, 200, 800, 300), text="Sun, Oct 15", clickable=True,
             package="com.google.android.apps.nexuslauncher",
             resource_id="com.google.android.apps.nexuslauncher:id/date")
    assert describe(screen(date, icon, package="com.google.android.apps.nexuslauncher")) == (
        'a clickable text "Sun, Oct 15"\nan app icon "Phone"')
    elsewhere = icon._replace(package="com.example", resource_id="")
    assert describe(screen(elsewhere)) == 'a clickable text described as "Phone"'


# -- containers with nothing to say --------------------------------------------------------------


def test_trailing_cut_off_row_and_empty_groups_are_not_listed() -> None:
    rows = [n("android.widget.LinearLayout", (0, 300 + 200 * i, 1080, 500 + 200 * i),
              n("android.widget.TextView", (40, 330 + 200 * i, 600, 390 + 200 * i), text=f"Row {i}"),
              clickable=True) for i in range(2)]
    cut = n("android.widget.LinearLayout", (0, 2370, 1080, 2400),
            n("android.widget.RelativeLayout", (198, 2370, 1036, 2400)), clickable=True)
    empty = n("android.widget.FrameLayout", (0, 100, 1080, 200), n("android.view.View", (0, 100, 540, 200)),
              n("android.view.View", (540, 100, 1080, 200), clickable=True))
    text = describe(screen(empty, n("androidx.recyclerview.widget.RecyclerView", (0, 300, 1080, 2400),
                                    *rows, cut)))
    assert text.splitlines() == [
        "a list",
        '  a clickable group with the text "Row 0"',
        '  a clickable group with the text "Row 1"',
    ]


STRUCTURE_WORDS = {k.value for k in STRUCTURE_KINDS}


@pytest.mark.parametrize("path", real_xml_screens(), ids=screen_id)
def test_no_real_screen_lists_a_container_that_carries_nothing(path: Path) -> None:
    """An unlabelled container line holds something; a bare group or view holds at least two lines."""
    text = describe(clean_tree(load_tree(path)))
    rows = text.splitlines()
    for i, row in enumerate(rows):
        words = row.strip().removeprefix("a ").removeprefix("an ").removeprefix("clickable ")
        if words not in STRUCTURE_WORDS:
            continue
        depth = len(row) - len(row.lstrip())
        inside = [r for r in _block_under(rows, i) if len(r) - len(r.lstrip()) == depth + 2]
        bare = row.strip() in ("a group", "a view")
        assert len(inside) >= (2 if bare else 1), f"line {i + 1} {row!r} carries nothing"


def _block_under(rows: list[str], i: int) -> list[str]:
    depth = len(rows[i]) - len(rows[i].lstrip())
    out = []
    for row in rows[i + 1:]:
        if len(row) - len(row.lstrip()) <= depth:
            break
        out.append(row)
    return out


# -- a tap target named by its labels ----------------------------------------------------------

#: A line for something that only shows labels (not clickable: that is checked apart).
_LABEL_LINE = re.compile(r"^an? (text|image(?! button)|group|view|card)( |$)")
#: A tap target's line that says nothing of what it is.
_UNNAMED_TARGET = re.compile(r"^a clickable (group|view|card)( that is [a-z ,]+)?$")
_SHOWN_KINDS = frozenset({Kind.TEXT, Kind.IMAGE, Kind.GROUP, Kind.VIEW, Kind.CARD})


def _unquoted(row: str) -> str:
    return re.sub(r'"[^"]*"', '""', row.strip())


def _label_only_targets(tree: UITree) -> list[list[str]]:
    """The labels of each clickable text, image or container whose content only shows labels."""
    out = []
    for node in (x for root in tree.roots for x in root.iter()):
        if not node.children or not node.clickable or node.scrollable or kind_of(node.class_name) not in _SHOWN_KINDS:
            continue
        below = [x for x in node.iter() if x is not node]
        if any(x.is_interactive or x.checked or kind_of(x.class_name) not in _SHOWN_KINDS for x in below):
            continue
        labels = [fold(label) for x in node.iter() for label in (x.text, x.content_desc, x.hint) if label.strip()]
        if labels:
            out.append(labels)
    return out


@pytest.mark.parametrize("path", real_xml_screens(), ids=screen_id)
def test_no_real_screen_names_a_tap_target_only_on_the_lines_below_it(path: Path) -> None:
    """A clickable row, tab or tile showing only labels is one line with them; no visible label is lost."""
    raw = parse_xml(path.read_bytes())
    tree = clean_tree(raw)
    text = describe(tree)
    rows = text.splitlines()
    for i, row in enumerate(rows):
        if not _UNNAMED_TARGET.match(row.strip()):
            continue
        inside = [_unquoted(r) for r in _block_under(rows, i)]
        only_labels = all(_LABEL_LINE.match(r) and "clickable" not in r and "scrollable" not in r for r in inside)
        assert not only_labels, f"line {i + 1} {row!r} is named only by the lines below it: {inside}"
    for labels in _label_only_targets(tree):
        assert any(all(label in row for label in labels) for row in rows), (
            f"the labels {labels} of one tap target are not on one line")
    seen, _ = partition_labels(raw)
    for label in seen:
        assert label in text, f"visible label lost: {label!r}"


def test_label_only_targets_are_found_on_real_screens() -> None:
    """The test above has something to check: the settings rows and bottom-navigation tabs of real screens."""
    security = clean_tree(load_tree(DATA / "appium_page_sources/shirates-core/settings_security.xml"))
    assert ["Find My Device", "On"] in _label_only_targets(security)
    tabs = clean_tree(load_tree(DATA / "uiautomator_dumps/nku-medgemma-conversion/triage_with_chip.xml"))
    assert ["Home"] in _label_only_targets(tabs)
    assert 'a clickable group with the texts "Find My Device", "On"' in lines(describe(security))
    assert 'a clickable view with the text "Home"' in lines(describe(tabs))


# -- the grounder's element list -----------------------------------------------------------------


def test_grounder_list_leaves_out_slivers_and_empty_unlabelled_groups() -> None:
    tree = screen(
        n("android.view.View", (0, 290, 1080, 297)),  # a divider, [1080, 7]
        n("android.view.View", (500, 400, 503, 466), clickable=True),  # [3, 66]
        n("android.widget.LinearLayout", (0, 600, 1080, 800), clickable=True),  # an empty clickable group
        n("android.widget.TextView", (0, 900, 1080, 907), text="Cut-off row"),  # labelled: kept
        n("android.widget.ImageButton", (900, 100, 1032, 232), clickable=True),  # an unlabelled control: kept
        n("android.view.View", (100, 1000, 980, 1100), n("android.widget.Button", (100, 1000, 980, 1100)),
          clickable=True),  # a Compose button without text: listed as a button
    )
    rows = [(e.text, e.kind, e.size) for e in grounder_elements(tree)]
    assert rows == [("Cut-off row", "text", (1080, 7)), ("", "image button", (132, 132)),
                    ("", "button", (880, 100))]


@pytest.mark.parametrize("path", real_xml_screens(), ids=screen_id)
def test_no_real_screen_gives_the_grounder_unlabelled_slivers_or_groups(path: Path) -> None:
    for e in grounder_elements(clean_tree(load_tree(path))):
        if e.text or e.kind == "text":  # a text view holding only spaces is still listed (every text is)
            continue
        assert min(e.size) >= SLIVER_PX, e
        assert e.kind not in {k.value for k in STRUCTURE_KINDS}, e


# -- clickability --------------------------------------------------------------------------------


def test_clickability_is_said_of_labels_and_images_not_of_controls() -> None:
    tree = screen(
        n("android.widget.TextView", (0, 100, 500, 160), text="Alarm"),
        n("android.widget.TextView", (0, 200, 500, 260), text="7:00 AM", clickable=True),
        n("android.widget.ImageView", (900, 100, 1032, 232), content_desc="More options", clickable=True),
        n("android.widget.Button", (0, 300, 300, 400), text="Delete", clickable=True),
        n("android.widget.Switch", (900, 300, 1040, 400), text="ON", checkable=True, checked=True, clickable=True),
    )
    assert describe(tree).splitlines() == [
        'a text "Alarm"',
        'a clickable text "7:00 AM"',
        'a clickable image described as "More options"',
        'a button with the text "Delete"',
        'a switch with the text "ON" that is on',
    ]



def test_a_row_around_a_labelled_radio_button_or_check_box_is_one_line() -> None:
    # A dialog's rows: the row is the tap target, the label sits on its one radio button or check box.
    rows = [n("android.widget.LinearLayout", (0, 300 + 100 * i, 1080, 390 + 100 * i),
              n(cls, (40, 310 + 100 * i, 1040, 380 + 100 * i), text=label, checkable=True, checked=(i == 0)),
              clickable=True)
            for i, (cls, label) in enumerate((("android.widget.RadioButton", "Small"),
                                              ("android.widget.CheckBox", "Bold")))]
    # A labelled switch in a row keeps its own line beside the row's label, as before.
    switch_row = n("android.widget.LinearLayout", (0, 600, 1080, 700),
                   n("android.widget.TextView", (40, 610, 800, 690), text="Wi-Fi"),
                   n("android.widget.Switch", (900, 610, 1040, 690), text="ON", checkable=True, checked=True),
                   clickable=True)
    assert describe(screen(*rows, switch_row)).splitlines() == [
        'a radio button with the text "Small" that is checked',
        'a check box with the text "Bold" that is not checked',
        "a clickable group",
        '  a text "Wi-Fi"',
        '  a switch with the text "ON" that is on',
    ]
