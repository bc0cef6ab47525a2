"""Play Store (``com.android.vending``): search, app pages, install, open, uninstall.

Installed apps get a launcher icon (they appear in the drawer and in
``launcher_apps``) and open to their own first-run screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.apps.generic import InstalledApp
from latent_agent.device.sim.ui import Handler, Node, Page, Window
from latent_agent.device.sim.views import (
    FRAME,
    IMAGE,
    LINEAR,
    NAV_H,
    STATUS_H,
    TEXT,
    TOOLBAR_H,
    Row,
    activity,
    button,
    edit_text,
    icon_button,
    label,
    scroll_list,
)

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.android.vending"
RID = f"{PKG}:id/"
SEARCH_FIELD = f"{PKG}/search"


@dataclass(frozen=True, slots=True)
class Listing:
    name: str
    package: str
    developer: str
    rating: str
    downloads: str
    about: str


CATALOG = (
    Listing(
        "Spotify: Music and Podcasts",
        "com.spotify.music",
        "Spotify AB",
        "4.3",
        "1B+",
        "Play millions of songs and podcasts.",
    ),
    Listing("WhatsApp Messenger", "com.whatsapp", "WhatsApp LLC", "4.2", "5B+", "Simple. Reliable. Private."),
    Listing(
        "Duolingo: Language Lessons", "com.duolingo", "Duolingo", "4.6", "500M+", "Learn a language for free."
    ),
    Listing("Zoom Workplace", "us.zoom.videomeetings", "zoom.us", "4.4", "500M+", "Meetings, chat and more."),
    Listing(
        "Strava: Run, Bike, Hike", "com.strava", "Strava Inc.", "4.5", "50M+", "Track your runs and rides."
    ),
    Listing(
        "Todoist: To-Do List & Planner", "com.todoist", "Doist Inc.", "4.6", "10M+", "Organize work and life."
    ),
    Listing(
        "Telegram", "org.telegram.messenger", "Telegram FZ-LLC", "4.2", "1B+", "Fast and secure messaging."
    ),
    Listing(
        "Uber - Request a ride",
        "com.ubercab",
        "Uber Technologies, Inc.",
        "4.6",
        "500M+",
        "Get a ride in minutes.",
    ),
    Listing(
        "Netflix", "com.netflix.mediaclient", "Netflix, Inc.", "4.1", "1B+", "Watch TV shows and movies."
    ),
    Listing(
        "Microsoft Word: Edit Documents",
        "com.microsoft.office.word",
        "Microsoft Corporation",
        "4.5",
        "1B+",
        "Create and edit documents.",
    ),
)


def short_label(listing: Listing) -> str:
    """The launcher label: the store title up to its first colon or dash."""
    return listing.name.split(":")[0].split(" - ")[0].strip()


def install(phone: Phone, listing: Listing) -> None:
    if listing.package not in phone.state.store.installed:
        phone.state.store.installed.append(listing.package)
    phone.apps[listing.package] = InstalledApp(listing.package, short_label(listing))


def uninstall(phone: Phone, listing: Listing) -> None:
    phone.state.store.installed = [p for p in phone.state.store.installed if p != listing.package]
    phone.apps.pop(listing.package, None)
    phone.stacks.pop(listing.package, None)


class PlayStore(SimApp):
    package = PKG
    label = "Play Store"

    def build(self, phone: Phone, page: Page) -> Window:
        if page.name == "search":
            return self._search(phone)
        if page.name == "results":
            return self._results(phone, page.arg)
        if page.name == "app":
            return self._app(phone, page.arg)
        return self._home(phone)

    def _search_box(self, phone: Phone) -> Node:
        w = phone.width
        top = STATUS_H + 22
        return Node(
            FRAME,
            (44, top, w - 44, top + 132),
            rid=RID + "search_bar",
            on_tap=lambda: self._open_search(phone),
            role="searchbar",
            children=[
                label((132, top + 36, w - 200, top + 96), "Search apps & games", rid=RID + "search_bar_text")
            ],
        )

    def _home(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        rows = [
            Row(130, lambda b: label((66, b[1] + 40, w - 66, b[3] - 20), "Top charts", role="title", size=52))
        ]
        rows += [self._row(phone, i + 1, item) for i, item in enumerate(CATALOG)]
        lst = scroll_list(
            phone, phone.key(), (0, STATUS_H + 176, w, h - NAV_H), rows, rid=RID + "recycler_view"
        )
        return activity(phone, PKG, [self._search_box(phone), lst])

    def _row(self, phone: Phone, rank: int, item: Listing) -> Row:
        def build(b: tuple[int, int, int, int]) -> Node:
            _left, top, right, _bottom = b
            return Node(
                LINEAR,
                b,
                desc=f"{item.name}, {item.developer}, Rated {item.rating} stars",
                on_tap=lambda: self._open_app(phone, item),
                role="row",
                children=[
                    Node(TEXT, (44, top + 70, 100, top + 140), text=str(rank), role="summary"),
                    Node(IMAGE, (110, top + 30, 260, top + 180), role="glyph"),
                    label((290, top + 30, right - 44, top + 100), item.name, rid=RID + "title", fit=False),
                    label(
                        (290, top + 100, right - 44, top + 160),
                        f"{item.developer} · {item.rating} ★",
                        rid=RID + "subtitle",
                        role="summary",
                        size=36,
                        fit=False,
                    ),
                ],
            )

        return Row(210, build)

    def _search(self, phone: Phone) -> Window:
        w = phone.width
        top = STATUS_H
        field = edit_text(
            phone,
            (154, top + 22, w - 44, top + 154),
            SEARCH_FIELD,
            hint="Search apps & games",
            rid=RID + "search_bar_text_input",
            on_enter=lambda: self._submit(phone),
            role="search",
        )
        bar = Node(
            LINEAR,
            (0, top, w, top + TOOLBAR_H),
            rid=RID + "search_bar",
            children=[icon_button("Navigate up", phone.pop, box=(0, top + 22, 154, top + 154)), field],
        )
        return activity(phone, PKG, [bar])

    def _results(self, phone: Phone, query: str) -> Window:
        w, h = phone.width, phone.height
        q = query.lower()
        hits = (
            [
                i
                for i in CATALOG
                if any(word in i.name.lower() or word in i.about.lower() for word in q.split())
            ]
            if q
            else []
        )
        top = STATUS_H
        bar = Node(
            LINEAR,
            (0, top, w, top + TOOLBAR_H),
            rid=RID + "search_bar",
            children=[
                icon_button("Navigate up", phone.pop, box=(0, top + 22, 154, top + 154)),
                Node(
                    TEXT,
                    (154, top + 22, w - 44, top + 154),
                    text=query,
                    rid=RID + "search_bar_text",
                    on_tap=lambda: self._open_search(phone, query),
                ),
            ],
        )
        rows = [self._result(phone, item) for item in hits]
        lst = scroll_list(phone, phone.key(), (0, top + TOOLBAR_H, w, h - NAV_H), rows, rid=RID + "results")
        if not hits:
            lst.children = [label((66, top + 300, w - 66, top + 380), f'No results for "{query}"', fit=False)]
        return activity(phone, PKG, [bar, lst])

    def _result(self, phone: Phone, item: Listing) -> Row:
        installed = item.package in phone.state.store.installed

        def build(b: tuple[int, int, int, int]) -> Node:
            _left, top, right, _bottom = b
            action = button(
                (right - 320, top + 60, right - 44, top + 170),
                "Open" if installed else "Install",
                self._launch(phone, item) if installed else self._install(phone, item),
                rid=RID + "install_button",
            )
            return Node(
                LINEAR,
                b,
                on_tap=lambda: self._open_app(phone, item),
                role="row",
                children=[
                    Node(IMAGE, (44, top + 30, 194, top + 180), role="glyph"),
                    label((224, top + 40, right - 340, top + 110), item.name, rid=RID + "title", fit=False),
                    label(
                        (224, top + 110, right - 340, top + 170),
                        f"{item.developer} · {item.rating} ★",
                        rid=RID + "subtitle",
                        role="summary",
                        size=36,
                        fit=False,
                    ),
                    action,
                ],
            )

        return Row(230, build)

    def _app(self, phone: Phone, package: str) -> Window:
        w, h = phone.width, phone.height
        item = next(i for i in CATALOG if i.package == package)
        installed = package in phone.state.store.installed
        top = STATUS_H
        kids = [
            icon_button("Navigate up", phone.pop, box=(0, top + 22, 154, top + 154)),
            Node(IMAGE, (66, top + 200, 286, top + 420), role="glyph"),
            label(
                (320, top + 200, w - 66, top + 300),
                item.name,
                rid=RID + "title",
                role="title",
                size=52,
                fit=False,
            ),
            label(
                (320, top + 300, w - 66, top + 370),
                item.developer,
                rid=RID + "developer",
                role="header",
                size=38,
                fit=False,
            ),
            label(
                (66, top + 470, w - 66, top + 540),
                f"{item.rating} ★   {item.downloads} downloads",
                rid=RID + "stats",
                fit=False,
            ),
        ]
        if installed:
            kids += [
                button(
                    (66, top + 600, w // 2 - 22, top + 730),
                    "Uninstall",
                    self._uninstall(phone, item),
                    rid=RID + "uninstall_button",
                    role="chip",
                ),
                button(
                    (w // 2 + 22, top + 600, w - 66, top + 730),
                    "Open",
                    self._launch(phone, item),
                    rid=RID + "open_button",
                ),
            ]
        else:
            kids.append(
                button(
                    (66, top + 600, w - 66, top + 730),
                    "Install",
                    self._install(phone, item),
                    rid=RID + "install_button",
                )
            )
        kids += [
            label((66, top + 800, w - 66, top + 880), "About this app", role="title", size=48),
            label((66, top + 900, w - 66, top + 970), item.about, rid=RID + "description", fit=False),
        ]
        return activity(phone, PKG, [Node(FRAME, (0, top, w, h - NAV_H), rid=RID + "details", children=kids)])

    # -- actions -------------------------------------------------------------------

    def _open_search(self, phone: Phone, text: str = "") -> None:
        phone.push(Page("search"))
        phone.set_field(SEARCH_FIELD, text, focus=True)

    def _submit(self, phone: Phone) -> None:
        query = phone.field_text(SEARCH_FIELD).strip()
        if query:
            phone.state.store.searches.append(query)
            phone.replace(Page("results", query))

    def _open_app(self, phone: Phone, item: Listing) -> None:
        phone.push(Page("app", item.package))

    def _install(self, phone: Phone, item: Listing) -> Handler:
        return lambda: install(phone, item)

    def _uninstall(self, phone: Phone, item: Listing) -> Handler:
        return lambda: uninstall(phone, item)

    def _launch(self, phone: Phone, item: Listing) -> Handler:
        return lambda: phone.launch(item.package)
