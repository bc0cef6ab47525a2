"""Settings (``com.android.settings``): home list, search, and the pages of
:mod:`latent_agent.device.sim.apps.settings_pages`, plus the Private DNS dialog."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.apps.settings_pages import HOME, PAGES, Choice, Entry, Header, Info, Link, Stepper, Toggle
from latent_agent.device.sim.dialogs import choice_dialog, dialog
from latent_agent.device.sim.state import get_path, set_path
from latent_agent.device.sim.ui import Handler, Node, Page, Rect, Window
from latent_agent.device.sim.views import (
    FRAME,
    GROUP,
    IMAGE,
    IMAGE_BUTTON,
    LINEAR,
    STATUS_H,
    TOOLBAR_H,
    Row,
    activity,
    edit_text,
    header_row,
    icon_button,
    label,
    pref_row,
    radio_row,
    scroll_list,
    switch,
    toolbar,
)

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.android.settings"
RID = f"{PKG}:id/"
SEARCH_FIELD = f"{PKG}/search"
DNS_FIELD = f"{PKG}/private_dns_host"
DNS_OPTIONS = (("Off", "off"), ("Automatic", "automatic"), ("Private DNS provider hostname", "hostname"))


def _fmt(path: str, value: object) -> str:
    if isinstance(value, bool):
        return "On" if value else "Off"
    if isinstance(value, int) and path.endswith("_mb"):
        return f"{value / 1000:.2f} GB used Sep 14 – Oct 13"
    if isinstance(value, int):
        return f"{value}%"
    return str(value)


def search_index() -> list[tuple[str, str]]:
    """(title, page) of everything Settings search finds, in a stable order."""
    out = [(title, page) for title, _, page in HOME]
    for page, (_, entries) in PAGES.items():
        out.extend((e.title, page) for e in entries if not isinstance(e, Header))
    return list(dict.fromkeys(out))


class Settings(SimApp):
    package = PKG
    label = "Settings"

    def build(self, phone: Phone, page: Page) -> Window:
        if page.name == "main":
            return self._home(phone)
        if page.name == "search":
            return self._search(phone)
        if page.name == "choice":
            return self._choice(phone, page.arg)
        if page.name == "private_dns":
            return self._private_dns(phone)
        title, entries = PAGES[page.name]
        return self._page(phone, title, entries)

    # -- screens -------------------------------------------------------------

    def _home(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        top = STATUS_H
        bar = Node(
            "com.google.android.material.card.MaterialCardView",
            (22, top + 22, w - 22, top + 154),
            rid=RID + "search_bar",
            children=[
                Node(
                    FRAME,
                    (22, top + 22, w - 22, top + 154),
                    children=[
                        Node(
                            GROUP,
                            (22, top + 22, w - 170, top + 154),
                            rid=RID + "search_action_bar",
                            on_tap=lambda: self._open_search(phone),
                            role="searchbar",
                            children=[
                                Node(IMAGE_BUTTON, (22, top + 22, 170, top + 154), role="glyph"),
                                label(
                                    (200, top + 58, 700, top + 117),
                                    "Search settings",
                                    rid=RID + "search_action_bar_title",
                                ),
                            ],
                        ),
                        Node(
                            IMAGE,
                            (w - 154, top + 22, w - 22, top + 154),
                            desc="Profile picture, double tap to open Google Account",
                            rid=RID + "account_avatar",
                            role="avatar",
                        ),
                    ],
                )
            ],
        )
        rows = [Row(200, partial(self._link_row, phone, t, s, p)) for t, s, p in HOME]
        lst = scroll_list(phone, phone.key(), (0, top + 176, w, h - 66), rows, rid=RID + "recycler_view")
        body = Node(
            FRAME,
            (0, top + 176, w, h - 66),
            rid=RID + "main_content",
            children=[
                Node(
                    LINEAR,
                    (0, top + 176, w, h - 66),
                    rid=RID + "container_material",
                    children=[
                        Node(
                            FRAME, (0, top + 176, w, h - 66), rid="android:id/list_container", children=[lst]
                        )
                    ],
                )
            ],
        )
        header = Node(LINEAR, (0, top, w, top + 176), children=[bar])
        return activity(phone, PKG, [header, body], rid=RID + "settings_homepage_container")

    def _page(self, phone: Phone, title: str, entries: tuple[Entry, ...]) -> Window:
        w, h = phone.width, phone.height
        top = STATUS_H
        bar = toolbar(
            phone,
            PKG,
            title,
            up=phone.pop,
            actions=[icon_button("Search settings", lambda: self._open_search(phone))],
        )
        rows = [self._row(phone, e) for e in entries]
        box = (0, top + TOOLBAR_H, w, h - 66)
        lst = scroll_list(phone, phone.key(), box, rows, rid=RID + "recycler_view")
        frame = Node(
            FRAME,
            box,
            rid=RID + "content_frame",
            children=[
                Node(
                    FRAME,
                    box,
                    rid=RID + "main_content",
                    children=[Node(FRAME, box, rid="android:id/list_container", children=[lst])],
                )
            ],
        )
        return activity(
            phone, PKG, [Node(LINEAR, (0, top, w, h - 66), rid=RID + "content_parent", children=[bar, frame])]
        )

    def _row(self, phone: Phone, e: Entry) -> Row:
        state = phone.state
        if isinstance(e, Header):
            return Row(130, lambda box: header_row(box, e.title))
        if isinstance(e, Link):
            summary = _fmt(e.summary_path, get_path(state, e.summary_path)) if e.summary_path else e.summary
            return Row(
                200 if summary else 150,
                lambda box: pref_row(box, e.title, summary, self._go(phone, e.target)),
            )
        if isinstance(e, Info):
            summary = _fmt(e.summary_path, get_path(state, e.summary_path)) if e.summary_path else e.summary
            return Row(200 if summary else 150, lambda box: pref_row(box, e.title, summary, None, icon=False))
        if isinstance(e, Toggle):
            on = bool(get_path(state, e.path))

            def flip() -> None:
                set_path(phone.state, e.path, not bool(get_path(phone.state, e.path)))

            return Row(
                200 if e.summary else 160,
                lambda box: pref_row(
                    box, e.title, e.summary, flip, icon=False, widget=switch((0, 0, 0, 0), on)
                ),
            )
        if isinstance(e, Choice):
            value = get_path(state, e.path)
            current = next((lbl for lbl, v in e.options if v == value), str(value))
            if e.path == "settings.network.private_dns" and value == "hostname":
                current = state.settings.network.private_dns_host
            target = (
                Page("private_dns") if e.path == "settings.network.private_dns" else Page("choice", e.title)
            )
            return Row(
                200,
                lambda box: pref_row(box, e.title, current, lambda: self._open(phone, target), icon=False),
            )
        return self._stepper(phone, e)

    def _stepper(self, phone: Phone, e: Stepper) -> Row:
        value = str(get_path(phone.state, e.path))
        i = e.options.index(value) if value in e.options else 0

        def step(delta: int) -> Handler:
            def run() -> None:
                j = min(len(e.options) - 1, max(0, i + delta))
                set_path(phone.state, e.path, e.options[j])

            return run

        def build(box: tuple[int, int, int, int]) -> Node:
            _left, top, right, _bottom = box
            return Node(
                LINEAR,
                box,
                children=[
                    label((198, top + 20, right - 44, top + 80), e.title, rid="android:id/title"),
                    label(
                        (198, top + 80, right - 44, top + 130),
                        value,
                        rid="android:id/summary",
                        role="summary",
                        size=36,
                    ),
                    Node(
                        IMAGE_BUTTON,
                        (44, top + 150, 176, top + 282),
                        desc="Make font smaller",
                        rid=RID + "smaller",
                        on_tap=step(-1),
                        role="icon",
                    ),
                    Node(
                        "android.widget.SeekBar",
                        (198, top + 150, right - 198, top + 282),
                        text=str(float(i)),
                        desc=e.title,
                        rid=RID + "seekbar",
                        role="seekbar",
                    ),
                    Node(
                        IMAGE_BUTTON,
                        (right - 176, top + 150, right - 44, top + 282),
                        desc="Make font bigger",
                        rid=RID + "larger",
                        on_tap=step(1),
                        role="icon",
                    ),
                ],
            )

        return Row(320, build)

    def _search(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        top = STATUS_H
        query = phone.field_text(SEARCH_FIELD).strip().lower()
        field = edit_text(
            phone,
            (154, top + 22, w - 44, top + 154),
            SEARCH_FIELD,
            hint="Search settings",
            rid="android:id/search_src_text",
            role="search",
        )
        bar = Node(
            LINEAR,
            (0, top, w, top + TOOLBAR_H),
            rid=RID + "search_bar",
            children=[
                Node(
                    IMAGE_BUTTON,
                    (0, top + 22, 154, top + 154),
                    desc="Navigate up",
                    on_tap=phone.pop,
                    role="icon",
                ),
                Node(
                    LINEAR,
                    (154, top + 22, w - 44, top + 154),
                    rid="android:id/search_edit_frame",
                    children=[field],
                ),
            ],
        )
        hits = [(t, p) for t, p in search_index() if query and query in t.lower()] if query else []
        titles = {p: PAGES[p][0] for p in PAGES}
        rows = [
            Row(200, partial(self._link_row, phone, t, titles.get(p, "Settings"), p, icon=False))
            for t, p in hits
        ]
        lst = scroll_list(
            phone, phone.key(), (0, top + TOOLBAR_H, w, h - 66), rows, rid=RID + "recycler_view"
        )
        if query and not hits:
            lst.children = [label((66, top + 260, w - 66, top + 330), "No results", rid=RID + "no_results")]
        return activity(phone, PKG, [bar, lst])

    def _choice(self, phone: Phone, title: str) -> Window:
        entry = next(
            e for _, entries in PAGES.values() for e in entries if isinstance(e, Choice) and e.title == title
        )
        value = get_path(phone.state, entry.path)
        current = next((lbl for lbl, v in entry.options if v == value), "")
        values = dict(entry.options)

        def choose(lbl: str) -> None:
            set_path(phone.state, entry.path, values[lbl])
            phone.pop()

        return choice_dialog(phone, PKG, title, [lbl for lbl, _ in entry.options], current, choose)

    def _private_dns(self, phone: Phone) -> Window:
        w = phone.width
        pending = phone.ui.get("private_dns", phone.state.settings.network.private_dns)
        rows = []
        for i, (lbl, value) in enumerate(DNS_OPTIONS):
            rows.append(
                radio_row(
                    (66, i * 150, w - 66, (i + 1) * 150),
                    lbl,
                    value == pending,
                    self._pick_dns(phone, value),
                    rid=RID + f"private_dns_mode_{value}",
                )
            )
        body = [
            Node(
                "android.widget.RadioGroup",
                (66, 0, w - 66, 450),
                rid=RID + "private_dns_radio_group",
                children=rows,
            )
        ]
        if pending == "hostname":
            body.append(
                edit_text(
                    phone,
                    (132, 470, w - 132, 600),
                    DNS_FIELD,
                    hint="Enter DNS provider hostname",
                    rid=RID + "private_dns_mode_provider_hostname",
                )
            )
        host_ok = pending != "hostname" or bool(phone.field_text(DNS_FIELD).strip())
        return dialog(
            phone,
            PKG,
            "Private DNS",
            body,
            buttons=[("Cancel", phone.pop), ("Save", self._save_dns(phone) if host_ok else _noop)],
            on_outside=phone.pop,
        )

    # -- actions -------------------------------------------------------------

    def _link_row(
        self, phone: Phone, title: str, summary: str, page: str, box: Rect, *, icon: bool = True
    ) -> Node:
        return pref_row(box, title, summary, self._go(phone, page), icon=icon)

    def _go(self, phone: Phone, page: str) -> Handler:
        return lambda: self._open(phone, Page(page))

    def _open(self, phone: Phone, page: Page) -> None:
        if page.name == "private_dns":
            phone.ui["private_dns"] = phone.state.settings.network.private_dns
            phone.set_field(DNS_FIELD, phone.state.settings.network.private_dns_host)
        phone.push(page)

    def _open_search(self, phone: Phone) -> None:
        phone.push(Page("search"))
        phone.set_field(SEARCH_FIELD, "", focus=True)

    def _pick_dns(self, phone: Phone, value: str) -> Handler:
        def run() -> None:
            phone.ui["private_dns"] = value
            if value == "hostname":
                phone.focus = DNS_FIELD

        return run

    def _save_dns(self, phone: Phone) -> Handler:
        def run() -> None:
            net = phone.state.settings.network
            net.private_dns = phone.ui.get("private_dns", net.private_dns)
            if net.private_dns == "hostname":
                net.private_dns_host = phone.field_text(DNS_FIELD).strip()
            phone.pop()

        return run


def _noop() -> None:
    """A disabled button's tap: Android ignores it."""
