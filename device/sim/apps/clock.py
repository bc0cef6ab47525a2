"""Clock (``com.google.android.deskclock``): Alarm, Clock, Timer, Stopwatch and Bedtime tabs,
alarm sounds and the Clock settings (style, snooze length)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.apps.clock_picker import picker_dialog, start_picker, time_text
from latent_agent.device.sim.apps.clock_tabs import ClockTabs
from latent_agent.device.sim.dialogs import choice_dialog, popup_menu
from latent_agent.device.sim.state import Alarm
from latent_agent.device.sim.ui import Handler, Node, Page, Rect, Window
from latent_agent.device.sim.views import (
    FRAME,
    GROUP,
    IMAGE_BUTTON,
    LINEAR,
    NAV_H,
    STATUS_H,
    TEXT,
    TOOLBAR_H,
    Row,
    activity,
    bottom_nav,
    button,
    fab,
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

PKG = "com.google.android.deskclock"
RID = f"{PKG}:id/"
TABS = (
    ("alarm", "Alarm"),
    ("clock", "Clock"),
    ("timer", "Timer"),
    ("stopwatch", "Stopwatch"),
    ("bedtime", "Bedtime"),
)
DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
SOUNDS = (
    "Silent",
    "Default (Cesium)",
    "Argon",
    "Awaken",
    "Bright Morning",
    "Beep-Beep",
    "Buddy",
    "Carbon",
    "Cesium",
    "Copernicium",
    "Early Twilight",
    "Fermium",
    "Flow",
    "Gallium",
    "Hassium",
    "Helium",
    "Krypton",
    "Neon",
    "Neptunium",
    "Nobelium",
    "Osmium",
    "Oxygen",
    "Platinum",
    "Rise",
    "Scandium",
    "Sunshower",
    "Wake Up Call",
)
SNOOZE = (1, 5, 10, 15, 20, 25, 30)
SILENCE = (1, 5, 10, 15, 20, 25)


def _sound_row(sound: str, checked: bool, choose: Handler, box: Rect) -> Node:
    return radio_row(box, sound, checked, choose, rid=RID + "ringtone_name")


def _minutes(n: int) -> str:
    return f"{n} minute" if n == 1 else f"{n} minutes"


class Clock(ClockTabs, SimApp):
    package = PKG
    label = "Clock"

    def home(self) -> Page:
        return Page("tab", "Alarm")

    def build(self, phone: Phone, page: Page) -> Window:
        name = page.name
        if name == "menu":
            return popup_menu(
                phone,
                PKG,
                [
                    ("Screen saver", phone.pop),
                    ("Settings", self._open_settings(phone)),
                    ("Send feedback", phone.pop),
                    ("Help", phone.pop),
                ],
            )
        if name == "settings":
            return self._settings(phone)
        if name == "sounds":
            return self._sounds(phone, int(page.arg))
        if name == "picker":
            return picker_dialog(phone, "Select time", lambda h, m: self._picked(phone, page.arg, h, m))
        if name == "choice":
            return self._choice(phone, page.arg)
        return self._tab(phone, page.arg)

    def _open_settings(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.pop()
            phone.push(Page("settings"))

        return run

    # -- tabs ------------------------------------------------------------------

    def _tab(self, phone: Phone, tab: str) -> Window:
        w, h = phone.width, phone.height
        top = STATUS_H
        bar = Node(
            LINEAR,
            (0, top, w, top + TOOLBAR_H),
            rid=RID + "app_bar_layout",
            children=[
                toolbar(
                    phone,
                    PKG,
                    tab,
                    actions=[
                        icon_button(
                            "More options", lambda: phone.push(Page("menu")), cls="android.widget.ImageView"
                        )
                    ],
                    rid="toolbar",
                )
            ],
        )
        body_box = (0, top + TOOLBAR_H, w, h - NAV_H - 220)
        body = {
            "Alarm": self._alarms,
            "Clock": self._clock,
            "Timer": self._timer,
            "Stopwatch": self._stopwatch,
            "Bedtime": self._bedtime,
        }[tab](phone, body_box)
        # The real Clock nests each tab's fragment in a ViewPager page inside a pager frame.
        page = Node(GROUP, body_box, children=body)
        holder = Node(FRAME, body_box, children=[page])
        pager = Node(GROUP, body_box, rid=RID + "desk_clock_pager", children=[holder])
        frame = Node(GROUP, body_box, rid=RID + "desk_clock_pager_frame", children=[pager])
        nav = bottom_nav(phone, PKG, TABS, tab, lambda t: phone.replace(Page("tab", t)))
        content = Node(GROUP, (0, top, w, h - NAV_H), rid=RID + "content", children=[bar, frame, nav])
        window = activity(phone, PKG, [Node(GROUP, (0, top, w, h - NAV_H), children=[content])])
        outer = window.root.children[0]
        bar_root = Node(LINEAR, (0, 0, w, h), rid=RID + "action_bar_root", children=outer.children)
        outer.children = [Node(FRAME, (0, 0, w, h), children=[bar_root])]
        return window

    def _alarms(self, phone: Phone, box: tuple[int, int, int, int]) -> list[Node]:
        alarms = sorted(phone.state.clock.alarms, key=lambda a: (a.hour, a.minute, a.id))
        expanded = phone.ui.get("expanded", "")
        rows = [Row(860 if str(a.id) == expanded else 360, partial(self._card, phone, a)) for a in alarms]
        lst = scroll_list(phone, phone.key(), box, rows, rid=RID + "alarm_recycler_view", pad_bottom=300)
        w, bottom = phone.width, box[3]
        add = fab(
            (w // 2 - 132, bottom - 280, w // 2 + 132, bottom - 16),
            "Add alarm",
            self._add(phone),
            RID + "fab",
        )
        return [Node(FRAME, box, rid=RID + "main", children=[lst]), add]

    def _card(self, phone: Phone, alarm: Alarm, box: tuple[int, int, int, int]) -> Node:
        left, top, right, bottom = box
        expanded = phone.ui.get("expanded", "") == str(alarm.id)
        t = time_text(alarm.hour, alarm.minute)
        days = ", ".join(alarm.days) if alarm.days else ("Tomorrow" if alarm.enabled else "Not scheduled")
        kids = [
            Node(
                TEXT,
                (88, top + 44, 500, top + 200),
                text=t,
                desc=t,
                rid=RID + "digital_clock",
                on_tap=self._edit_time(phone, alarm),
                role="big",
            ),
            Node(
                IMAGE_BUTTON,
                (right - 209, top + 22, right - 55, top + 176),
                desc="Collapse alarm" if expanded else "Expand alarm",
                rid=RID + "arrow",
                on_tap=self._expand(phone, alarm),
                role="icon",
            ),
            label((88, top + 210, 700, top + 300), days, rid=RID + "days_of_week", size=36, role="summary"),
            switch(
                (right - 215, top + 210, right - 61, top + 300),
                alarm.enabled,
                rid=RID + "onoff",
                on_tap=self._flip(phone, alarm),
            ),
        ]
        if expanded:
            y = top + 330
            kids.append(
                Node(
                    TEXT,
                    (88, y, right - 88, y + 100),
                    text=alarm.label or "Add label",
                    rid=RID + "edit_label",
                    role="summary",
                )
            )
            chips = []
            step = (right - left - 176) // 7
            for i, (d, full) in enumerate(zip(DAYS, DAY_NAMES, strict=True)):
                on = d in alarm.days
                chips.append(
                    Node(
                        "android.widget.ToggleButton",
                        (88 + i * step, y + 120, 88 + (i + 1) * step - 10, y + 230),
                        text=d[0],
                        desc=full,
                        checkable=True,
                        checked=on,
                        on_tap=self._day(phone, alarm, d),
                        role="chip",
                        selected=on,
                    )
                )
            kids.append(
                Node(LINEAR, (88, y + 120, right - 88, y + 230), rid=RID + "repeat_days", children=chips)
            )
            kids.append(
                Node(
                    TEXT,
                    (88, y + 250, right - 88, y + 350),
                    text=alarm.sound,
                    desc="Alarm sound",
                    rid=RID + "choose_ringtone",
                    on_tap=self._open_sounds(phone, alarm),
                )
            )
            vib = Node(
                "android.widget.CheckBox",
                (88, y + 360, right - 88, y + 450),
                text="Vibrate",
                rid=RID + "vibrate_onoff",
                checkable=True,
                checked=alarm.vibrate,
                on_tap=self._vibrate(phone, alarm),
            )
            kids.append(vib)
            kids.append(
                button(
                    (88, y + 460, 400, y + 560),
                    "Delete",
                    self._delete(phone, alarm),
                    rid=RID + "delete",
                    role="text_button",
                )
            )
        card = Node(
            "androidx.cardview.widget.CardView",
            (44, top + 11, right - 44, bottom - 11),
            desc=f" {alarm.label or 'Alarm'}",
            on_tap=self._expand(phone, alarm),
            role="card",
            children=[
                Node(
                    GROUP,
                    (44, top + 11, right - 44, bottom - 11),
                    rid=RID + "alarm_card_layout",
                    children=kids,
                )
            ],
        )
        return card

    def _settings(self, phone: Phone) -> Window:
        w, h = phone.width, phone.height
        clock = phone.state.clock
        bar = toolbar(phone, PKG, "Settings", up=phone.pop, rid="toolbar")
        entries: list[Row] = [
            Row(130, lambda b: header_row(b, "Clock")),
            Row(
                200,
                lambda b: pref_row(
                    b,
                    "Style",
                    clock.style.capitalize(),
                    self._choose(phone, "Style"),
                    icon=False,
                    pkg_rid=PKG,
                ),
            ),
            Row(
                200,
                lambda b: pref_row(
                    b,
                    "Automatic home clock",
                    "While traveling, add a clock for home",
                    None,
                    icon=False,
                    pkg_rid=PKG,
                ),
            ),
            Row(
                200,
                lambda b: pref_row(
                    b, "Home time zone", "(GMT-7:00) Pacific Time", None, icon=False, pkg_rid=PKG
                ),
            ),
            Row(130, lambda b: header_row(b, "Alarms")),
            Row(
                200,
                lambda b: pref_row(
                    b,
                    "Silence after",
                    _minutes(clock.silence_after_minutes),
                    self._choose(phone, "Silence after"),
                    icon=False,
                    pkg_rid=PKG,
                ),
            ),
            Row(
                200,
                lambda b: pref_row(
                    b,
                    "Snooze length",
                    _minutes(clock.snooze_minutes),
                    self._choose(phone, "Snooze length"),
                    icon=False,
                    pkg_rid=PKG,
                ),
            ),
            Row(200, lambda b: pref_row(b, "Alarm volume", "70%", None, icon=False, pkg_rid=PKG)),
            Row(
                200,
                lambda b: pref_row(b, "Gradually increase volume", "Never", None, icon=False, pkg_rid=PKG),
            ),
            Row(200, lambda b: pref_row(b, "Start week on", "Sunday", None, icon=False, pkg_rid=PKG)),
            Row(130, lambda b: header_row(b, "Timers")),
            Row(200, lambda b: pref_row(b, "Timer sound", "Timer Expired", None, icon=False, pkg_rid=PKG)),
        ]
        lst = scroll_list(
            phone, phone.key(), (0, STATUS_H + TOOLBAR_H, w, h - NAV_H), entries, rid="android:id/list"
        )
        return activity(phone, PKG, [bar, lst])

    def _choose(self, phone: Phone, title: str) -> Handler:
        return lambda: phone.push(Page("choice", title))

    def _choice(self, phone: Phone, title: str) -> Window:
        clock = phone.state.clock
        if title == "Style":

            def style(v: str) -> None:
                clock.style = v.lower()
                phone.pop()

            return choice_dialog(phone, PKG, "Style", ["Analog", "Digital"], clock.style.capitalize(), style)
        values = SNOOZE if title == "Snooze length" else SILENCE
        current = clock.snooze_minutes if title == "Snooze length" else clock.silence_after_minutes

        def pick(v: str) -> None:
            n = int(v.split()[0])
            if title == "Snooze length":
                clock.snooze_minutes = n
            else:
                clock.silence_after_minutes = n
            phone.pop()

        return choice_dialog(phone, PKG, title, [_minutes(n) for n in values], _minutes(current), pick)

    def _sounds(self, phone: Phone, alarm_id: int) -> Window:
        w, h = phone.width, phone.height
        alarm = next((a for a in phone.state.clock.alarms if a.id == alarm_id), None)
        current = alarm.sound if alarm else ""
        bar = toolbar(phone, PKG, "Alarm sound", up=phone.pop, rid="toolbar")

        def choose(sound: str) -> Handler:
            def run() -> None:
                if alarm is not None:
                    alarm.sound = sound

            return run

        rows = [Row(150, partial(_sound_row, s, s == current, choose(s))) for s in SOUNDS]
        lst = scroll_list(
            phone, phone.key(), (0, STATUS_H + TOOLBAR_H, w, h - NAV_H), rows, rid=RID + "ringtone_content"
        )
        return activity(phone, PKG, [bar, lst])

    # -- actions -------------------------------------------------------------------

    def _add(self, phone: Phone) -> Handler:
        def run() -> None:
            start_picker(phone, 7, 0)
            phone.push(Page("picker", "new"))

        return run

    def _edit_time(self, phone: Phone, alarm: Alarm) -> Handler:
        def run() -> None:
            start_picker(phone, alarm.hour, alarm.minute)
            phone.push(Page("picker", f"alarm:{alarm.id}"))

        return run

    def _picked(self, phone: Phone, target: str, hour: int, minute: int) -> None:
        clock = phone.state.clock
        if target == "new":
            alarm = Alarm(id=clock.next_alarm_id, hour=hour, minute=minute)
            clock.next_alarm_id += 1
            clock.alarms.append(alarm)
            phone.ui["expanded"] = str(alarm.id)
        elif target.startswith("alarm:"):
            for a in clock.alarms:
                if str(a.id) == target[6:]:
                    a.hour, a.minute, a.enabled = hour, minute, True
        elif target == "bedtime":
            clock.bedtime_hour, clock.bedtime_minute = hour, minute
            clock.bedtime_enabled = True
        else:
            clock.wake_hour, clock.wake_minute = hour, minute

    def _expand(self, phone: Phone, alarm: Alarm) -> Handler:
        def run() -> None:
            phone.ui["expanded"] = "" if phone.ui.get("expanded") == str(alarm.id) else str(alarm.id)

        return run

    def _flip(self, phone: Phone, alarm: Alarm) -> Handler:
        def run() -> None:
            alarm.enabled = not alarm.enabled

        return run

    def _day(self, phone: Phone, alarm: Alarm, day: str) -> Handler:
        def run() -> None:
            if day in alarm.days:
                alarm.days.remove(day)
            else:
                alarm.days.append(day)
                alarm.days.sort(key=DAYS.index)

        return run

    def _vibrate(self, phone: Phone, alarm: Alarm) -> Handler:
        def run() -> None:
            alarm.vibrate = not alarm.vibrate

        return run

    def _open_sounds(self, phone: Phone, alarm: Alarm) -> Handler:
        return lambda: phone.push(Page("sounds", str(alarm.id)))

    def _delete(self, phone: Phone, alarm: Alarm) -> Handler:
        def run() -> None:
            phone.state.clock.alarms = [a for a in phone.state.clock.alarms if a.id != alarm.id]
            phone.ui["expanded"] = ""

        return run
