"""The Clock's Clock, Timer, Stopwatch and Bedtime tabs.

A mixin of :class:`~latent_agent.device.sim.apps.clock.Clock`.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.clock_picker import start_picker, time_text
from latent_agent.device.sim.state import Timer
from latent_agent.device.sim.ui import Handler, Node, Page
from latent_agent.device.sim.views import (
    BUTTON,
    FRAME,
    GROUP,
    IMAGE_BUTTON,
    TEXT,
    button,
    fab,
    label,
    switch,
)

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.google.android.deskclock"
RID = f"{PKG}:id/"


class ClockTabs:
    """Builders and actions of the tabs other than Alarm."""

    def _clock(self, phone: Phone, box: tuple[int, int, int, int]) -> list[Node]:
        w = phone.width
        top = box[1]
        hour, minute = divmod(phone.state.minutes, 60)
        date = dt.date.fromisoformat(phone.state.date)
        t = time_text(hour, minute)
        if phone.state.clock.style == "analog":
            face = Node(
                "com.android.deskclock.AnalogClock",
                (w // 2 - 330, top + 60, w // 2 + 330, top + 720),
                desc=t,
                rid=RID + "analog_clock",
                role="dial_face",
            )
        else:
            face = Node(
                "android.widget.TextClock",
                (w // 2 - 400, top + 200, w // 2 + 400, top + 500),
                text=t,
                rid=RID + "digital_clock",
                role="big",
            )
        date_text = label(
            (w // 2 - 300, top + 760, w // 2 + 300, top + 830),
            date.strftime("%a, %b ") + str(date.day),
            rid=RID + "date",
            desc=date.strftime("%A, %B ") + str(date.day),
            fit=False,
            role="centered",
        )
        empty = label(
            (88, top + 900, w - 88, top + 980),
            "No cities selected",
            rid=RID + "cities_empty_view",
            fit=False,
            role="centered",
        )
        return [Node(FRAME, box, rid=RID + "main", children=[face, date_text, empty])]

    def _timer(self, phone: Phone, box: tuple[int, int, int, int]) -> list[Node]:
        w = phone.width
        top, bottom = box[1], box[3]
        clock = phone.state.clock
        if clock.timers and phone.ui.get("timer_setup") != "1":
            timer = clock.timers[0]
            m, s = divmod(timer.seconds, 60)
            hrs, m = divmod(m, 60)
            shown = f"{hrs}:{m:02d}:{s:02d}" if hrs else f"{m}:{s:02d}"
            kids = [
                label(
                    (88, top + 300, w - 88, top + 500),
                    shown,
                    rid=RID + "timer_time_text",
                    role="big",
                    fit=False,
                    desc=shown,
                ),
                button(
                    (88, top + 600, 400, top + 720),
                    "Delete",
                    self._timer_delete(phone),
                    rid=RID + "reset_add",
                    role="text_button",
                ),
                button(
                    (w - 400, top + 600, w - 88, top + 720),
                    "+1:00",
                    self._timer_add_minute(phone),
                    rid=RID + "timer_add_minute",
                    role="text_button",
                ),
                button(
                    (88, bottom - 180, 500, bottom - 60),
                    "Add timer",
                    self._timer_setup(phone),
                    rid=RID + "timer_add",
                    role="chip",
                ),
                fab(
                    (w // 2 - 132, bottom - 280, w // 2 + 132, bottom - 16),
                    "Pause" if timer.running else "Resume",
                    self._timer_toggle(phone),
                    RID + "fab",
                ),
            ]
            return [Node(FRAME, box, rid=RID + "timer_view", children=kids)]
        digits = phone.ui.get("timer_digits", "").rjust(6, "0")
        shown = f"{digits[0:2]}h {digits[2:4]}m {digits[4:6]}s"
        keys = []
        kw = (w - 176) // 3
        labels = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "00", "0"]
        for i, d in enumerate(labels):
            r, c = divmod(i, 3)
            keys.append(
                Node(
                    BUTTON,
                    (88 + c * kw, top + 330 + r * 200, 88 + (c + 1) * kw, top + 510 + r * 200),
                    text=d,
                    rid=RID + f"timer_setup_digit_{d}",
                    on_tap=self._timer_digit(phone, d),
                    role="dial",
                )
            )
        keys.append(
            Node(
                IMAGE_BUTTON,
                (88 + 2 * kw, top + 930, 88 + 3 * kw, top + 1110),
                desc="Delete",
                rid=RID + "timer_setup_delete",
                on_tap=self._timer_back(phone),
                role="icon",
            )
        )
        kids = [
            label(
                (88, top + 80, w - 88, top + 260), shown, rid=RID + "timer_setup_time", role="huge", fit=False
            ),
            Node(GROUP, (88, top + 330, w - 88, top + 1110), rid=RID + "timer_setup_digits", children=keys),
        ]
        if digits.strip("0"):
            kids.append(
                fab(
                    (w // 2 - 132, bottom - 280, w // 2 + 132, bottom - 16),
                    "Start",
                    self._timer_start(phone),
                    RID + "fab",
                )
            )
        return [Node(FRAME, box, rid=RID + "timer_setup", children=kids)]

    def _stopwatch(self, phone: Phone, box: tuple[int, int, int, int]) -> list[Node]:
        w = phone.width
        top, bottom = box[1], box[3]
        clock = phone.state.clock
        m, s = divmod(clock.stopwatch_elapsed, 60)
        shown = f"{m}:{s:02d}"
        kids = [
            label(
                (88, top + 200, w - 88, top + 400),
                shown,
                rid=RID + "stopwatch_time_text",
                role="big",
                fit=False,
                desc=shown,
            )
        ]
        for i, lap in enumerate(clock.stopwatch_laps[-5:]):
            lm, ls = divmod(lap, 60)
            kids.append(
                label(
                    (88, top + 480 + i * 90, w - 88, top + 560 + i * 90),
                    f"# {i + 1}    {lm}:{ls:02d}",
                    rid=RID + "lap_time",
                    fit=False,
                )
            )
        if clock.stopwatch_running:
            kids.append(
                button(
                    (88, bottom - 220, 400, bottom - 100),
                    "Lap",
                    self._lap(phone),
                    rid=RID + "stopwatch_lap",
                    role="chip",
                )
            )
        elif clock.stopwatch_elapsed:
            kids.append(
                button(
                    (88, bottom - 220, 400, bottom - 100),
                    "Reset",
                    self._sw_reset(phone),
                    rid=RID + "stopwatch_reset",
                    role="chip",
                )
            )
        kids.append(
            fab(
                (w // 2 - 132, bottom - 280, w // 2 + 132, bottom - 16),
                "Pause" if clock.stopwatch_running else "Start",
                self._sw_toggle(phone),
                RID + "fab",
            )
        )
        return [Node(FRAME, box, rid=RID + "stopwatch_view", children=kids)]

    def _bedtime(self, phone: Phone, box: tuple[int, int, int, int]) -> list[Node]:
        w = phone.width
        top = box[1]
        clock = phone.state.clock
        bed = time_text(clock.bedtime_hour, clock.bedtime_minute)
        wake = time_text(clock.wake_hour, clock.wake_minute)
        cards = []
        for i, (title, value, target, flag) in enumerate(
            (("Bedtime", bed, "bedtime", True), ("Wake-up", wake, "wake", False))
        ):
            y = top + 60 + i * 440
            kids = [
                label((110, y + 30, 600, y + 110), title, rid=RID + "bedtime_title", role="title"),
                Node(
                    TEXT,
                    (110, y + 130, 600, y + 300),
                    text=value,
                    rid=RID + "bedtime_time",
                    on_tap=self._pick(phone, target),
                    role="big",
                ),
            ]
            if flag:
                kids.append(
                    switch(
                        (w - 260, y + 180, w - 106, y + 260),
                        clock.bedtime_enabled,
                        rid=RID + "bedtime_onoff",
                        desc="Bedtime schedule",
                        on_tap=self._bed_flip(phone),
                    )
                )
            cards.append(
                Node(
                    "androidx.cardview.widget.CardView", (44, y, w - 44, y + 400), role="card", children=kids
                )
            )
        return [Node(FRAME, box, rid=RID + "bedtime_view", children=cards)]

    # -- settings and sounds ---------------------------------------------------

    def _pick(self, phone: Phone, target: str) -> Handler:
        clock = phone.state.clock

        def run() -> None:
            if target == "bedtime":
                start_picker(phone, clock.bedtime_hour, clock.bedtime_minute)
            else:
                start_picker(phone, clock.wake_hour, clock.wake_minute)
            phone.push(Page("picker", target))

        return run

    def _timer_digit(self, phone: Phone, d: str) -> Handler:
        def run() -> None:
            digits = (phone.ui.get("timer_digits", "") + d).lstrip("0")
            phone.ui["timer_digits"] = digits[:6]

        return run

    def _timer_back(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.ui["timer_digits"] = phone.ui.get("timer_digits", "")[:-1]

        return run

    def _timer_start(self, phone: Phone) -> Handler:
        def run() -> None:
            d = phone.ui.get("timer_digits", "").rjust(6, "0")
            seconds = int(d[0:2]) * 3600 + int(d[2:4]) * 60 + int(d[4:6])
            phone.state.clock.timers.insert(0, Timer(seconds, seconds))
            phone.ui["timer_digits"] = ""
            phone.ui["timer_setup"] = ""

        return run

    def _timer_setup(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.ui["timer_setup"] = "1"

        return run

    def _timer_delete(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.clock.timers.pop(0)

        return run

    def _timer_add_minute(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.clock.timers[0].seconds += 60

        return run

    def _timer_toggle(self, phone: Phone) -> Handler:
        def run() -> None:
            t = phone.state.clock.timers[0]
            t.running = not t.running

        return run

    def _sw_toggle(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.clock.stopwatch_running = not phone.state.clock.stopwatch_running

        return run

    def _lap(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.clock.stopwatch_laps.append(phone.state.clock.stopwatch_elapsed)

        return run

    def _sw_reset(self, phone: Phone) -> Handler:
        def run() -> None:
            clock = phone.state.clock
            clock.stopwatch_elapsed, clock.stopwatch_laps = 0, []

        return run

    def _bed_flip(self, phone: Phone) -> Handler:
        def run() -> None:
            phone.state.clock.bedtime_enabled = not phone.state.clock.bedtime_enabled

        return run
