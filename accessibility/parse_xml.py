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
from typing import Any
from xml.parsers import expat

from latent_agent.accessibility.text_cap import MAX_TEXT_CHARS, cap_text
from latent_agent.accessibility.tree import Bounds, ScreenSize, SourceFormat, UINode, UITree, infer_screen
from latent_agent.errors import ParseError, TreeTooLargeError

#: Trees larger than this are refused rather than processed slowly; a real
#: screen holds a few hundred nodes, and 100k would already take about a second.
DEFAULT_MAX_NODES = 100_000

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\Z")


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


_BOOL_WORDS = {"true": True, "false": False, "True": True, "False": False, "TRUE": True, "FALSE": False}

#: Deeper documents are refused: real screens nest 10-40 levels, and the
#: cleaner and describer recurse over the tree.
MAX_DEPTH = 256

_ENCODING_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _bool_value(raw: str, key: str) -> bool:
    value = _BOOL_WORDS.get(raw)
    if value is None:
        raise ParseError(f"attribute {key}={raw!r} is not true/false")
    return value


def _int(attrs: Mapping[str, str], key: str) -> int | None:
    raw = attrs.get(key)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ParseError(f"attribute {key}={raw!r} is not an integer") from None


#: A node path longer than this many levels is shown by its ends: a path through
#: a 256-level dump would otherwise fill the error line with 2 KB of steps.
PATH_ENDS = 4


def short_path(steps: list[str]) -> str:
    """``a/b/c`` for a node path, with the middle of a deep one cut to ``.../(N levels)/...``."""
    if len(steps) <= 2 * PATH_ENDS + 1:
        return "/".join(steps)
    hidden = len(steps) - 2 * PATH_ENDS
    return "/".join([*steps[:PATH_ENDS], f"...({hidden} levels)...", *steps[-PATH_ENDS:]])


def _tag_label(tag: str) -> str:
    return tag.rsplit(".", 1)[-1] if "." in tag else tag


class _Open:
    """An element whose end tag has not been seen yet."""

    __slots__ = ("attrs", "children", "display_id", "line", "position", "tag")

    def __init__(self, tag: str, attrs: dict[str, str], line: int, position: int, display_id: int | None) -> None:
        self.tag = tag
        self.attrs = attrs
        self.line = line
        self.position = position
        self.display_id = display_id
        self.children: list[UINode] = []


#: Boolean attributes in UINode field order (checkable .. editable, with enabled in its place).
_FLAG_KEYS = ("checkable", "checked", "clickable", "long-clickable", "enabled", "focusable", "focused",
              "scrollable", "selected", "password", "editable")
_FLAG_DEFAULTS = tuple(k == "enabled" for k in _FLAG_KEYS)
# Missing or empty attributes take the default (old dumps omit several).
_FAST_FALSE: dict[str | None, bool] = {"true": True, "false": False, None: False, "": False}
_FAST_TRUE: dict[str | None, bool] = {"true": True, "false": False, None: True, "": True}
_FAST_TABLES = tuple(_FAST_TRUE if default else _FAST_FALSE for default in _FLAG_DEFAULTS)
_FLAG_LOOKUPS = tuple(zip(_FLAG_KEYS, _FAST_TABLES, strict=True))


def _flags(a: dict[str, str]) -> list[bool]:
    """The eleven boolean attributes, validated; the common spellings take one dict lookup each."""
    values = [table.get(a.get(k)) for k, table in _FLAG_LOOKUPS]
    if None in values:
        for i, key in enumerate(_FLAG_KEYS):
            if values[i] is None:
                raw = a.get(key)
                values[i] = _FLAG_DEFAULTS[i] if not raw else _bool_value(raw, key)
    return values  # type: ignore[return-value]


def _flag(a: dict[str, str], key: str) -> bool:
    raw = a.get(key)
    if raw == "false" or not raw:
        return False
    if raw == "true":
        return True
    return _bool_value(raw, key)


def _build(el: _Open, children: tuple[UINode, ...]) -> UINode:
    a = el.attrs
    get = a.get
    class_name = get("class") or ("" if el.tag == "node" else el.tag)
    if not class_name:
        raise ParseError("node has no class attribute")
    raw_bounds = get("bounds")
    bounds = None
    if raw_bounds:
        m = _BOUNDS_RE.match(raw_bounds)
        bounds = parse_bounds(raw_bounds) if m is None else Bounds(int(m[1]), int(m[2]), int(m[3]), int(m[4]))
    raw_vis = get("visible-to-user") or get("displayed")
    visible = None if not raw_vis else _flag(a, "visible-to-user" if "visible-to-user" in a else "displayed")
    (checkable, checked, clickable, long_clickable, enabled, focusable, focused, scrollable, selected, password,
     editable) = _flags(a)
    index = get("index")
    drawing_order = get("drawing-order")
    node_display = get("display-id")
    text, desc, hint, rid, package = (get("text", ""), get("content-desc", ""), get("hint", ""),
                                      get("resource-id", ""), get("package", ""))
    # An app can put megabytes in one field; each is cut at parse time (see text_cap), checked cheaply.
    if max(len(class_name), len(text), len(desc), len(hint), len(rid), len(package)) > MAX_TEXT_CHARS:
        class_name, text, desc, hint, rid, package = (
            cap_text(class_name), cap_text(text), cap_text(desc), cap_text(hint), cap_text(rid), cap_text(package))
    # Positional, in UINode's field order: keyword passing costs measurably on
    # 2,000-node screens. The serialize/parse round-trip property test guards the order.
    return UINode(
        class_name,
        text,
        desc,
        hint,
        rid,
        package,
        bounds,
        checkable,
        checked,
        clickable,
        long_clickable,
        enabled,
        focusable,
        focused,
        scrollable,
        selected,
        password,
        editable,
        visible,
        (int(index) if index.isdigit() else (_int(a, "index") or 0)) if index else 0,
        _int(a, "drawing-order") if drawing_order else None,
        _int(a, "display-id") if node_display else el.display_id,
        children,
    )


class _Handler:
    """Expat callbacks building the tree bottom-up with an explicit stack.

    expat hands each element's attributes over as a ready dict, which makes
    this several times faster than walking an lxml tree (every lxml element
    access creates a proxy object); it is the hot path of every observation.
    """

    def __init__(self, parser: Any, source: str, max_nodes: int, screen: Bounds | None = None) -> None:
        self.parser = parser
        self.screen = screen
        # >0 while inside a subtree that is pruned (invisible or off-screen).
        self.skip_depth = 0
        self.pruned = 0
        self.source = source
        self.max_nodes = max_nodes
        self.stack: list[_Open] = []
        self.root_attrs: dict[str, str] | None = None
        self.root_children: list[UINode] = []
        self.count = 0
        self.appium = False
        # Child counters per open level, for the node path in error messages.
        self.child_counts: list[int] = [0]

    def where(self, line: int | None = None) -> str:
        steps = ["hierarchy", *(f"{_tag_label(el.tag)}[{el.position}]" for el in self.stack)]
        return f"line {line if line is not None else self.parser.CurrentLineNumber}, {short_path(steps)}"

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if self.root_attrs is None:
            if tag != "hierarchy":
                raise ParseError(f"root element is <{tag}>, expected <hierarchy>", source=self.source,
                                 location=f"line {self.parser.CurrentLineNumber}")
            self.root_attrs = attrs
            return
        if self.skip_depth:
            self.skip_depth += 1
            return
        if self.screen is not None and tag != "display" and self._hidden(attrs):
            self.skip_depth = 1
            self.pruned += 1
            return
        if len(self.stack) >= MAX_DEPTH:
            raise TreeTooLargeError(f"nodes nested deeper than {MAX_DEPTH} levels", source=self.source,
                                    location=self.where())
        self.count += 1
        if self.count > self.max_nodes:
            raise TreeTooLargeError(f"tree has more than {self.max_nodes} nodes, the limit; refused",
                                    source=self.source)
        position = self.child_counts[-1]
        self.child_counts[-1] += 1
        self.child_counts.append(0)
        display_id = self.stack[-1].display_id if self.stack else None
        if tag == "display" and not self.stack:
            try:
                display_id = _int(attrs, "id")
            except ParseError as exc:
                raise ParseError(exc.reason, source=self.source, location=self.where()) from None
            self.count -= 1
        elif tag != "node":
            self.appium = True
        self.stack.append(_Open(tag, attrs, self.parser.CurrentLineNumber, position, display_id))

    def _hidden(self, attrs: dict[str, str]) -> bool:
        """True when the node would be dropped by cleaning: invisible, or off the given screen."""
        if attrs.get("visible-to-user", attrs.get("displayed")) == "false":
            return True
        raw = attrs.get("bounds")
        m = _BOUNDS_RE.match(raw) if raw else None
        if m is None or self.screen is None:
            return False  # no or bad bounds: the builder keeps it or reports the error
        b = Bounds(int(m[1]), int(m[2]), int(m[3]), int(m[4]))
        return b.intersection_area(self.screen) == 0

    def end(self, tag: str) -> None:
        if self.skip_depth:
            self.skip_depth -= 1
            return
        if not self.stack:
            return  # </hierarchy>
        el = self.stack[-1]
        self.child_counts.pop()
        if el.tag == "display" and len(self.stack) == 1:
            self.stack.pop()
            self.root_children.extend(el.children)
            return
        try:
            node = _build(el, tuple(el.children))
        except ParseError as exc:
            raise ParseError(exc.reason, source=self.source, location=self.where(el.line)) from None
        self.stack.pop()
        (self.stack[-1].children if self.stack else self.root_children).append(node)


def _check_utf8(data: bytes, source: str) -> None:
    m = _ENCODING_DECL.match(data[:200])
    if m is not None and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return  # another declared encoding: expat decodes it
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1)
        raise ParseError(
            f"input is not valid UTF-8 text (byte 0x{data[exc.start]:02x} cannot be decoded)",
            source=source, location=f"line {line}, column {col}") from None


def parse_xml(
    data: bytes | str,
    *,
    source: str = "<dump>",
    max_nodes: int = DEFAULT_MAX_NODES,
    visible_on: ScreenSize | None = None,
) -> UITree:
    """Parse a uiautomator dump or an Appium page source.

    Args:
        data: The XML document, as bytes (preferred: the encoding is then taken
            from the XML declaration) or text.
        source: Name used in error messages (usually the file name).
        max_nodes: Trees with more elements are refused.
        visible_on: When the screen size is known (a device reports it), nodes
            marked invisible or lying wholly off this screen are skipped with
            their subtrees while parsing, exactly as :func:`clean_tree` would
            drop them, but without building them first. Attributes inside a
            skipped subtree are not validated; well-formedness still is.

    Returns:
        The parsed tree, with ``source`` set to ``"uiautomator"`` or ``"appium"``.

    Raises:
        ParseError: For malformed or truncated XML, a wrong root, bad bytes,
            bad attribute values or a hierarchy without nodes.
        TreeTooLargeError: Above ``max_nodes`` nodes or :data:`MAX_DEPTH` levels.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data.strip():
        raise ParseError("empty input, expected an XML <hierarchy> document", source=source)
    _check_utf8(data, source)
    # Refuse huge documents before building anything: counting start tags is
    # a fast byte scan, building 100k nodes is not.
    starts = data.count(b"<") - data.count(b"</") - data.count(b"<?") - data.count(b"<!") - 1
    if starts > max_nodes:
        raise TreeTooLargeError(f"tree has more than {max_nodes} nodes, the limit; refused ({starts} tags)",
                                source=source)
    parser = expat.ParserCreate()
    handler = _Handler(parser, source, max_nodes, visible_on.as_bounds() if visible_on else None)
    parser.StartElementHandler = handler.start
    parser.EndElementHandler = handler.end
    # Screen dumps never need a DTD; refusing one shuts out entity tricks.
    parser.StartDoctypeDeclHandler = _refuse_doctype
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        msg = expat.ErrorString(exc.code)
        lines = data.rstrip().split(b"\n")
        at_end = exc.lineno >= len(lines) and exc.offset >= len(lines[-1].decode("utf-8", "replace")) - 1
        if at_end or exc.code in (expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS],
                                  expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_TOKEN]):
            reason = f"truncated XML: the document ends before it is complete ({msg})"
        else:
            reason = f"malformed XML ({msg})"
        raise ParseError(reason, source=source, location=f"line {exc.lineno}, column {exc.offset}") from None
    except LookupError as exc:
        # expat looks up the encoding the XML declaration names, and raises this for one Python does not know.
        raise ParseError(f"the XML declaration names an unknown encoding ({exc})", source=source) from None
    roots = handler.root_children
    root_attrs = handler.root_attrs or {}
    if not roots and not handler.pruned:
        raise ParseError("hierarchy holds no nodes (empty screen dump)", source=source, location="hierarchy")
    screen: ScreenSize | None = None
    w, h = _int(root_attrs, "width"), _int(root_attrs, "height")
    if visible_on is not None:
        screen = visible_on
    elif w and h and w > 0 and h > 0:
        screen = ScreenSize(w, h)
    else:
        # Only the default display's windows define the phone's screen.
        screen = infer_screen(tuple(r for r in roots if r.display_id in (None, 0)) or tuple(roots))
    fmt: SourceFormat = "appium" if handler.appium else "uiautomator"
    rotation = _int(root_attrs, "rotation") or 0
    return UITree(roots=tuple(roots), screen=screen, source=fmt, rotation=rotation)


def _refuse_doctype(*_: object) -> None:
    raise ParseError("screen dumps must not contain a DOCTYPE declaration")
