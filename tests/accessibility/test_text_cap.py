"""A 10 MB label from an app is cut when the screen is parsed, and the cut is said in the text."""

from __future__ import annotations

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import grounder_elements
from latent_agent.accessibility.parse_androidenv import parse_forest
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.text_cap import MAX_TEXT_CHARS, cap_text

HUGE = "A" * 10_000_000


def _dump(text: str, desc: str = "") -> bytes:
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        f'<node index="0" text="{text}" content-desc="{desc}" class="android.widget.TextView" package="p" '
        'clickable="true" enabled="true" visible-to-user="true" bounds="[0,0][500,200]"/></hierarchy>'
    ).encode()


def test_a_huge_label_is_cut_at_parse_time_with_a_note() -> None:
    tree = parse_xml(_dump(HUGE, HUGE))
    (node,) = list(tree.iter())
    for value in (node.text, node.content_desc):
        assert value.startswith("A" * MAX_TEXT_CHARS)
        assert value.endswith(f"… [{len(HUGE) - MAX_TEXT_CHARS} more characters cut]")
    cleaned = clean_tree(tree)
    assert len(describe(cleaned)) < 3 * MAX_TEXT_CHARS  # what reaches every prompt
    assert all(len(e.text) < 2 * MAX_TEXT_CHARS for e in grounder_elements(cleaned))


def test_ordinary_labels_are_untouched() -> None:
    text = "Ü" * MAX_TEXT_CHARS
    assert cap_text(text) is text
    (node,) = list(parse_xml(_dump("Roaming")).iter())
    assert node.text == "Roaming"


def test_androidenv_labels_are_cut_too() -> None:
    forest_pb2 = pytest.importorskip("android_env.proto.a11y.android_accessibility_forest_pb2")
    forest = forest_pb2.AndroidAccessibilityForest()
    window = forest.windows.add()
    node = window.tree.nodes.add()
    node.unique_id, node.class_name, node.text = 1, "android.widget.TextView", HUGE
    (parsed,) = list(parse_forest(forest).iter())
    assert len(parsed.text) < MAX_TEXT_CHARS + 50 and "more characters cut" in parsed.text
