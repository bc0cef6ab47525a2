"""Chrome (``com.android.chrome``): URL bar, tabs (new, close, switch), menu with Refresh,
pull-to-refresh, Back through a tab's history, and the pages of :mod:`chrome_pages`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.apps.chrome_pages import (
    HISTORY,
    NEWTAB,
    URL_FIELD,
    Navigate,
    Web,
    display_url,
    focus_url_bar,
    load_url,
    normalize,
    title_of,
)
from latent_agent.device.sim.state import Tab
from latent_agent.device.sim.ui import Handler, Node, Page, Rect, Window
from latent_agent.device.sim.views import (
    EDIT,
    FRAME,
    IMAGE_BUTTON,
    LINEAR,
    NAV_H,
    STATUS_H,
    TEXT,
    Row,
    activity,
    label,
    scroll_list,
)

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.android.chrome"
RID = f"{PKG}:id/"
BAR_H = 176


class Chrome(SimApp):
    package = PKG
    label = "Chrome"

    def build(self, phone: Phone, page: Page) -> Window:
        if page.name == "tabs":
            return self._switcher(phone)
        if page.name == "menu":
            return self._menu(phone)
        return self._browser(phone)

    def back(self, phone: Phone, page: Page) -> bool:
        if page.name != "main":
            return False
        if phone.focus == URL_FIELD:
            phone.focus = ""
            return True
        tab = phone.state.chrome.current_tab
        if tab.back:
            tab.url = tab.back.pop()
            tab.title = title_of(tab.url)
            return True
        return False

    def swipe(self, phone: Phone, page: Page, dx: int, dy: int) -> bool:
        chrome = phone.state.chrome
        if page.name == "main" and dy > 300 and phone.scroll_offset(f"chrome/web/{chrome.current}") == 0:
            chrome.current_tab.reloads += 1
            return True
        return False

    # -- screens ---------------------------------------------------------------

    def _toolbar(self, phone: Phone) -> Node:
        w = phone.width
        top = STATUS_H
        chrome = phone.state.chrome
        editing = phone.focus == URL_FIELD
        url = Node(
            EDIT,
            (176, top + 22, w - 308, top + BAR_H - 22),
            text=phone.field_text(URL_FIELD) if editing else display_url(chrome.current_url),
            hint="Search or type URL",
            rid=RID + "url_bar",
            focused=editing,
            on_enter=lambda: self._go(phone),
            role="searchbar",
        )
        url.on_tap = lambda: focus_url_bar(phone)
        url.clickable = url.focusable = True
        url.field = URL_FIELD if editing else ""
        count = str(chrome.tab_count)
        return Node(
            FRAME,
            (0, top, w, top + BAR_H),
            rid=RID + "toolbar",
            children=[
                Node(
                    IMAGE_BUTTON,
                    (0, top + 22, 154, top + BAR_H - 22),
                    desc="Home",
                    rid=RID + "home_button",
                    on_tap=lambda: load_url(phone, NEWTAB),
                    role="icon",
                ),
                Node(LINEAR, (154, top, w - 286, top + BAR_H), rid=RID + "location_bar", children=[url]),
                Node(
                    IMAGE_BUTTON,
                    (w - 286, top + 22, w - 154, top + BAR_H - 22),
                    text="",
                    desc="Switch or close tabs",
                    rid=RID + "tab_switcher_button",
                    on_tap=lambda: phone.push(Page("tabs")),
                    role="icon",
                    children=[
                        Node(
                            TEXT,
                            (w - 250, top + 60, w - 190, top + 120),
                            text=count,
                            rid=RID + "tab_switcher_button_count",
                            role="centered",
                        )
                    ],
                ),
                Node(
                    IMAGE_BUTTON,
                    (w - 154, top + 22, w - 22, top + BAR_H - 22),
                    desc="Customize and control Google Chrome",
                    rid=RID + "menu_button",
                    on_tap=lambda: phone.push(Page("menu")),
                    role="icon",
                ),
            ],
        )

    def _browser(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        chrome = phone.state.chrome
        url = chrome.current_url
        rows = Web(phone).rows(url, Navigate(phone))
        box = (0, STATUS_H + BAR_H, w, h - NAV_H)
        web = scroll_list(phone, f"chrome/web/{chrome.current}", box, rows, cls="android.webkit.WebView")
        web.text = chrome.current_tab.title
        web.rid = ""
        content = Node(FRAME, box, rid=RID + "compositor_view_holder", children=[web])
        return activity(
            phone,
            PKG,
            [
                Node(
                    FRAME,
                    (0, STATUS_H, w, h - NAV_H),
                    rid=RID + "control_container",
                    children=[self._toolbar(phone), content],
                )
            ],
        )

    def _switcher(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        chrome = phone.state.chrome
        top = STATUS_H
        bar = Node(
            FRAME,
            (0, top, w, top + BAR_H),
            rid=RID + "tab_switcher_toolbar",
            children=[
                Node(
                    IMAGE_BUTTON,
                    (22, top + 22, 154, top + BAR_H - 22),
                    desc="New tab",
                    rid=RID + "new_tab_view_button",
                    on_tap=lambda: self._new_tab(phone),
                    role="icon",
                ),
                label(
                    (200, top + 50, w - 200, top + 130),
                    f"{chrome.tab_count} open tabs",
                    role="title",
                    size=52,
                ),
            ],
        )
        rows = []
        for start in range(0, chrome.tab_count, 2):
            pair = list(range(start, min(start + 2, chrome.tab_count)))
            rows.append(
                Row(
                    640,
                    partial(self._pair, phone, pair),
                )
            )
        grid = scroll_list(
            phone, phone.key(), (0, top + BAR_H, w, h - NAV_H), rows, rid=RID + "tab_list_recycler_view"
        )
        return activity(phone, PKG, [bar, grid])

    def _pair(self, phone: Phone, pair: list[int], box: Rect) -> Node:
        return Node(LINEAR, box, children=[self._card(phone, i, box) for i in pair])

    def _card(self, phone: Phone, i: int, box: tuple[int, int, int, int]) -> Node:
        tab = phone.state.chrome.tabs[i]
        half = phone.width // 2
        left = 22 + (i % 2) * half
        top = box[1] + 20
        right = left + half - 44
        return Node(
            FRAME,
            (left, top, right, top + 600),
            desc=tab.title,
            rid=RID + "card_view",
            selected=i == phone.state.chrome.current,
            on_tap=lambda: self._switch(phone, i),
            role="card",
            children=[
                label(
                    (left + 30, top + 30, right - 120, top + 110),
                    tab.title,
                    rid=RID + "tab_title",
                    size=40,
                    fit=False,
                ),
                Node(
                    IMAGE_BUTTON,
                    (right - 110, top + 10, right - 10, top + 110),
                    desc=f"Close {tab.title} tab",
                    rid=RID + "action_button",
                    on_tap=lambda: self._close(phone, i),
                    role="icon",
                ),
                label(
                    (left + 30, top + 140, right - 30, top + 200),
                    display_url(tab.url),
                    size=34,
                    role="summary",
                    fit=False,
                ),
            ],
        )

    def _menu(self, phone: Phone) -> Window:
        w = phone.width
        top = STATUS_H + 22
        left = w - 640
        # Forward is disabled: tabs keep no forward history (as after a fresh load).
        icons: list[tuple[str, Handler | None]] = [("Forward", None), ("Refresh", self._refresh(phone))]
        icon_row = Node(
            LINEAR,
            (left, top, w - 22, top + 150),
            rid=RID + "button_wrapper",
            children=[
                Node(
                    IMAGE_BUTTON,
                    (left + i * 150, top + 10, left + (i + 1) * 150, top + 140),
                    desc=d,
                    rid=RID + "button_one",
                    on_tap=handler,
                    enabled=handler is not None,
                    role="icon",
                )
                for i, (d, handler) in enumerate(icons)
            ],
        )
        items = [
            ("New tab", lambda: self._menu_then(phone, lambda: self._new_tab(phone))),
            ("History", lambda: self._menu_then(phone, lambda: load_url(phone, HISTORY))),
            ("Clear browsing data", lambda: self._menu_then(phone, self._clear_history(phone))),
        ]
        rows = [
            Node(
                LINEAR,
                (left, top + 150 + i * 138, w - 22, top + 150 + (i + 1) * 138),
                on_tap=handler,
                rid=RID + "menu_item",
                role="row",
                children=[
                    label(
                        (left + 44, top + 190 + i * 138, w - 66, top + 250 + i * 138),
                        text,
                        rid=RID + "menu_item_text",
                    )
                ],
            )
            for i, (text, handler) in enumerate(items)
        ]
        bottom = top + 150 + len(items) * 138 + 24
        lst = Node(
            "android.widget.ListView",
            (left, top, w - 22, bottom),
            rid=RID + "app_menu_list",
            children=[icon_row, *rows],
        )
        return Window(
            Node(FRAME, (left, top, w - 22, bottom), children=[lst], role="menu"),
            PKG,
            modal=True,
            on_outside=phone.pop,
            dim=False,
        )

    # -- actions ---------------------------------------------------------------

    def _go(self, phone: Phone) -> None:
        typed = phone.field_text(URL_FIELD)
        if typed.strip():
            load_url(phone, normalize(typed))
        phone.focus = ""

    def _menu_then(self, phone: Phone, action: Handler) -> None:
        phone.pop()
        action()

    def _new_tab(self, phone: Phone) -> None:
        chrome = phone.state.chrome
        chrome.tabs.append(Tab(url=NEWTAB, title="New tab"))
        chrome.current = len(chrome.tabs) - 1
        phone.pop_to("main")

    def _switch(self, phone: Phone, i: int) -> None:
        phone.state.chrome.current = i
        phone.pop_to("main")

    def _close(self, phone: Phone, i: int) -> None:
        chrome = phone.state.chrome
        del chrome.tabs[i]
        if not chrome.tabs:
            chrome.tabs.append(Tab(url=NEWTAB, title="New tab"))
        chrome.current = min(
            chrome.current if chrome.current < i else max(0, chrome.current - 1), len(chrome.tabs) - 1
        )

    def _refresh(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.chrome.current_tab.reloads += 1
            phone.pop()

        return run

    def _clear_history(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.chrome.visited.clear()

        return run
