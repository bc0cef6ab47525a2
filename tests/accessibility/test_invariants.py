"""Invariants over every real screen: nothing visible is lost, nothing hidden leaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import grounder_elements, label_of
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import Bounds
from tests.accessibility.screens import partition_labels, real_xml_screens, screen_id


@pytest.mark.parametrize("path", real_xml_screens(), ids=screen_id)
def test_visible_labels_kept_and_hidden_ones_dropped(path: Path) -> None:
    tree = parse_xml(path.read_bytes())
    seen, hidden = partition_labels(tree)
    text = describe(clean_tree(tree))
    for label in seen:
        assert label in text, f"visible label lost: {label!r}"
    for label in hidden:
        assert label not in text, f"hidden label leaked: {label!r}"


@pytest.mark.parametrize("path", real_xml_screens(), ids=screen_id)
def test_grounder_elements_lie_on_screen_and_cover_every_visible_text(path: Path) -> None:
    tree = parse_xml(path.read_bytes())
    cleaned = clean_tree(tree)
    elements = grounder_elements(cleaned)
    assert tree.screen is not None
    screen = tree.screen.as_bounds()
    for e in elements:
        assert e.size[0] > 0 and e.size[1] > 0
        left, top = e.center[0] - e.size[0] // 2, e.center[1] - e.size[1] // 2
        assert Bounds(left, top, left + e.size[0], top + e.size[1]).intersection_area(screen) > 0
    texts = {e.text for e in elements}
    for n in cleaned.iter():
        if n.text and not n.children and n.bounds is not None:
            assert label_of(n) in texts


def test_sanity_of_the_invariant_itself() -> None:
    """The hidden set is not empty on a screen known to contain off-screen nodes (guards a vacuous test)."""
    hidden_total = 0
    for path in real_xml_screens():
        _, hidden = partition_labels(parse_xml(path.read_bytes()))
        hidden_total += len(hidden)
    assert hidden_total > 0
