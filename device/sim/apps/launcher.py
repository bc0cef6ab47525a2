"""The Pixel launcher: home screen, app drawer (with search) and recents."""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.ui import Handler, Node, Page, Rect, Window
from latent_agent.device.sim.views import (
    EDIT,
    FRAME,
    GROUP,
    IMAGE,
    LINEAR,
    NAV_H,
    RELATIVE,
    STATUS_H,
    TEXT,
    Row,
    activity,
    button,
    edit_text,
    label,
    scroll_list,
)

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.google.android.apps.nexuslauncher"
RID = f"{PKG}:id/"
HOTSEAT = ("Clock", "Play Store", "Chrome", "Settings")
WORKSPACE = ("Calendar", "Files")


def launcher_labels(phone: Phone) -> dict[str, str]:
    """Label -> package of every app with a launcher icon, as the drawer lists them."""
    return {app.label: pkg for pkg, app in phone.apps.items() if app.launcher}


def _icon(phone: Phone, box: tuple[int, int, int, int], text: str) -> Node:
    pkg = launcher_labels(phone).get(text, "")
    return Node(
        TEXT,
        box,
        text=text,
        desc=text,
        rid=RID + "icon",
        role="app_icon",
        on_tap=_launch(phone, pkg),
        on_long=None,
    )


def _icon_row(phone: Phone, labels: list[str], cell: int, box: Rect) -> Node:
    icons = [
        _icon(phone, (42 + i * cell, box[1], 42 + (i + 1) * cell, box[3]), t) for i, t in enumerate(labels)
    ]
    return Node(GROUP, box, children=icons)


def _launch(phone: Phone, package: str) -> Handler:
    return lambda: phone.launch(package)


class Launcher(SimApp):
    package = PKG
    label = "Pixel Launcher"
    launcher = False

    def home(self) -> Page:
        return Page("home")

    def build(self, phone: Phone, page: Page) -> Window:
        if page.name == "drawer":
            return self._drawer(phone)
        if page.name == "recents":
            return self._recents(phone)
        return self._home(phone)

    def swipe(self, phone: Phone, page: Page, dx: int, dy: int) -> bool:
        if page.name == "home" and dy < -300:
            phone.push(Page("drawer"))
            phone.set_field(RID + "input", "")
            return True
        if page.name == "drawer" and dy > 300:
            phone.pop()
            return True
        return False

    def _home(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        date = dt.date.fromisoformat(phone.state.date)
        day = date.strftime("%A, %B ") + str(date.day)
        smart = Node(
            FRAME,
            (35, STATUS_H + 40, w - 35, STATUS_H + 300),
            rid=RID + "search_container_workspace",
            children=[
                Node(
                    LINEAR,
                    (166, STATUS_H + 40, w - 166, STATUS_H + 300),
                    rid=RID + "smartspace_content",
                    children=[
                        label(
                            (166, STATUS_H + 100, 720, STATUS_H + 200),
                            day,
                            rid=RID + "clock",
                            desc=day,
                            role="headline",
                            size=56,
                        ),
                        label(
                            (740, STATUS_H + 100, w - 166, STATUS_H + 200),
                            "18°C",
                            rid=RID + "title_weather_text",
                            size=56,
                        ),
                    ],
                )
            ],
        )
        icons = [
            _icon(phone, (35 + i * 253, 1500, 35 + (i + 1) * 253, 1790), t) for i, t in enumerate(WORKSPACE)
        ]
        workspace = Node(
            GROUP,
            (0, STATUS_H, w, 1800),
            rid=RID + "workspace",
            children=[smart, Node(GROUP, (35, 1500, w - 35, 1790), children=icons)],
        )
        handle = Node(
            IMAGE,
            (w // 2 - 63, 1810, w // 2 + 63, 1880),
            desc="Apps list",
            rid=RID + "all_apps_handle",
            on_tap=lambda: self._open_drawer(phone),
            role="handle",
        )
        hot = [_icon(phone, (35 + i * 253, 1890, 35 + (i + 1) * 253, 2110), t) for i, t in enumerate(HOTSEAT)]
        hotseat = Node(
            FRAME,
            (0, 1890, w, h - NAV_H),
            rid=RID + "hotseat",
            children=[
                Node(GROUP, (35, 1890, w - 35, 2110), rid=RID + "layout", children=hot),
                Node(
                    FRAME,
                    (53, 2140, w - 53, 2300),
                    desc="Search",
                    rid=RID + "search_container_hotseat",
                    on_tap=lambda: self._open_drawer(phone),
                    role="searchbar",
                    children=[Node(IMAGE, (93, 2175, 178, 2260), rid=RID + "g_icon", role="glyph")],
                ),
            ],
        )
        drag = Node(FRAME, (0, 0, w, h), rid=RID + "drag_layer", children=[workspace, handle, hotseat])
        return activity(phone, PKG, [Node(FRAME, (0, 0, w, h), rid=RID + "launcher", children=[drag])])

    def _open_drawer(self, phone: Phone) -> None:
        phone.push(Page("drawer"))
        phone.set_field(RID + "input", "")

    def _drawer(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        query = phone.field_text(RID + "input").strip().lower()
        labels = sorted((t for t in launcher_labels(phone) if query in t.lower()), key=str.lower)
        per_row = 4
        cell = (w - 84) // per_row
        rows = []
        for start in range(0, len(labels), per_row):
            chunk = labels[start : start + per_row]
            rows.append(Row(305, partial(_icon_row, phone, chunk, cell)))
        grid = scroll_list(
            phone,
            phone.key("apps"),
            (0, 420, w, h - NAV_H),
            rows,
            rid=RID + "apps_list_view",
            cls="android.widget.GridView",
        )
        search = Node(
            FRAME,
            (83, STATUS_H + 30, w - 83, STATUS_H + 200),
            rid=RID + "search_container_all_apps",
            children=[
                Node(
                    RELATIVE,
                    (83, STATUS_H + 30, w - 83, STATUS_H + 200),
                    children=[
                        Node(
                            FRAME,
                            (120, STATUS_H + 30, w - 120, STATUS_H + 200),
                            rid=RID + "typeahead_input",
                            children=[
                                edit_text(
                                    phone,
                                    (120, STATUS_H + 30, w - 120, STATUS_H + 200),
                                    RID + "input",
                                    hint="Search apps",
                                    rid=RID + "input",
                                    role="search",
                                )
                            ],
                        )
                    ],
                )
            ],
        )
        if not labels:
            grid.children = [label((84, 500, w - 84, 580), f'No apps found matching "{query}"', fit=False)]
        view = Node(RELATIVE, (0, 0, w, h), rid=RID + "apps_view", children=[grid, search])
        drag = Node(FRAME, (0, 0, w, h), rid=RID + "drag_layer", children=[view])
        return activity(phone, PKG, [Node(FRAME, (0, 0, w, h), rid=RID + "launcher", children=[drag])])

    def _recents(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        labels = {pkg: app.label for pkg, app in phone.apps.items()}
        recent = [p for p in reversed(phone.recents) if p in phone.apps]
        cards = []
        for i, pkg in enumerate(recent[:4]):
            top = STATUS_H + 60 + i * 420
            cards.append(
                Node(
                    FRAME,
                    (90, top, w - 90, top + 380),
                    desc=labels[pkg],
                    rid=RID + "snapshot",
                    on_tap=_launch(phone, pkg),
                    role="card",
                    children=[
                        label(
                            (130, top + 30, w - 130, top + 110),
                            labels[pkg],
                            rid=RID + "task_title",
                            role="title",
                            size=52,
                        )
                    ],
                )
            )
        if not recent:
            cards.append(
                label((90, 900, w - 90, 980), "No recent items", rid=RID + "recents_empty", fit=False)
            )
        clear = button(
            (w // 2 - 180, h - NAV_H - 220, w // 2 + 180, h - NAV_H - 100),
            "Clear all",
            lambda: self._clear(phone),
            rid=RID + "clear_all",
            role="chip",
        )
        content = Node(FRAME, (0, 0, w, h), rid=RID + "overview_panel", children=[*cards, clear])
        return activity(phone, PKG, [content])

    def _clear(self, phone: Phone) -> None:
        for pkg in phone.recents:
            phone.stacks.pop(pkg, None)
        phone.recents.clear()
        phone.go_home()


__all__ = ["EDIT", "Launcher", "launcher_labels"]
