"""Write a :class:`UITree` back out as a uiautomator dump.

Used to store synthetic screens, to build benchmark inputs, and by the
property-based tests that check parse(serialize(tree)) == tree.
"""

from __future__ import annotations

from lxml import etree

from latent_agent.accessibility.tree import UINode, UITree


def _b(value: bool) -> str:
    return "true" if value else "false"


def _node_element(node: UINode) -> etree._Element:
    attrs = {
        "index": str(node.index),
        "text": node.text,
        "resource-id": node.resource_id,
        "class": node.class_name,
        "package": node.package,
        "content-desc": node.content_desc,
        "checkable": _b(node.checkable),
        "checked": _b(node.checked),
        "clickable": _b(node.clickable),
        "enabled": _b(node.enabled),
        "focusable": _b(node.focusable),
        "focused": _b(node.focused),
        "scrollable": _b(node.scrollable),
        "long-clickable": _b(node.long_clickable),
        "password": _b(node.password),
        "selected": _b(node.selected),
    }
    if node.editable:
        attrs["editable"] = "true"
    if node.visible is not None:
        attrs["visible-to-user"] = _b(node.visible)
    if node.bounds is not None:
        attrs["bounds"] = node.bounds.to_android()
    if node.drawing_order is not None:
        attrs["drawing-order"] = str(node.drawing_order)
    if node.hint:
        attrs["hint"] = node.hint
    if node.display_id is not None:
        attrs["display-id"] = str(node.display_id)
    el = etree.Element("node", attrs)
    for child in node.children:
        el.append(_node_element(child))
    return el


def to_uiautomator_xml(tree: UITree) -> bytes:
    """Serialize ``tree`` in uiautomator's dump format (UTF-8 bytes with declaration)."""
    root = etree.Element("hierarchy", {"rotation": str(tree.rotation)})
    for r in tree.roots:
        root.append(_node_element(r))
    return bytes(etree.tostring(root, encoding="UTF-8", xml_declaration=True, standalone=True))
