"""Helpers shared by the simulated-phone tests."""

from __future__ import annotations

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe, fold
from latent_agent.accessibility.tree import UITree
from tests.accessibility.screens import partition_labels

#: Attributes of every node in a sim dump, in the order ``uiautomator dump`` writes them.
SIM_ATTRIBUTES = (
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "visible-to-user",
    "bounds",
    "drawing-order",
    "hint",
)


def assert_description_invariants(tree: UITree) -> None:
    """Visible on-screen labels appear in the description; invisible or off-screen ones do not."""
    text = fold(describe(clean_tree(tree)))
    shown, hidden = partition_labels(tree)
    for label in shown:
        assert f'"{label}"' in text, f"visible label {label!r} missing from the description"
    for label in hidden:
        assert f'"{label}"' not in text, f"invisible label {label!r} leaked into the description"
