"""The compact element list the grounder reads.

Each entry is an element a tap can be aimed at: its label, its centre and size
in device pixels. Leaves are listed; so are labelled inner nodes whose label
would otherwise vanish (a labelled group) and clickable controls whose children
carry no label (an image button drawn from an unlabelled icon).

Left out, because a grounder cannot name them and they only lengthen the list:
unlabelled slivers (dividers and the cut-off edges of rows, a few pixels wide
or high) and unlabelled layout containers (groups, views, lists) with nothing
marking them as a control: a step in words never says which empty group to
tap. A clickable view over an empty ``Button`` (Compose) is listed as a button.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from latent_agent.accessibility.describe import PASSWORD_MASK, fold
from latent_agent.accessibility.roles import STRUCTURE_KINDS, role_marker
from latent_agent.accessibility.tree import UINode, UITree
from latent_agent.accessibility.widgets import Kind, info, kind_of

#: An unlabelled element narrower or lower than this (in pixels) is a divider or
#: the cut-off edge of a row, not a target (a finger is about 100 pixels wide).
SLIVER_PX = 12


@dataclass(frozen=True, slots=True)
class Element:
    """One grounding target.

    Attributes:
        text: Text, else content description, else hint (password text masked).
        kind: Element kind as named in descriptions (``"switch"``).
        description: The content description when the element also has text that
            differs from it: a switch reads "OFF" but is described as "Roaming".
        center: ``(x, y)`` in device pixels.
        size: ``(width, height)`` in device pixels.
        checked: On/checked state for checkable elements, else ``None``.
    """

    text: str
    kind: str
    center: tuple[int, int]
    size: tuple[int, int]
    checked: bool | None = None
    description: str = ""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"text": self.text}
        if self.description:
            out["desc"] = self.description
        if not self.text or self.checked is not None:
            out["type"] = self.kind
        if self.checked is not None:
            out["checked"] = self.checked
        out["center"] = list(self.center)
        out["size"] = list(self.size)
        return out


def label_of(node: UINode) -> str:
    """The label the grounder sees for a node."""
    if node.text:
        return PASSWORD_MASK if node.password else fold(node.text)
    if node.content_desc:
        return fold(node.content_desc)
    return fold(node.hint)


def _labels_below(node: UINode) -> set[str]:
    return {label_of(n) for n in node.iter() if n is not node and n.has_label}


def _has_clickable_below(node: UINode) -> bool:
    return any(n.clickable for n in node.iter() if n is not node)


def _keep(node: UINode) -> bool:
    if node.bounds is None or node.bounds.area == 0:
        return False
    kind = kind_of(node.class_name)
    if not node.has_label and (min(node.bounds.width, node.bounds.height) < SLIVER_PX
                               or (kind in STRUCTURE_KINDS and role_marker(node) is None)):
        return False
    if not node.children:
        return node.has_label or node.is_interactive or info(kind).stateful
    own = label_of(node)
    if own and own not in _labels_below(node):
        return True
    return (node.clickable or node.checkable) and not _has_clickable_below(node) and not any(
        c.has_label for c in node.iter() if c is not node
    )


def grounder_elements(tree: UITree) -> list[Element]:
    """Elements of a cleaned tree, in document order."""
    out: list[Element] = []
    for node in tree.iter():
        if not _keep(node):
            continue
        assert node.bounds is not None
        kind = kind_of(node.class_name)
        marker = role_marker(node) if kind in STRUCTURE_KINDS else None
        if marker is not None:
            kind = kind_of(marker.class_name)  # a Compose button: a clickable view over an empty Button
        checked = node.checked if (node.checkable or info(kind).on_off) else None
        label = label_of(node)
        desc = fold(node.content_desc)
        out.append(
            Element(
                text=label,
                kind=kind.value if kind is not Kind.UNKNOWN else node.class_name.rsplit(".", 1)[-1],
                center=node.bounds.center,
                size=(node.bounds.width, node.bounds.height),
                checked=checked,
                description=desc if desc and desc != label else "",
            )
        )
    return out


def elements_json(elements: list[Element]) -> str:
    """Compact JSON array, one element per line, as the grounder prompt shows it."""
    rows = [json.dumps(e.to_json(), ensure_ascii=False, separators=(",", ":")) for e in elements]
    return "[\n" + ",\n".join(rows) + "\n]"
