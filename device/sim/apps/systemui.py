"""The quick-settings shade (``com.android.systemui``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.state import PhoneState
from latent_agent.device.sim.ui import Node, Page, Window
from latent_agent.device.sim.views import FRAME, GROUP, IMAGE, IMAGE_BUTTON, LINEAR, STATUS_H, label

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PKG = "com.android.systemui"
RID = f"{PKG}:id/"


def _tiles() -> list[tuple[str, Callable[[PhoneState], bool], Callable[[PhoneState, bool], None]]]:
    def net(s: PhoneState) -> bool:
        return s.settings.network.wifi

    def set_net(s: PhoneState, v: bool) -> None:
        s.settings.network.wifi = v

    def bt(s: PhoneState) -> bool:
        return s.settings.connected.bluetooth

    def set_bt(s: PhoneState, v: bool) -> None:
        s.settings.connected.bluetooth = v

    def dnd(s: PhoneState) -> bool:
        return s.settings.do_not_disturb

    def set_dnd(s: PhoneState, v: bool) -> None:
        s.settings.do_not_disturb = v

    def torch(s: PhoneState) -> bool:
        return s.settings.flashlight

    def set_torch(s: PhoneState, v: bool) -> None:
        s.settings.flashlight = v

    def rotate(s: PhoneState) -> bool:
        return s.settings.display.auto_rotate

    def set_rotate(s: PhoneState, v: bool) -> None:
        s.settings.display.auto_rotate = v

    def saver(s: PhoneState) -> bool:
        return s.settings.battery_saver

    def set_saver(s: PhoneState, v: bool) -> None:
        s.settings.battery_saver = v

    def dark(s: PhoneState) -> bool:
        return s.settings.display.dark_theme

    def set_dark(s: PhoneState, v: bool) -> None:
        s.settings.display.dark_theme = v

    def plane(s: PhoneState) -> bool:
        return s.settings.network.airplane_mode

    def set_plane(s: PhoneState, v: bool) -> None:
        s.settings.network.airplane_mode = v

    return [
        ("Internet", net, set_net),
        ("Bluetooth", bt, set_bt),
        ("Do Not Disturb", dnd, set_dnd),
        ("Flashlight", torch, set_torch),
        ("Auto-rotate", rotate, set_rotate),
        ("Battery Saver", saver, set_saver),
        ("Dark theme", dark, set_dark),
        ("Airplane mode", plane, set_plane),
    ]


class SystemUI(SimApp):
    package = PKG
    label = "System UI"
    launcher = False

    def home(self) -> Page:
        return Page("quick_settings")

    def build(self, phone: Phone, page: Page) -> Window:
        w = phone.width
        state = phone.state
        date = dt.date.fromisoformat(state.date)
        top = STATUS_H
        header = Node(
            LINEAR,
            (44, top, w - 44, top + 120),
            rid=RID + "header",
            children=[
                label(
                    (44, top + 20, 600, top + 100),
                    date.strftime("%a, %b ") + str(date.day),
                    rid=RID + "date",
                    size=44,
                )
            ],
        )
        slider = Node(
            FRAME,
            (44, top + 140, w - 44, top + 260),
            desc="Display brightness",
            rid=RID + "brightness_slider",
            children=[
                Node(
                    "android.widget.SeekBar",
                    (44, top + 140, w - 44, top + 260),
                    text=str(state.settings.display.brightness),
                    desc="Display brightness",
                    rid=RID + "slider",
                    role="seekbar",
                )
            ],
        )
        tiles = []
        col_w = (w - 88 - 22) // 2
        for i, (name, get, put) in enumerate(_tiles()):
            r, c = divmod(i, 2)
            left = 44 + c * (col_w + 22)
            t = top + 300 + r * 200
            on = get(state)
            sub = "On" if on else "Off"
            tile = Node(
                "android.widget.Switch",
                (left, t, left + col_w, t + 176),
                text=sub,
                desc=name,
                checkable=True,
                checked=on,
                role="tile",
                on_tap=self._toggle(phone, get, put),
                children=[
                    Node(
                        GROUP,
                        (left + 40, t + 60, left + 96, t + 116),
                        children=[
                            Node(
                                IMAGE,
                                (left + 40, t + 60, left + 96, t + 116),
                                rid="android:id/icon",
                                role="glyph",
                            )
                        ],
                    ),
                    Node(
                        LINEAR,
                        (left + 120, t + 30, left + col_w - 20, t + 146),
                        children=[
                            label(
                                (left + 120, t + 30, left + col_w - 20, t + 88),
                                name,
                                rid=RID + "tile_label",
                                size=40,
                            ),
                            label(
                                (left + 120, t + 88, left + col_w - 20, t + 146),
                                sub,
                                rid=RID + "app_label",
                                size=36,
                                role="summary",
                            ),
                        ],
                    ),
                ],
            )
            tiles.append(tile)
        pager = Node(
            "androidx.viewpager.widget.ViewPager",
            (44, top + 300, w - 44, top + 300 + 4 * 200),
            rid=RID + "qs_pager",
            children=[
                Node(GROUP, (44, top + 300, w - 44, top + 1100), rid=RID + "tile_page", children=tiles)
            ],
        )
        ft = top + 1140
        footer = Node(
            LINEAR,
            (44, ft, w - 44, ft + 140),
            rid=RID + "qs_footer_actions",
            children=[
                Node(
                    IMAGE_BUTTON,
                    (w - 300, ft, w - 170, ft + 130),
                    desc="Open settings",
                    rid=RID + "settings_button_container",
                    on_tap=lambda: self._settings(phone),
                    role="icon",
                )
            ],
        )
        panel = Node(
            "android.widget.ScrollView",
            (0, 0, w, ft + 180),
            rid=RID + "expanded_qs_scroll_view",
            children=[
                Node(
                    LINEAR,
                    (0, 0, w, ft + 180),
                    rid=RID + "quick_settings_panel",
                    children=[header, slider, pager, footer],
                )
            ],
        )
        root = Node(
            FRAME,
            (0, 0, w, ft + 200),
            rid=RID + "notification_panel",
            role="shade",
            children=[Node(FRAME, (0, 0, w, ft + 200), rid=RID + "qs_frame", children=[panel])],
        )
        return Window(
            Node(FRAME, (0, 0, w, ft + 200), children=[root]),
            PKG,
            modal=True,
            on_outside=phone.close_shade,
            dim=True,
        )

    def _toggle(
        self, phone: Phone, get: Callable[[PhoneState], bool], put: Callable[[PhoneState, bool], None]
    ) -> Callable[[], None]:
        return lambda: put(phone.state, not get(phone.state))

    def _settings(self, phone: Phone) -> None:
        phone.close_shade()
        phone.launch("com.android.settings")
