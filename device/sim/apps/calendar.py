"""Calendar (``com.google.android.calendar``): a schedule of events and tasks, an editor
with title, description and date (Material date picker), details and delete."""

from __future__ import annotations

import calendar as cal
import datetime as dt
from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.dialogs import dialog
from latent_agent.device.sim.state import CalendarEntry
from latent_agent.device.sim.ui import Handler, Node, Page, Rect, Window
from latent_agent.device.sim.views import (
    BUTTON,
    FRAME,
    IMAGE_BUTTON,
    LINEAR,
    NAV_H,
    STATUS_H,
    TEXT,
    TOOLBAR_H,
    Row,
    activity,
    button,
    edit_text,
    fab,
    icon_button,
    label,
    scroll_list,
    switch,
    toolbar,
)

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.google.android.calendar"
RID = f"{PKG}:id/"
TITLE = f"{PKG}/title"
DESC = f"{PKG}/description"


def _day(iso: str) -> str:
    d = dt.date.fromisoformat(iso)
    return d.strftime("%a, %b ") + str(d.day)


def _date_header(iso: str, b: Rect) -> Node:
    box = (66, b[1] + 40, b[2] - 66, b[3] - 10)
    return label(box, _day(iso), rid=RID + "date_header", role="header", size=38)


def _long_day(d: dt.date) -> str:
    return d.strftime("%A, %B ") + str(d.day)


class Calendar(SimApp):
    package = PKG
    label = "Calendar"

    def home(self) -> Page:
        return Page("schedule")

    def build(self, phone: Phone, page: Page) -> Window:
        if page.name == "create_menu":
            return self._create_menu(phone)
        if page.name == "edit":
            return self._editor(phone, page.arg)
        if page.name == "date":
            return self._date_picker(phone)
        if page.name == "detail":
            return self._detail(phone, int(page.arg))
        return self._schedule(phone)

    def _schedule(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        month = dt.date.fromisoformat(phone.state.date).strftime("%B")
        bar = toolbar(
            phone,
            PKG,
            month,
            rid="toolbar",
            actions=[
                icon_button(
                    "Jump to Today", partial(phone.set_scroll, phone.key(), 0, 0), rid=RID + "action_today"
                )
            ],
        )
        entries = sorted(
            enumerate(phone.state.calendar.entries),
            key=lambda p: (p[1].date, not p[1].all_day, p[1].hour, p[1].minute),
        )
        rows: list[Row] = []
        last = ""
        for i, e in entries:
            if e.date != last:
                last = e.date
                rows.append(Row(120, partial(_date_header, e.date)))
            rows.append(Row(170, partial(self._chip, phone, i, e)))
        box = (0, STATUS_H + TOOLBAR_H, w, h - NAV_H)
        lst = scroll_list(phone, phone.key(), box, rows, rid=RID + "timely_list", pad_bottom=300)
        add = fab(
            (w - 300, h - NAV_H - 300, w - 66, h - NAV_H - 66),
            "Create new event",
            lambda: phone.push(Page("create_menu")),
            RID + "floating_action_button",
        )
        return activity(phone, PKG, [bar, Node(FRAME, box, rid=RID + "main_pane", children=[lst]), add])

    def _chip(self, phone: Phone, i: int, e: CalendarEntry, b: tuple[int, int, int, int]) -> Node:
        when = (
            "All day" if e.all_day else f"{e.hour % 12 or 12}:{e.minute:02d} {'PM' if e.hour >= 12 else 'AM'}"
        )
        kind = "Task" if e.kind == "task" else "Event"
        return Node(
            LINEAR,
            (66, b[1] + 10, b[2] - 66, b[3] - 10),
            desc=f"{e.title}, {when}, {kind}",
            on_tap=lambda: phone.push(Page("detail", str(i))),
            role="card",
            children=[
                label((110, b[1] + 30, b[2] - 110, b[1] + 95), e.title, rid=RID + "title", fit=False),
                label(
                    (110, b[1] + 95, b[2] - 110, b[3] - 25),
                    f"{kind} · {when}",
                    rid=RID + "subtitle",
                    role="summary",
                    size=34,
                    fit=False,
                ),
            ],
        )

    def _create_menu(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        top = h - NAV_H - 700
        opts = []
        for i, kind in enumerate(("Birthday", "Task", "Event")):
            y = top + i * 200
            opts.append(
                Node(
                    BUTTON,
                    (w - 560, y, w - 66, y + 160),
                    text=kind,
                    rid=RID + f"speed_dial_{kind.lower()}",
                    on_tap=self._new(phone, kind.lower()),
                    role="chip",
                )
            )
        close = Node(
            IMAGE_BUTTON,
            (w - 300, h - NAV_H - 250, w - 66, h - NAV_H - 66),
            desc="Close",
            rid=RID + "floating_action_button",
            on_tap=phone.pop,
            role="fab",
        )
        root = Node(
            FRAME,
            (w - 600, top - 40, w - 22, h - NAV_H - 40),
            rid=RID + "speed_dial",
            role="menu",
            children=[Node(LINEAR, (w - 600, top - 40, w - 22, h - NAV_H - 40), children=[*opts, close])],
        )
        return Window(root, PKG, modal=True, on_outside=phone.pop)

    def _editor(self, phone: Phone, kind: str) -> Window:
        w, h = phone.width, phone.height
        top = STATUS_H
        date = phone.ui.get("cal_date", phone.state.date)
        all_day = phone.ui.get("cal_all_day", "0") == "1"
        kids = [
            Node(
                LINEAR,
                (0, top, w, top + TOOLBAR_H),
                rid=RID + "toolbar",
                children=[
                    icon_button(
                        "Close", phone.pop, rid=RID + "close_button", box=(0, top + 22, 154, top + 154)
                    ),
                    button(
                        (w - 300, top + 30, w - 44, top + 146),
                        "Save",
                        self._save(phone, kind),
                        rid=RID + "save",
                    ),
                ],
            ),
            edit_text(
                phone,
                (66, top + 200, w - 66, top + 360),
                TITLE,
                hint="Add title",
                rid=RID + "title",
                role="title_edit",
            ),
        ]
        y = top + 400
        if kind == "event":
            kids.append(
                Node(
                    LINEAR,
                    (0, y, w, y + 150),
                    rid=RID + "all_day_switch_row",
                    children=[
                        label((198, y + 40, 600, y + 110), "All-day"),
                        switch(
                            (w - 220, y + 38, w - 66, y + 112),
                            all_day,
                            rid=RID + "all_day_switch",
                            desc="All-day",
                            on_tap=self._flip_all_day(phone),
                        ),
                    ],
                )
            )
            y += 150
        kids.append(
            Node(
                TEXT,
                (198, y + 20, w - 66, y + 130),
                text=_day(date),
                rid=RID + "start_date",
                desc=f"Start date: {_long_day(dt.date.fromisoformat(date))}",
                on_tap=self._open_date(phone, date),
            )
        )
        y += 150
        if kind == "event" and not all_day:
            kids.append(label((198, y + 20, w - 66, y + 130), "10:00 AM – 11:00 AM", rid=RID + "start_time"))
            y += 150
        kids.append(
            edit_text(
                phone,
                (66, y + 40, w - 66, y + 200),
                DESC,
                hint="Add description" if kind == "event" else "Add details",
                rid=RID + "description",
            )
        )
        return activity(
            phone, PKG, [Node(FRAME, (0, top, w, h - NAV_H), rid=RID + "edit_screen", children=kids)]
        )

    def _date_picker(self, phone: Phone) -> Window:
        w = phone.width
        chosen = dt.date.fromisoformat(phone.ui["cal_pick"])
        year, month = (int(x) for x in phone.ui["cal_month"].split("-"))
        first_weekday, days = cal.monthrange(year, month)
        head = Node(
            LINEAR,
            (66, 0, w - 66, 150),
            children=[
                icon_button("Previous month", self._shift_month(phone, -1), box=(88, 10, 218, 140)),
                label(
                    (260, 40, w - 260, 110),
                    dt.date(year, month, 1).strftime("%B %Y"),
                    rid=RID + "month_title",
                    fit=False,
                    role="centered",
                ),
                icon_button("Next month", self._shift_month(phone, 1), box=(w - 218, 10, w - 88, 140)),
            ],
        )
        cell = (w - 176) // 7
        cells = []
        offset = (first_weekday + 1) % 7  # weeks start on Sunday
        for d in range(1, days + 1):
            r, c = divmod(offset + d - 1, 7)
            day = dt.date(year, month, d)
            box = (88 + c * cell, 170 + r * 130, 88 + (c + 1) * cell, 290 + r * 130)
            cells.append(
                Node(
                    TEXT,
                    box,
                    text=str(d),
                    desc=_long_day(day),
                    selected=day == chosen,
                    on_tap=self._pick_day(phone, day),
                    role="dial",
                )
            )
        grid = Node("android.widget.GridView", (66, 150, w - 66, 950), rid=RID + "month_grid", children=cells)
        body = [Node(FRAME, (66, 0, w - 66, 950), children=[head, grid])]

        def ok() -> None:
            phone.ui["cal_date"] = phone.ui["cal_pick"]
            phone.pop()

        return dialog(phone, PKG, _day(chosen.isoformat()), body, buttons=[("Cancel", phone.pop), ("OK", ok)])

    def _detail(self, phone: Phone, i: int) -> Window:
        w = phone.width
        entries = phone.state.calendar.entries
        if i >= len(entries):
            return self._schedule(phone)
        e = entries[i]
        top = STATUS_H
        bar = toolbar(
            phone,
            PKG,
            "",
            up=phone.pop,
            rid="toolbar",
            actions=[icon_button("Delete", self._delete(phone, i), rid=RID + "delete")],
        )
        kids = [
            label(
                (66, top + 240, w - 66, top + 340),
                e.title,
                rid=RID + "title",
                role="title",
                size=60,
                fit=False,
            ),
            label(
                (66, top + 360, w - 66, top + 430),
                _long_day(dt.date.fromisoformat(e.date)),
                rid=RID + "when",
                fit=False,
            ),
        ]
        if e.description:
            kids.append(
                label((66, top + 480, w - 66, top + 560), e.description, rid=RID + "description", fit=False)
            )
        return activity(phone, PKG, [bar, *kids])

    # -- actions -------------------------------------------------------------------

    def _new(self, phone: Phone, kind: str) -> Handler:
        def run() -> None:
            phone.pop()
            phone.ui["cal_date"] = phone.state.date
            phone.ui["cal_all_day"] = "1" if kind in ("task", "birthday") else "0"
            phone.push(Page("edit", "task" if kind == "birthday" else kind))
            phone.set_field(TITLE, "", focus=True)
            phone.set_field(DESC, "")

        return run

    def _flip_all_day(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.ui["cal_all_day"] = "0" if phone.ui.get("cal_all_day") == "1" else "1"

        return run

    def _open_date(self, phone: Phone, date: str) -> Handler:
        def run() -> None:
            phone.ui["cal_pick"] = date
            phone.ui["cal_month"] = date[:7]
            phone.push(Page("date"))

        return run

    def _shift_month(self, phone: Phone, delta: int) -> Handler:
        def run() -> None:
            year, month = (int(x) for x in phone.ui["cal_month"].split("-"))
            month += delta
            year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
            phone.ui["cal_month"] = f"{year:04d}-{month:02d}"

        return run

    def _pick_day(self, phone: Phone, day: dt.date) -> Handler:
        def run() -> None:
            phone.ui["cal_pick"] = day.isoformat()

        return run

    def _save(self, phone: Phone, kind: str) -> Handler:
        def run() -> None:
            title = phone.field_text(TITLE).strip()
            all_day = kind == "task" or phone.ui.get("cal_all_day") == "1"
            phone.state.calendar.entries.append(
                CalendarEntry(
                    kind,
                    title or "(No title)",
                    phone.field_text(DESC).strip(),
                    phone.ui.get("cal_date", phone.state.date),
                    all_day=all_day,
                    hour=10,
                    minute=0,
                )
            )
            phone.pop()

        return run

    def _delete(self, phone: Phone, i: int) -> Handler:
        def run() -> None:
            del phone.state.calendar.entries[i]
            phone.pop()

        return run
