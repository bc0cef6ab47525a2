"""Observation: parse accessibility trees, clean them, and describe them in words.

Typical use::

    from accessibility import load_tree, clean_tree, describe, grounder_elements
    tree = clean_tree(load_tree(path))
    print(describe(tree))
"""

from accessibility.clean import clean_tree
from accessibility.describe import describe
from accessibility.elements import grounder_elements
from accessibility.load import load_tree, parse_any
from accessibility.tree import Bounds, ScreenSize, UINode, UITree

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
