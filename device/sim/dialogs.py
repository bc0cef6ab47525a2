"""Dialogs and menus: AlertDialog windows (``android:id/alertTitle``, ``button1``...),
single-choice dialogs and overflow popup menus."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from latent_agent.device.sim.ui import Handler, Node, Window
from latent_agent.device.sim.views import FRAME, LINEAR, STATUS_H, button, label, radio_row, text_width

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone


def dialog(
    phone: Phone,
    package: str,
    title: str,
    body: list[Node] | None = None,
    *,
    message: str = "",
    buttons: Sequence[tuple[str, Handler]] = (),
    height: int = 0,
    on_outside: Handler | None = None,
) -> Window:
    """An AlertDialog window centred on screen.

    ``body`` nodes are laid out by the caller from ``phone.dialog_body_top``
    downwards; buttons are placed right-aligned at the bottom, the last one
    as ``android:id/button1`` (positive) as Android does.
    """
    w, h = phone.width, phone.height
    body = body or []
    inner = height or (
        240 + (130 if message else 0) + (180 if buttons else 0) + sum(n.bounds[3] - n.bounds[1] for n in body)
    )
    top = max(STATUS_H + 40, (h - inner) // 2)
    (66, top, w - 66, top + inner)
    kids: list[Node] = [
        Node(
            LINEAR,
            (66, top, w - 66, top + 190),
            rid="android:id/topPanel",
            children=[
                label(
                    (132, top + 80, w - 132, top + 160),
                    title,
                    rid="android:id/alertTitle",
                    role="title",
                    size=56,
                )
            ],
        ),
    ]
    y = top + 190
    if message:
        kids.append(
            Node(
                FRAME,
                (66, y, w - 66, y + 130),
                rid="android:id/contentPanel",
                children=[
                    label((132, y + 20, w - 132, y + 110), message, rid="android:id/message", fit=False)
                ],
            )
        )
        y += 130
    if body:
        shift = y - body[0].bounds[1]
        for n in body:
            _shift(n, shift)
        bottom = max(n.bounds[3] for n in body)
        kids.append(Node(FRAME, (66, y, w - 66, bottom), rid="android:id/custom", children=body))
        y = bottom
    if buttons:
        btns: list[Node] = []
        right = w - 110
        ids = ["android:id/button1", "android:id/button2", "android:id/button3"]
        for i, (text, handler) in enumerate(reversed(list(buttons))):
            bw = max(180, text_width(text.upper(), 40) + 40)
            btns.insert(
                0, button((right - bw, y + 30, right, y + 150), text, handler, rid=ids[i], role="text_button")
            )
            right -= bw + 20
        kids.append(Node(LINEAR, (66, y, w - 66, y + 180), rid="android:id/buttonPanel", children=btns))
        y += 180
    root = Node(
        FRAME,
        (66, top, w - 66, max(y, top + inner)),
        children=[
            Node(
                FRAME,
                (66, top, w - 66, max(y, top + inner)),
                rid="android:id/content",
                children=[
                    Node(
                        LINEAR,
                        (66, top, w - 66, max(y, top + inner)),
                        rid="android:id/parentPanel",
                        children=kids,
                    )
                ],
            )
        ],
        role="dialog",
    )
    return Window(root, package, modal=True, on_outside=on_outside or phone.pop)


def _shift(node: Node, dy: int) -> None:
    for n in node.iter():
        left, top, right, bottom = n.bounds
        n.bounds = (left, top + dy, right, bottom + dy)


def choice_dialog(
    phone: Phone,
    package: str,
    title: str,
    options: Sequence[str],
    current: str,
    choose: Callable[[str], None],
    *,
    buttons: Sequence[tuple[str, Handler]] = (),
) -> Window:
    """A single-choice dialog; picking an option calls ``choose`` with it."""
    w = phone.width
    rows = []
    for i, opt in enumerate(options):
        rows.append(radio_row((66, i * 150, w - 66, (i + 1) * 150), opt, opt == current, _bind(choose, opt)))
    lst = Node(
        "android.widget.ListView",
        (66, 0, w - 66, len(options) * 150),
        rid="android:id/select_dialog_listview",
        children=rows,
    )
    return dialog(phone, package, title, [lst], buttons=buttons or [("Cancel", phone.pop)])


def _bind(fn: Callable[[str], None], value: str) -> Handler:
    return lambda: fn(value)


def popup_menu(
    phone: Phone,
    package: str,
    items: Sequence[tuple[str, Handler]],
    *,
    top: int = STATUS_H + 22,
    width: int = 560,
) -> Window:
    """An overflow menu anchored at the top right."""
    w = phone.width
    left = w - width - 22
    rows = [
        Node(
            LINEAR,
            (left, top + 24 + i * 138, w - 22, top + 24 + (i + 1) * 138),
            on_tap=handler,
            children=[
                label(
                    (left + 44, top + 24 + i * 138 + 40, w - 66, top + 24 + i * 138 + 100),
                    text,
                    rid="android:id/title",
                )
            ],
            role="row",
        )
        for i, (text, handler) in enumerate(items)
    ]
    bottom = top + 48 + len(items) * 138
    lst = Node("android.widget.ListView", (left, top, w - 22, bottom), children=rows)
    root = Node(FRAME, (left, top, w - 22, bottom), children=[lst], role="menu")
    return Window(root, package, modal=True, on_outside=phone.pop, dim=False)
