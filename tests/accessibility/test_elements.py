"""The grounder's compact element list."""

from __future__ import annotations

import json

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import PASSWORD_MASK
from latent_agent.accessibility.elements import elements_json, grounder_elements
from latent_agent.accessibility.load import load_tree
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from tests.accessibility.screens import DATA


def test_real_settings_screen_lists_rows_and_switches_with_centres() -> None:
    tree = clean_tree(load_tree(DATA / "appium_page_sources/shirates-core/settings_network_and_internet.xml"))
    rows = {e.text: e for e in grounder_elements(tree)}
    assert rows["Mobile network"].center == (348, 493)
    assert rows["Mobile network"].size == (300, 59)
    airplane_switch = rows["OFF"]
    assert airplane_switch.kind == "switch" and airplane_switch.checked is False


def test_unlabelled_row_is_left_out_and_labels_not_duplicated() -> None:
    """A row whose only child is an unlabelled icon gives a grounder nothing to name: not listed."""
    icon = UINode(class_name="android.widget.ImageView", bounds=Bounds(10, 10, 50, 50), clickable=False,
                  content_desc="")
    row = UINode(class_name="android.widget.LinearLayout", bounds=Bounds(0, 0, 1080, 100), clickable=True,
                 children=(icon,))
    labelled_row = UINode(class_name="android.widget.LinearLayout", bounds=Bounds(0, 100, 1080, 200),
                          clickable=True, children=(UINode(class_name="android.widget.TextView", text="Wi-Fi",
                                                           bounds=Bounds(20, 120, 200, 180)),))
    tree = clean_tree(UITree(roots=(UINode(class_name="android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400),
                                           children=(row, labelled_row)),), screen=ScreenSize(1080, 2400)))
    elements = grounder_elements(tree)
    assert [(e.text, e.kind, e.center) for e in elements] == [("Wi-Fi", "text", (110, 150))]


def test_password_masked_and_json_is_compact() -> None:
    field = UINode(class_name="android.widget.EditText", text="hunter2", password=True, editable=True,
                   bounds=Bounds(0, 0, 100, 40))
    out = elements_json(grounder_elements(UITree(roots=(field,), screen=ScreenSize(1080, 2400))))
    assert "hunter2" not in out
    assert json.loads(out) == [{"text": PASSWORD_MASK, "center": [50, 20], "size": [100, 40]}]


def test_switch_text_and_description_are_both_listed() -> None:
    """A switch reads "OFF" but is described as "Roaming": the grounder must see both."""
    switch = UINode(class_name="android.widget.Switch", text="OFF", content_desc="Roaming", checkable=True,
                    clickable=True, bounds=Bounds(900, 300, 1040, 380))
    same = UINode(class_name="android.widget.Button", text="Save", content_desc="Save",
                  bounds=Bounds(0, 400, 200, 480))
    tree = UITree(roots=(switch, same), screen=ScreenSize(1080, 2400))
    rows = [e.to_json() for e in grounder_elements(tree)]
    assert rows[0] == {"text": "OFF", "desc": "Roaming", "type": "switch", "checked": False,
                       "center": [970, 340], "size": [140, 80]}
    assert "desc" not in rows[1]
