"""The simulated screen model and its uiautomator XML form.

A screen is one or more :class:`Window` s, each a tree of :class:`Node` s
built afresh from the phone state. Nodes carry what a uiautomator dump shows
(class, text, resource id, flags, bounds) plus what the simulator needs to
act: a tap handler, the text field an ``EditText`` edits, the scroll offset a
list owns, and a drawing role for the renderer. :func:`to_xml` writes the
same attributes, in the same order, as ``uiautomator dump`` on a recent Pixel
(androidx ``AccessibilityNodeInfoDumper``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

Rect = tuple[int, int, int, int]
Handler = Callable[[], None]


@dataclass(slots=True, eq=False)
class Node:
    """One view of a simulated screen (mutable only while a screen is built).

    Attributes:
        cls: Android class name.
        bounds: ``(left, top, right, bottom)`` on screen, already clipped.
        on_tap: What a tap does; makes the node clickable.
        on_long: What a long press does; makes the node long-clickable.
        on_enter: What the Enter key does while this text field is focused.
        field: Key of the text buffer an editable field shows and edits.
        scroll: Key of the scroll offset a scrollable list owns.
        role: How the renderer draws the node (``"title"``, ``"switch"``...).
        covered: Behind the content drawn over it (the ``invisible_nodes`` noise): a dump reports it
            visible to the user, as uiautomator does for a view hidden behind others, but it is not drawn
            and a touch passes it by to whatever is in front.
    """

    cls: str
    bounds: Rect
    text: str = ""
    desc: str = ""
    rid: str = ""
    hint: str = ""
    children: list[Node] = field(default_factory=list)
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    enabled: bool = True
    password: bool = False
    visible: bool = True
    on_tap: Handler | None = None
    on_long: Handler | None = None
    on_enter: Handler | None = None
    field: str = ""
    scroll: str = ""
    role: str = ""
    covered: bool = False

    def __post_init__(self) -> None:
        if self.on_tap is not None:
            self.clickable = True
            self.focusable = True
        if self.on_long is not None:
            self.long_clickable = True
        if self.field:
            self.focusable = True
            self.clickable = True

    def iter(self) -> Iterator[Node]:
        """This node and its descendants in pre-order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom


@dataclass(slots=True, eq=False)
class Window:
    """One window: an app's activity, a dialog, a menu or the system shade.

    Attributes:
        root: The window's view tree.
        package: Package every node of the window belongs to.
        modal: A dialog or menu: drawn over the window below it; a tap outside
            ``root.bounds`` dismisses it (``on_outside``).
        on_outside: What a tap outside a modal window does (usually dismiss).
        dim: Dim what is below (dialogs do, menus do not).
    """

    root: Node
    package: str
    modal: bool = False
    on_outside: Handler | None = None
    dim: bool = True


def clip(node: Node, box: Rect) -> Node | None:
    """Clip ``node`` and its subtree to ``box`` as uiautomator reports bounds.

    Returns ``None`` when nothing of the node is inside ``box``; descendants
    left wholly outside are dropped (a RecyclerView does not hold them).
    """
    left, top, right, bottom = node.bounds
    cl, ct, cr, cb = max(left, box[0]), max(top, box[1]), min(right, box[2]), min(bottom, box[3])
    if cl >= cr or ct >= cb:
        return None
    if (cl, ct, cr, cb) != node.bounds:
        node.bounds = (cl, ct, cr, cb)
    kept = []
    for child in node.children:
        c = clip(child, box)
        if c is not None:
            kept.append(c)
    node.children = kept
    return node


def hit(root: Node, x: int, y: int) -> list[Node]:
    """Path from ``root`` to the top-most node under ``(x, y)``, root first.

    Later siblings are drawn over earlier ones, so they are tried first.
    Invisible and covered nodes (noise knobs) take no touches.
    """
    if not root.contains(x, y):
        return []
    path = [root]
    node = root
    while True:
        for child in reversed(node.children):
            if child.visible and not child.covered and child.contains(x, y):
                path.append(child)
                node = child
                break
        else:
            return path


_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
)


def _b(value: bool) -> str:
    return "true" if value else "false"


def _emit(node: Node, package: str, index: int, order: int, out: list[str]) -> None:
    left, top, right, bottom = node.bounds
    out.append(
        f'<node index="{index}" text="{node.text.translate(_ESCAPES)}" '
        f'resource-id="{node.rid}" class="{node.cls}" package="{package}" '
        f'content-desc="{node.desc.translate(_ESCAPES)}" checkable="{_b(node.checkable)}" '
        f'checked="{_b(node.checked)}" clickable="{_b(node.clickable)}" enabled="{_b(node.enabled)}" '
        f'focusable="{_b(node.focusable)}" focused="{_b(node.focused)}" '
        f'scrollable="{_b(node.scrollable)}" long-clickable="{_b(node.long_clickable)}" '
        f'password="{_b(node.password)}" selected="{_b(node.selected)}" '
        f'visible-to-user="{_b(node.visible)}" bounds="[{left},{top}][{right},{bottom}]" '
        f'drawing-order="{order}" hint="{node.hint.translate(_ESCAPES)}"'
    )
    if not node.children:
        out.append(" />")
        return
    out.append(">")
    for i, child in enumerate(node.children):
        _emit(child, package, i, i + 1, out)
    out.append("</node>")


def to_xml(windows: list[Window], rotation: int = 0) -> bytes:
    """Serialize windows (bottom first) as one uiautomator dump."""
    out = [f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"{rotation}\">"]
    for i, window in enumerate(windows):
        _emit(window.root, window.package, i, 0, out)
    out.append("</hierarchy>")
    return "".join(out).encode("utf-8")


@dataclass(frozen=True, slots=True)
class Page:
    """One screen of an app on its back stack (``arg`` picks e.g. the folder shown)."""

    name: str
    arg: str = ""
