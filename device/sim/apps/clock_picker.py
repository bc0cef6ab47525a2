"""The Clock's Material time picker dialog (shared by alarms and Bedtime)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from latent_agent.device.sim.dialogs import dialog
from latent_agent.device.sim.ui import Handler, Node, Window
from latent_agent.device.sim.views import BUTTON, FRAME, LINEAR, TEXT

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.google.android.deskclock"
RID = f"{PKG}:id/"
MAT = "com.google.android.material:id/"


def start_picker(phone: Phone, hour24: int, minute: int) -> None:
    """Load the picker's transient state before pushing its page."""
    phone.ui["picker_hour"] = str(hour24 % 12 or 12)
    phone.ui["picker_minute"] = str(minute)
    phone.ui["picker_pm"] = "PM" if hour24 >= 12 else "AM"
    phone.ui["picker_mode"] = "hour"


def picked(phone: Phone) -> tuple[int, int]:
    """The picker's time as (hour 0-23, minute)."""
    hour = int(phone.ui["picker_hour"]) % 12
    if phone.ui["picker_pm"] == "PM":
        hour += 12
    return hour, int(phone.ui["picker_minute"])


def time_text(hour24: int, minute: int) -> str:
    """``3:30 PM`` as the Clock writes it (with a hair space before AM/PM)."""
    return f"{hour24 % 12 or 12}:{minute:02d}\u200a{'PM' if hour24 >= 12 else 'AM'}"


def _set(phone: Phone, key: str, value: str, then_mode: str = "") -> Handler:
    def run() -> None:
        phone.ui[key] = value
        if then_mode:
            phone.ui["picker_mode"] = then_mode

    return run


def picker_dialog(phone: Phone, title: str, on_ok: Callable[[int, int], None]) -> Window:
    """The dial picker: hour and minute chips, AM/PM toggles, a clock face, Cancel/OK."""
    w = phone.width
    mode = phone.ui.get("picker_mode", "hour")
    hour, minute, ampm = phone.ui["picker_hour"], int(phone.ui["picker_minute"]), phone.ui["picker_pm"]
    chip = "com.google.android.material.chip.Chip"
    # Laid out for a 1080 px wide screen and scaled to the dialog's width, so that a narrower phone keeps
    # the chips and the clock face inside the dialog (fixed coordinates pushed them past its edge).
    scale = (w - 264) / 816

    def x(v: int) -> int:
        return 132 + round((v - 132) * scale)

    header = Node(
        LINEAR,
        (66, 0, w - 66, 240),
        rid=MAT + "material_clock_display",
        children=[
            Node(
                chip,
                (x(132), 20, x(372), 220),
                text=hour,
                desc="Select hour",
                rid=MAT + "material_hour_tv",
                selected=mode == "hour",
                on_tap=_set(phone, "picker_mode", "hour"),
                role="chip",
            ),
            Node(TEXT, (x(380), 20, x(420), 220), text=":", role="huge"),
            Node(
                chip,
                (x(428), 20, x(668), 220),
                text=f"{minute:02d}",
                desc="Select minutes",
                rid=MAT + "material_minute_tv",
                selected=mode == "minute",
                on_tap=_set(phone, "picker_mode", "minute"),
                role="chip",
            ),
            Node(
                LINEAR,
                (x(720), 20, w - 132, 220),
                rid=MAT + "material_clock_period_toggle",
                children=[
                    Node(
                        BUTTON,
                        (x(720), 20, w - 132, 118),
                        text="AM",
                        rid=MAT + "material_clock_period_am_button",
                        checkable=True,
                        checked=ampm == "AM",
                        on_tap=_set(phone, "picker_pm", "AM"),
                        role="chip",
                    ),
                    Node(
                        BUTTON,
                        (x(720), 122, w - 132, 220),
                        text="PM",
                        rid=MAT + "material_clock_period_pm_button",
                        checkable=True,
                        checked=ampm == "PM",
                        on_tap=_set(phone, "picker_pm", "PM"),
                        role="chip",
                    ),
                ],
            ),
        ],
    )
    cx, cy, radius, reach = w // 2, 240 + round(420 * scale), round(330 * scale), round(420 * scale)
    half = max(40, round(60 * scale))
    numbers = []
    for i in range(12):
        angle = math.radians(i * 30 - 90)
        px, py = cx + int(radius * math.cos(angle)), cy + int(radius * math.sin(angle))
        box = (px - half, py - half, px + half, py + half)
        if mode == "hour":
            n = 12 if i == 0 else i
            numbers.append(
                Node(
                    TEXT,
                    box,
                    text=str(n),
                    desc=f"{n} o'clock",
                    selected=str(n) == hour,
                    on_tap=_set(phone, "picker_hour", str(n), "minute"),
                    role="dial",
                )
            )
        else:
            m = i * 5
            numbers.append(
                Node(
                    TEXT,
                    box,
                    text=f"{m:02d}",
                    desc=f"{m} minutes",
                    selected=m == minute,
                    on_tap=_set(phone, "picker_minute", str(m)),
                    role="dial",
                )
            )
    face = Node(
        "com.google.android.material.timepicker.ClockFaceView",
        (cx - reach, cy - reach, cx + reach, cy + reach),
        rid=MAT + "material_clock_face",
        children=numbers,
        role="dial_face",
    )
    body = [Node(FRAME, (66, 0, w - 66, 240 + round(870 * scale)), rid=MAT + "material_timepicker_view",
                 children=[header, face])]

    def ok() -> None:
        h, m = picked(phone)
        phone.pop()
        on_ok(h, m)

    return dialog(phone, PKG, title, body, buttons=[("Cancel", phone.pop), ("OK", ok)])
