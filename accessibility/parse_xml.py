"""Parse uiautomator dumps and Appium UiAutomator2 page sources into a :class:`UITree`.

Both formats share one schema: a ``<hierarchy>`` root whose descendants carry
the node attributes (``class``, ``text``, ``bounds``, ...). They differ in the
tag of each element (``node`` for uiautomator, the class name for Appium), in
the visibility attribute (``visible-to-user`` vs ``displayed``) and in Appium
stating the screen size on the root. Newer uiautomator dumps may group windows
under ``<display id="N">`` elements or carry ``display-id`` per node; both are
accepted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lxml import etree

from accessibility.tree import Bounds, ScreenSize, SourceFormat, UINode, UITree, infer_screen
from latent_agent.errors import ParseError, TreeTooLargeError

#: Trees larger than this are refused rather than processed slowly; a real
#: screen holds a few hundred nodes, and 100k would already take about a second.
DEFAULT_MAX_NODES = 100_000

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\Z")
_BOOL_ATTRS = (
    ("checkable", "checkable"),
    ("checked", "checked"),
    ("clickable", "clickable"),
    ("long-clickable", "long_clickable"),
    ("focusable", "focusable"),
    ("focused", "focused"),
    ("scrollable", "scrollable"),
    ("selected", "selected"),
    ("password", "password"),
    ("editable", "editable"),
)


def _parser() -> etree.XMLParser:
    # Entities and network access are disabled: dumps come from devices and
    # files we do not control.
    return etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True, huge_tree=False)


def parse_bounds(value: str, *, source: str = "", location: str = "") -> Bounds:
    """Parse ``[l,t][r,b]`` into :class:`Bounds`.

    Raises:
        ParseError: If ``value`` is not of that form.
    """
    m = _BOUNDS_RE.match(value.strip())
    if m is None:
        raise ParseError(f"bad bounds {value!r}, expected [left,top][right,bottom]", source=source,
                         location=location)
    left, top, right, bottom = (int(g) for g in m.groups())
    return Bounds(left, top, right, bottom)


def _bool(attrs: Mapping[str, str], key: str, default: bool, source: str, where: str) -> bool:
    raw = attrs.get(key)
    if raw is None or raw == "":
        return default
    return _bool_value(raw, key, source, where)


def _bool_value(raw: str, key: str, source: str, where: str) -> bool:
    low = raw.lower()
    if low == "true":
        return True
    if low == "false":
        return False
    raise ParseError(f"attribute {key}={raw!r} is not true/false", source=source, location=where)


def _int(attrs: Mapping[str, str], key: str, source: str, where: str) -> int | None:
    raw = attrs.get(key)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ParseError(f"attribute {key}={raw!r} is not an integer", source=source, location=where) from None


def _where(el: etree._Element, path: str) -> str:
    return f"line {el.sourceline}, {path}" if el.sourceline is not None else path


class _Builder:
    """Turns lxml elements into frozen :class:`UINode` trees for one document."""

    def __init__(self, source: str, fmt: SourceFormat) -> None:
        self.source = source
        self.fmt = fmt

    def node(self, el: etree._Element, path: str, display_id: int | None) -> UINode:
        attrs = el.attrib
        where = _where(el, path)
        class_name = attrs.get("class") or ("" if el.tag == "node" else str(el.tag))
        if not class_name:
            raise ParseError("node has no class attribute", source=self.source, location=where)
        raw_bounds = attrs.get("bounds")
        bounds = (
            parse_bounds(raw_bounds, source=self.source, location=where) if raw_bounds else None
        )
        visible_raw = attrs.get("visible-to-user", attrs.get("displayed"))
        visible: bool | None = None
        if visible_raw is not None and visible_raw != "":
            key = "visible-to-user" if "visible-to-user" in attrs else "displayed"
            visible = _bool_value(visible_raw, key, self.source, where)
        flags = {name: _bool(attrs, key, False, self.source, where) for key, name in _BOOL_ATTRS}
        node_display = _int(attrs, "display-id", self.source, where)
        children: list[UINode] = []
        for i, child in enumerate(el):
            if not isinstance(child.tag, str):
                continue  # processing instructions and the like
            children.append(self.node(child, f"{path}/{_tag_label(child)}[{i}]", display_id))
        return UINode(
            class_name=class_name,
            text=attrs.get("text", ""),
            content_desc=attrs.get("content-desc", ""),
            hint=attrs.get("hint", ""),
            resource_id=attrs.get("resource-id", ""),
            package=attrs.get("package", ""),
            bounds=bounds,
            enabled=_bool(attrs, "enabled", True, self.source, where),
            visible=visible,
            index=_int(attrs, "index", self.source, where) or 0,
            drawing_order=_int(attrs, "drawing-order", self.source, where),
            display_id=node_display if node_display is not None else display_id,
            children=tuple(children),
            **flags,
        )


def _tag_label(el: etree._Element) -> str:
    tag = str(el.tag)
    return tag.rsplit(".", 1)[-1] if "." in tag else tag


def parse_xml(data: bytes | str, *, source: str = "<dump>", max_nodes: int = DEFAULT_MAX_NODES) -> UITree:
    """Parse a uiautomator dump or an Appium page source.

    Args:
        data: The XML document, as bytes (preferred: the encoding is then taken
            from the XML declaration) or text.
        source: Name used in error messages (usually the file name).
        max_nodes: Trees with more elements are refused.

    Returns:
        The parsed tree, with ``source`` set to ``"uiautomator"`` or ``"appium"``.

    Raises:
        ParseError: For malformed XML, a wrong root, bad bytes, bad attribute
            values or a hierarchy without nodes.
        TreeTooLargeError: If the document holds more than ``max_nodes`` elements.
    """
    if isinstance(data, str):
        # A str may still carry an encoding declaration, which lxml rejects for
        # str input; encoding to UTF-8 first makes both cases behave the same.
        data = data.encode("utf-8")
    if not data.strip():
        raise ParseError("empty input, expected an XML <hierarchy> document", source=source)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        line, col = exc.position if exc.position else (0, 0)
        msg = str(exc.msg) if exc.msg else str(exc)
        msg = re.sub(r",? line \d+, column \d+.*$", "", msg)
        lines = data.rstrip().split(b"\n")
        at_end = line >= len(lines) and col >= len(lines[-1].decode("utf-8", "replace"))
        if "not proper UTF-8" in msg or "encoding" in msg.lower():
            reason = f"input is not valid UTF-8 text ({msg})"
        elif at_end or "premature end" in msg.lower() or "end of data" in msg.lower():
            reason = f"truncated XML: the document ends before it is complete ({msg})"
        else:
            reason = f"malformed XML ({msg})"
        raise ParseError(reason, source=source, location=f"line {line}, column {col}") from None
    if root is None:
        raise ParseError("empty input, expected an XML <hierarchy> document", source=source)
    if root.tag != "hierarchy":
        raise ParseError(f"root element is <{root.tag}>, expected <hierarchy>", source=source,
                         location=_where(root, str(root.tag)))
    total = sum(1 for _ in root.iter(tag=etree.Element))
    if total - 1 > max_nodes:
        raise TreeTooLargeError(f"{total - 1} nodes exceed the limit of {max_nodes}", source=source)

    elements = [c for c in root if isinstance(c.tag, str)]
    fmt: SourceFormat = "appium" if any(c.tag not in ("node", "display") for c in elements) else "uiautomator"
    builder = _Builder(source, fmt)
    roots: list[UINode] = []
    for i, el in enumerate(elements):
        if el.tag == "display":
            disp = _int(el.attrib, "id", source, _where(el, f"hierarchy/display[{i}]"))
            for j, child in enumerate(c for c in el if isinstance(c.tag, str)):
                roots.append(builder.node(child, f"hierarchy/display[{i}]/node[{j}]", disp))
        else:
            roots.append(builder.node(el, f"hierarchy/{_tag_label(el)}[{i}]", None))
    if not roots:
        raise ParseError("hierarchy holds no nodes (empty screen dump)", source=source,
                         location=_where(root, "hierarchy"))

    screen: ScreenSize | None = None
    w = _int(root.attrib, "width", source, "hierarchy")
    h = _int(root.attrib, "height", source, "hierarchy")
    if w and h and w > 0 and h > 0:
        screen = ScreenSize(w, h)
    else:
        # Only the default display's windows define the phone's screen.
        screen = infer_screen(tuple(r for r in roots if r.display_id in (None, 0)) or tuple(roots))
    rotation = _int(root.attrib, "rotation", source, "hierarchy") or 0
    return UITree(roots=tuple(roots), screen=screen, source=fmt, rotation=rotation)
