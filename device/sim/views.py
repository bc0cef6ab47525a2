"""Builders for the views every simulated app is made of.

They produce the nesting real Pixel apps show in dumps: an activity is
``FrameLayout > LinearLayout > FrameLayout(android:id/content)``; a Settings
preference row is a clickable ``LinearLayout`` holding an icon frame, a
``RelativeLayout`` with ``android:id/title``/``android:id/summary`` and a
widget frame; dialogs use the AlertDialog ids (``android:id/alertTitle``,
``android:id/button1``...). Lists are RecyclerViews that only hold the rows
on screen, with bounds clipped to the list, and scroll by an offset the
phone keeps per list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.ui import Handler, Node, Rect, Window, clip

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

STATUS_H = 128
NAV_H = 66
TOOLBAR_H = 176
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
TEXT = "android.widget.TextView"
IMAGE = "android.widget.ImageView"
IMAGE_BUTTON = "android.widget.ImageButton"
BUTTON = "android.widget.Button"
LINEAR = "android.widget.LinearLayout"
FRAME = "android.widget.FrameLayout"
RELATIVE = "android.widget.RelativeLayout"
GROUP = "android.view.ViewGroup"
SWITCH = "android.widget.Switch"
RADIO = "android.widget.RadioButton"
EDIT = "android.widget.EditText"


def text_width(text: str, size: int = 42) -> int:
    """Rough rendered width of ``text`` in pixels (wrap_content TextViews)."""
    return int(len(text) * size * 0.62) + 16


def label(
    box: Rect,
    text: str,
    rid: str = "",
    role: str = "",
    desc: str = "",
    size: int = 42,
    cls: str = TEXT,
    fit: bool = True,
) -> Node:
    """A TextView sized to its text (left-aligned in ``box``)."""
    left, top, right, bottom = box
    if fit:
        right = min(right, left + text_width(text, size))
    return Node(cls, (left, top, right, bottom), text=text, rid=rid, role=role, desc=desc)


def content_box(phone: Phone) -> Rect:
    """The area between the status bar and the gesture bar."""
    return (0, STATUS_H, phone.width, phone.height - NAV_H)


def activity(phone: Phone, package: str, children: list[Node], rid: str = "") -> Window:
    """An app's full-screen activity window holding ``children`` in its content frame."""
    w, h = phone.width, phone.height
    content = Node(FRAME, content_box(phone), rid="android:id/content", children=children)
    if rid:
        content = Node(
            FRAME,
            content_box(phone),
            rid="android:id/content",
            children=[Node(GROUP, content_box(phone), rid=rid, children=children)],
        )
    root = Node(FRAME, (0, 0, w, h), children=[Node(LINEAR, (0, 0, w, h), children=[content])])
    return Window(root, package)


def toolbar(
    phone: Phone,
    package: str,
    title: str,
    *,
    up: Handler | None = None,
    actions: Sequence[Node] = (),
    rid: str = "action_bar",
    top: int = STATUS_H,
) -> Node:
    """A top app bar: optional "Navigate up", a title, action buttons at the right."""
    w = phone.width
    box = (0, top, w, top + TOOLBAR_H)
    kids: list[Node] = []
    x = 44
    if up is not None:
        kids.append(
            Node(IMAGE_BUTTON, (0, top, 154, top + TOOLBAR_H), desc="Navigate up", on_tap=up, role="icon")
        )
        x = 198
    kids.append(label((x, top + 40, w - 150 * len(actions), top + 130), title, role="title", size=60))
    right = w
    placed: list[Node] = []
    for action in reversed(actions):
        action.bounds = (right - 132, top + 22, right, top + 154)
        right -= 132
        placed.insert(0, action)
    if placed:
        kids.append(Node(LINEAR, (right, top, w, top + TOOLBAR_H), children=placed))
    return Node(GROUP, box, rid=f"{package}:id/{rid}", children=kids)


def icon_button(
    desc: str, on_tap: Handler | None, rid: str = "", box: Rect = (0, 0, 0, 0), cls: str = IMAGE_BUTTON
) -> Node:
    """An icon-only button labelled by its content description."""
    return Node(cls, box, desc=desc, rid=rid, on_tap=on_tap, role="icon")


def button(
    box: Rect,
    text: str,
    on_tap: Handler | None,
    rid: str = "",
    role: str = "button",
    desc: str = "",
    enabled: bool = True,
) -> Node:
    node = Node(
        BUTTON,
        box,
        text=text,
        desc=desc,
        rid=rid,
        on_tap=on_tap if enabled else None,
        role=role,
        enabled=enabled,
    )
    if not enabled:
        node.focusable = True
    return node


def edit_text(
    phone: Phone,
    box: Rect,
    key: str,
    *,
    hint: str = "",
    rid: str = "",
    on_enter: Handler | None = None,
    role: str = "edit",
) -> Node:
    """An editable field showing the phone's text buffer ``key``."""
    return Node(
        EDIT,
        box,
        text=phone.field_text(key),
        hint=hint,
        rid=rid,
        field=key,
        focused=phone.focus == key,
        on_enter=on_enter,
        role=role,
    )


def switch(
    box: Rect,
    checked: bool,
    rid: str = "android:id/switch_widget",
    desc: str = "",
    on_tap: Handler | None = None,
) -> Node:
    node = Node(
        SWITCH,
        box,
        text="ON" if checked else "OFF",
        desc=desc,
        rid=rid,
        checkable=True,
        checked=checked,
        role="switch",
        on_tap=on_tap,
    )
    node.focusable = True
    return node


@dataclass(frozen=True, slots=True)
class Row:
    """One list row: its height and how to build it inside a given box."""

    height: int
    build: Callable[[Rect], Node]


def scroll_list(
    phone: Phone,
    key: str,
    box: Rect,
    rows: Sequence[Row],
    *,
    rid: str = "",
    cls: str = RECYCLER,
    pad_bottom: int = 0,
) -> Node:
    """A vertically scrolling list holding only the rows that are on screen.

    The phone keeps the scroll offset under ``key``; it is clamped here to the
    content height, so the list neither over- nor under-scrolls.
    """
    left, top, right, bottom = box
    total = sum(r.height for r in rows) + pad_bottom
    max_offset = max(0, total - (bottom - top))
    offset = min(phone.scroll_offset(key), max_offset)
    phone.set_scroll(key, offset, max_offset)
    kids: list[Node] = []
    y = top - offset
    for row in rows:
        if y + row.height > top and y < bottom:
            node = clip(row.build((left, y, right, y + row.height)), box)
            if node is not None:
                kids.append(node)
        y += row.height
    node = Node(cls, box, rid=rid, children=kids, scroll=key, scrollable=max_offset > 0)
    node.focusable = max_offset > 0
    return node


def pref_row(
    box: Rect,
    title: str,
    summary: str = "",
    on_tap: Handler | None = None,
    *,
    icon: bool = True,
    widget: Node | None = None,
    pkg_rid: str = "com.android.settings",
) -> Node:
    """A Settings preference row (icon, title, summary, optional widget at the right)."""
    _left, top, right, bottom = box
    mid = (top + bottom) // 2
    text_right = right - (220 if widget is not None else 44)
    if summary:
        texts = [
            label((198, mid - 58, text_right, mid + 1), title, rid="android:id/title"),
            label(
                (198, mid + 1, text_right, mid + 54),
                summary,
                rid="android:id/summary",
                role="summary",
                size=36,
            ),
        ]
    else:
        texts = [label((198, mid - 30, text_right, mid + 30), title, rid="android:id/title")]
    kids: list[Node] = []
    if icon:
        kids.append(
            Node(
                LINEAR,
                (44, mid - 60, 198, mid + 60),
                rid=f"{pkg_rid}:id/icon_frame",
                children=[
                    Node(IMAGE, (44, mid - 44, 132, mid + 44), rid="android:id/icon", role="glyph", text="")
                ],
            )
        )
    kids.append(Node(RELATIVE, (198, top, text_right, bottom), children=texts))
    if widget is not None:
        frame = Node(
            LINEAR, (right - 216, top, right, bottom), rid="android:id/widget_frame", children=[widget]
        )
        widget.bounds = (right - 172, mid - 37, right - 44, mid + 37)
        kids.append(frame)
    return Node(LINEAR, box, children=kids, on_tap=on_tap, role="row")


def header_row(box: Rect, text: str) -> Node:
    """A preference-category header (coloured small text)."""
    _left, top, right, bottom = box
    return Node(
        LINEAR,
        box,
        children=[
            label(
                (198, top + 40, right - 44, bottom - 10), text, rid="android:id/title", role="header", size=36
            )
        ],
    )


def radio_row(box: Rect, text: str, checked: bool, on_tap: Handler, rid: str = "") -> Node:
    """A checkable list row with a radio button (dialog choices)."""
    return Node(
        "android.widget.CheckedTextView",
        box,
        text=text,
        rid=rid or "android:id/text1",
        checkable=True,
        checked=checked,
        on_tap=on_tap,
        role="radio",
    )


def bottom_nav(
    phone: Phone, package: str, tabs: Sequence[tuple[str, str]], current: str, select: Callable[[str], None]
) -> Node:
    """A Material bottom navigation bar; ``tabs`` are ``(id suffix, label)`` pairs."""
    w, h = phone.width, phone.height
    top, bottom = h - NAV_H - 220, h - NAV_H
    step = w // len(tabs)
    items = []
    for i, (rid, text) in enumerate(tabs):
        box = (i * step, top, (i + 1) * step, bottom)
        on = text == current
        items.append(
            Node(
                FRAME,
                box,
                desc=text,
                rid=f"{package}:id/tab_menu_{rid}",
                selected=on,
                on_tap=None if on else partial(select, text),
                role="tab",
                children=[
                    Node(
                        IMAGE,
                        (i * step + 75, top + 44, (i + 1) * step - 75, top + 110),
                        rid=f"{package}:id/navigation_bar_item_icon_view",
                        role="glyph",
                        selected=on,
                    ),
                    label(
                        (i * step + 20, top + 132, (i + 1) * step - 20, top + 187),
                        text,
                        rid=f"{package}:id/navigation_bar_item_large_label_view"
                        if on
                        else f"{package}:id/navigation_bar_item_small_label_view",
                        size=36,
                        fit=False,
                    ),
                ],
            )
        )
    return Node(
        FRAME,
        (0, top, w, bottom),
        rid=f"{package}:id/navigation_bar",
        children=[Node(GROUP, (0, top, w, bottom), children=items)],
    )


def fab(box: Rect, desc: str, on_tap: Handler, rid: str, text: str = "") -> Node:
    """A floating action button (content description only, like the Clock's "Add alarm")."""
    return Node(BUTTON, box, desc=desc, text=text, rid=rid, on_tap=on_tap, role="fab")
