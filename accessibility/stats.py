"""Size of one screen in the representations an agent could feed an LLM.

Used by ``latent-agent describe --format stats`` and the benchmark that checks
the description is much smaller than the raw dump and than AndroidWorld's
per-element list.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import elements_json, grounder_elements
from latent_agent.accessibility.tokens import count_tokens
from latent_agent.accessibility.tree import UINode, UITree


@dataclass(frozen=True, slots=True)
class Representation:
    """One representation of a screen: its name, element count and token count."""

    name: str
    elements: int
    tokens: int
    chars: int


def _node_record(node: UINode) -> dict[str, object]:
    record: dict[str, object] = {k: v for k, v in node._asdict().items() if k != "children"}
    if node.bounds is not None:
        record["bounds"] = asdict(node.bounds)
    return record


def all_nodes_json(tree: UITree) -> str:
    """Every node with every attribute, as a JSON list (children omitted)."""
    return json.dumps([_node_record(n) for n in tree.iter()], ensure_ascii=False)


def _py(value: object) -> str:
    return repr(value)


def androidworld_elements(tree: UITree) -> str:
    """AndroidWorld's representation: one ``UIElement(...)`` record per node.

    Field order and spelling follow ``android_world.env.representation_utils``,
    as seen in real AndroidWorld element lists.
    """
    lines = []
    for n in tree.iter():
        if n.bounds is not None:
            b = n.bounds
            box = f"BoundingBox(x_min={b.left}, x_max={b.right}, y_min={b.top}, y_max={b.bottom})"
        else:
            box = "None"
        fields = [
            f"text={_py(n.text)}",
            f"content_description={_py(n.content_desc)}",
            f"class_name={_py(n.class_name)}",
            f"bbox={box}",
            f"bbox_pixels={box}",
            f"hint_text={_py(n.hint or None)}",
            f"is_checked={n.checked}",
            f"is_checkable={n.checkable}",
            f"is_clickable={n.clickable}",
            f"is_editable={n.editable or None}",
            f"is_enabled={n.enabled}",
            f"is_focused={n.focused}",
            f"is_focusable={n.focusable}",
            f"is_long_clickable={n.long_clickable}",
            f"is_scrollable={n.scrollable}",
            f"is_selected={n.selected}",
            f"is_visible={n.visible is not False}",
            f"package_name={_py(n.package)}",
            f"resource_name={_py(n.resource_id or None)}",
            "tooltip=None",
            f"resource_id={_py(n.resource_id)}",
        ]
        lines.append("UIElement(" + ", ".join(fields) + ")")
    return "\n".join(lines)


def screen_stats(raw: str, tree: UITree) -> list[Representation]:
    """Token and element counts of ``raw`` and of each derived representation."""
    cleaned = clean_tree(tree)
    desc = describe(cleaned)
    elems = grounder_elements(cleaned)
    ground = elements_json(elems)
    nodes = tree.node_count
    aw = androidworld_elements(tree)
    alljson = all_nodes_json(tree)
    return [
        Representation("raw dump", nodes, count_tokens(raw), len(raw)),
        Representation("JSON of all nodes", nodes, count_tokens(alljson), len(alljson)),
        Representation("AndroidWorld element list", nodes, count_tokens(aw), len(aw)),
        Representation("description (ours)", cleaned.node_count, count_tokens(desc), len(desc)),
        Representation("grounder list (ours)", len(elems), count_tokens(ground), len(ground)),
    ]
