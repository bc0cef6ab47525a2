"""Property-based tests: random trees and mutated real dumps."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe, fold
from latent_agent.accessibility.elements import grounder_elements
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.serialize import to_uiautomator_xml
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.errors import ParseError
from tests.accessibility.screens import real_xml_screens

CLASSES = [
    "android.widget.FrameLayout", "android.widget.LinearLayout", "android.widget.TextView",
    "android.widget.Button", "android.widget.ImageView", "android.widget.ImageButton",
    "android.widget.Switch", "android.widget.CheckBox", "android.widget.EditText",
    "androidx.recyclerview.widget.RecyclerView", "android.view.View", "com.acme.Custom",
]
# XML 1.0 cannot carry most control characters; everything else is fair game.
xml_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r",
                           min_codepoint=0x20) | st.sampled_from("\n\t"),
    max_size=12,
)
coord = st.integers(min_value=-500, max_value=3000)


@st.composite
def bounds(draw: st.DrawFn) -> Bounds:
    left, top = draw(coord), draw(coord)
    return Bounds(left, top, left + draw(st.integers(0, 1200)), top + draw(st.integers(0, 1200)))


def nodes(depth: int = 0) -> st.SearchStrategy[UINode]:
    children = st.lists(st.deferred(lambda: nodes(depth + 1)), max_size=4) if depth < 4 else st.just([])
    return st.builds(
        lambda cls, text, desc, hint, b, flags, visible, kids: UINode(
            class_name=cls, text=text, content_desc=desc, hint=hint, bounds=b, checkable=flags[0],
            checked=flags[1], clickable=flags[2], scrollable=flags[3], selected=flags[4], password=flags[5],
            enabled=not flags[6], visible=visible, children=tuple(kids)),
        st.sampled_from(CLASSES), xml_text, xml_text, xml_text, bounds(),
        st.tuples(*[st.booleans()] * 7), st.none() | st.booleans(), children,
    )


trees = st.builds(lambda roots: UITree(roots=tuple(roots), screen=ScreenSize(1080, 2400)),
                  st.lists(nodes(), min_size=1, max_size=3))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_serialize_parse_round_trip(tree: UITree) -> None:
    parsed = parse_xml(to_uiautomator_xml(tree))
    assert parsed.roots == tree.roots


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_clean_and_describe_hold_their_invariants_on_random_trees(tree: UITree) -> None:
    cleaned = clean_tree(tree)
    screen = ScreenSize(1080, 2400).as_bounds()
    for node in cleaned.iter():
        assert node.visible is not False
        assert node.bounds is None or node.bounds.intersection_area(screen) > 0
    # Cleaning is idempotent.
    assert clean_tree(cleaned) == cleaned
    text = describe(cleaned)
    # At most one line a node: a control labelled by its children, a label repeated below its node, an
    # unlabelled role marker or an empty container are said once or not at all; no label is ever lost.
    assert len(text.splitlines()) <= cleaned.node_count
    for node in cleaned.iter():
        for label in (node.text, node.content_desc):
            if fold(label) and not node.password:
                assert fold(label) in text, (label, text)
    if not cleaned.roots:
        assert text == ""
    assert describe(cleaned) == text
    for element in grounder_elements(cleaned):
        assert element.size[0] > 0 and element.size[1] > 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_pruning_while_parsing_equals_cleaning_after(tree: UITree) -> None:
    raw = to_uiautomator_xml(tree)
    screen = ScreenSize(1080, 2400)
    full = parse_xml(raw)
    pruned = parse_xml(raw, visible_on=screen)
    assert pruned.screen == screen
    assert clean_tree(pruned) == clean_tree(UITree(roots=full.roots, screen=screen, source=full.source))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_mutated_real_dumps_parse_or_fail_with_parse_error(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(real_xml_screens()))
    raw = bytearray(path.read_bytes())
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    for _ in range(data.draw(st.integers(1, 5))):
        op = rng.choice(("truncate", "flip", "delete", "insert"))
        pos = rng.randrange(len(raw)) if raw else 0
        if op == "truncate":
            del raw[pos:]
        elif op == "flip" and raw:
            raw[pos] = rng.randrange(256)
        elif op == "delete":
            del raw[pos:pos + rng.randrange(1, 40)]
        else:
            raw[pos:pos] = rng.choice([b'"', b"<", b"]", b"[x,", b"\xff", b" bounds=\"[1]\"", b"&bad;"])
    try:
        tree = parse_xml(bytes(raw))
    except ParseError as exc:
        assert str(exc)
        return
    describe(clean_tree(tree))
