"""Observation: parse accessibility trees, clean them, and describe them in words.

Typical use::

    from latent_agent.accessibility import load_tree, clean_tree, describe, grounder_elements
    tree = clean_tree(load_tree(path))
    print(describe(tree))
"""

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import grounder_elements
from latent_agent.accessibility.load import load_tree, parse_any
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree

__all__ = [
    "Bounds",
    "ScreenSize",
    "UINode",
    "UITree",
    "clean_tree",
    "describe",
    "grounder_elements",
    "load_tree",
    "parse_any",
]
