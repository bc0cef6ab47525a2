"""A MiniWoB++ page as a uiautomator dump: one walk of the page in JavaScript, written as uiautomator XML.

The walk (``js/walk.js``, one ``page.evaluate``) visits the task area (``#wrap``, less the query box, whose
text is the goal) and the pop-ups attached to the body (the date picker, a ``<select>``'s list), and gives
each element the Android class of its role (a button ``android.widget.Button``, a text field
``android.widget.EditText``, a checkbox ``android.widget.CheckBox``, a radio ``android.widget.RadioButton``,
a ``<select>`` ``android.widget.Spinner``, ...), its label (``<label>``, aria-label, alt, title, text), a
field's value, its checked / selected / focused state, whether it is clickable (interactive tags, event
handlers, a pointer cursor) and scrollable, and its bounds in device pixels, clipped by scrolling
containers and the screen; an element scrolled out of view is marked invisible. The XML is the format
:func:`latent_agent.accessibility.parse_xml.parse_xml` reads, so the cleaner, describer and grounders run
on it unchanged.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any
from xml.sax.saxutils import quoteattr

#: The uiautomator flags written for every node (attribute, key of the walk's node), after the strings.
_FLAGS = (("checkable", "checkable"), ("checked", "checked"), ("clickable", "clickable"), ("enabled", "enabled"),
          ("focusable", "focusable"), ("focused", "focused"), ("scrollable", "scrollable"),
          ("password", "password"), ("selected", "selected"), ("editable", "editable"),
          ("visible-to-user", "visible"))


@functools.cache
def walk_script() -> str:
    """The page walk (``js/walk.js``)."""
    return resources.files("latent_agent.device.miniwob").joinpath("js/walk.js").read_text("utf-8")


def _bool(value: Any) -> str:
    return "true" if value else "false"


def _node(node: dict[str, Any], index: int, package: str, out: list[str], depth: int) -> None:
    left, top, right, bottom = (int(v) for v in node["bounds"])
    attrs = [f'index="{index}"', f"text={quoteattr(str(node['text']))}",
             f"resource-id={quoteattr(str(node['id']))}", f"class={quoteattr(str(node['cls']))}",
             f"package={quoteattr(package)}", f"content-desc={quoteattr(str(node['desc']))}",
             f"hint={quoteattr(str(node['hint']))}"]
    attrs += [f'{name}="{_bool(node[key])}"' for name, key in _FLAGS]
    # A page has no long-click of its own (a long press is a held click); no element claims one.
    attrs.append('long-clickable="false"')
    attrs.append(f'bounds="[{left},{top}][{right},{bottom}]"')
    pad = "  " * depth
    children = node["children"]
    if not children:
        out.append(f"{pad}<node {' '.join(attrs)} />")
        return
    out.append(f"{pad}<node {' '.join(attrs)}>")
    for i, child in enumerate(children):
        _node(child, i, package, out, depth + 1)
    out.append(f"{pad}</node>")


def to_uiautomator_xml(root: dict[str, Any], package: str) -> bytes:
    """The walk's root node as a uiautomator dump (UTF-8 bytes, as ``uiautomator dump`` writes it).

    Args:
        root: What ``js/walk.js`` returned.
        package: The package every node is reported in (the task's).
    """
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']
    _node(root, 0, package, out, 1)
    out.append("</hierarchy>")
    return "\n".join(out).encode("utf-8")
