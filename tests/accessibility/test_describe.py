"""Natural-language descriptions: element types, attributes in words, goldens on real screens."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import PASSWORD_MASK, describe, describe_node
from latent_agent.accessibility.load import load_tree
from latent_agent.accessibility.tree import Bounds, UINode, UITree
from latent_agent.accessibility.widgets import Kind, kind_of
from tests.accessibility.screens import DATA

GOLDEN = DATA / "golden"
GOLDEN_SCREENS = [
    "appium_page_sources/shirates-core/settings_network_and_internet.xml",
    "appium_page_sources/shirates-core/clock_alarm.xml",
    "appium_page_sources/shirates-core/settings_top.xml",
    "uiautomator_dumps/AndroidViewClient/nexuslauncher_home_api27.xml",
    "uiautomator_dumps/midscene/android-world-clock-stopwatch-running.xml",
    "uiautomator_dumps/Nora/chat_dump.xml",
    "uiautomator_dumps/keydroidx-launcher/systemui_ui_dump.xml",
    "uiautomator_dumps/nku-medgemma-conversion/window_dump.xml",
    "uiautomator_dumps/termux-flutter-ide/flutter_drawer_dump.xml",
]


@pytest.mark.parametrize(
    ("class_name", "kind"),
    [
        ("android.widget.EditText", Kind.TEXT_BOX),
        ("androidx.appcompat.widget.AppCompatEditText", Kind.TEXT_BOX),
        ("android.widget.Button", Kind.BUTTON),
        ("com.google.android.material.button.MaterialButton", Kind.BUTTON),
        ("android.widget.ImageButton", Kind.IMAGE_BUTTON),
        ("com.google.android.material.floatingactionbutton.FloatingActionButton", Kind.IMAGE_BUTTON),
        ("android.widget.ImageView", Kind.IMAGE),
        ("android.widget.CheckBox", Kind.CHECK_BOX),
        ("android.widget.RadioButton", Kind.RADIO_BUTTON),
        ("android.widget.Switch", Kind.SWITCH),
        ("androidx.appcompat.widget.SwitchCompat", Kind.SWITCH),
        ("com.google.android.material.materialswitch.MaterialSwitch", Kind.SWITCH),
        ("android.widget.ToggleButton", Kind.TOGGLE),
        ("com.google.android.material.tabs.TabLayout$TabView", Kind.TAB),
        ("android.app.ActionBar$Tab", Kind.TAB),
        ("android.widget.SeekBar", Kind.SEEK_BAR),
        ("android.widget.Spinner", Kind.DROP_DOWN),
        ("android.widget.ProgressBar", Kind.PROGRESS_BAR),
        ("android.webkit.WebView", Kind.WEB_VIEW),
        ("androidx.recyclerview.widget.RecyclerView", Kind.LIST),
        ("android.widget.ListView", Kind.LIST),
        ("android.widget.ScrollView", Kind.SCROLL_VIEW),
        ("android.widget.HorizontalScrollView", Kind.SCROLL_VIEW),
        ("android.widget.Toolbar", Kind.TOOLBAR),
        ("android.widget.TextView", Kind.TEXT),
        ("android.widget.CheckedTextView", Kind.CHECKED_TEXT),
        ("com.google.android.material.chip.Chip", Kind.CHIP),
        ("android.widget.LinearLayout", Kind.GROUP),
        ("androidx.constraintlayout.widget.ConstraintLayout", Kind.GROUP),
        ("android.view.View", Kind.VIEW),
        ("com.acme.FancyWidget", Kind.UNKNOWN),
    ],
)
def test_kind_from_class_name(class_name: str, kind: Kind) -> None:
    assert kind_of(class_name) is kind


def line(**kw: object) -> str:
    kw.setdefault("bounds", Bounds(0, 0, 10, 10))
    return describe_node(UINode(**kw))  # type: ignore[arg-type]


def test_switch_says_on_or_off() -> None:
    assert line(class_name="android.widget.Switch", text="Roaming", checkable=True) == (
        'a switch with the text "Roaming" that is off')
    assert line(class_name="android.widget.Switch", text="Roaming", checkable=True, checked=True) == (
        'a switch with the text "Roaming" that is on')


def test_check_box_says_checked_or_not() -> None:
    assert line(class_name="android.widget.CheckBox", text="Argon", checkable=True) == (
        'a check box with the text "Argon" that is not checked')
    assert line(class_name="android.widget.RadioButton", text="Argon", checkable=True, checked=True) == (
        'a radio button with the text "Argon" that is checked')


def test_text_description_hint_and_states_in_words() -> None:
    assert line(class_name="android.widget.TextView", text="Network & internet") == 'a text "Network & internet"'
    assert line(class_name="android.widget.ImageButton", content_desc="Navigate up") == (
        'an image button described as "Navigate up"')
    assert line(class_name="android.widget.EditText", hint="Search settings", focused=True) == (
        'a text box with the hint "Search settings" that is focused')
    assert line(class_name="com.google.android.material.tabs.TabLayout$TabView", text="Alarm",
                selected=True) == 'a tab with the text "Alarm" that is selected'
    assert line(class_name="android.widget.Button", text="Save", enabled=False) == (
        'a button with the text "Save" that is disabled')
    assert line(class_name="androidx.recyclerview.widget.RecyclerView", scrollable=True) == (
        "a list that is scrollable")
    assert line(class_name="android.widget.Switch", text="Wi-Fi", checkable=True, checked=True,
                enabled=False, selected=True) == 'a switch with the text "Wi-Fi" that is on, selected and disabled'


def test_password_text_is_masked() -> None:
    out = line(class_name="android.widget.EditText", text="hunter2", password=True)
    assert "hunter2" not in out
    assert out == f'a password text box with hidden text "{PASSWORD_MASK}"'


def test_unknown_type_gets_generic_line_with_class_and_package() -> None:
    out = line(class_name="com.acme.FancyWidget", package="com.acme.app", text="Go", clickable=True)
    assert out == 'a clickable element of class "com.acme.FancyWidget" from com.acme.app with the text "Go"'
    plain = line(class_name="com.acme.FancyWidget", text="Go")
    assert plain == 'an element of class "com.acme.FancyWidget" with the text "Go"'


def test_whitespace_in_labels_is_folded_to_keep_one_line_per_element() -> None:
    assert line(class_name="android.widget.TextView", text="two\nlines\t here") == 'a text "two lines here"'


def test_indentation_is_depth() -> None:
    leaf = UINode(class_name="android.widget.TextView", text="x", bounds=Bounds(0, 0, 5, 5))
    root = UINode(class_name="android.widget.LinearLayout", content_desc="row", bounds=Bounds(0, 0, 9, 9),
                  children=(leaf,))
    assert describe(UITree(roots=(root,))) == 'a group described as "row"\n  a text "x"'


@pytest.mark.parametrize("rel", GOLDEN_SCREENS)
def test_golden_descriptions(rel: str) -> None:
    out = describe(clean_tree(load_tree(DATA / rel)))
    golden = GOLDEN / (rel.replace("/", "__").removesuffix(".xml") + ".txt")
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out + "\n", encoding="utf-8")
    assert golden.exists(), f"missing golden {golden}; run with UPDATE_GOLDEN=1 and review it"
    assert out + "\n" == golden.read_text(encoding="utf-8")


def test_description_is_deterministic(tmp_path: Path) -> None:
    path = DATA / GOLDEN_SCREENS[0]
    outs = {describe(clean_tree(load_tree(path))) for _ in range(3)}
    assert len(outs) == 1
