"""A minimal recording device for testing the adb server's command mapping.

It keeps one text field and a foreground package, renders a real PNG, and
records every call, so tests can check exactly which Device call a shell
command turned into.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.device.adb_phone import AdbPhone, ShellResult
from latent_agent.device.base import Device, Hierarchy, Key, SystemActivity
from latent_agent.errors import AppNotFoundError

APPS = {
    "Settings": "com.android.settings",
    "Clock": "com.google.android.deskclock",
    "Chrome": "com.android.chrome",
}
LAUNCHER = "com.google.android.apps.nexuslauncher"


class RecordingDevice(Device):
    """Records calls; ``field`` holds everything typed."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.field = ""
        self.package = LAUNCHER

    def screen_size(self) -> ScreenSize:
        return ScreenSize(1080, 2400)

    def foreground_package(self) -> str:
        return self.package

    def _xml(self) -> bytes:
        from xml.sax.saxutils import quoteattr

        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0"><node index="0" text={quoteattr(self.field)} resource-id="" '
            f'class="android.widget.EditText" package="{self.package}" content-desc="" checkable="false" '
            'checked="false" clickable="true" enabled="true" focusable="true" focused="true" '
            'scrollable="false" long-clickable="false" password="false" selected="false" '
            'bounds="[0,0][1080,2400]" /></hierarchy>'
        ).encode()

    def hierarchy(self) -> Hierarchy:
        raw = self._xml()
        return Hierarchy(raw=raw, format="uiautomator", tree=parse_xml(raw))

    def screenshot(self) -> bytes:
        from PIL import Image

        buf = io.BytesIO()
        Image.new("RGB", (108, 240), (10, 20, 30)).save(buf, format="PNG")
        return buf.getvalue()

    def tap(self, x: int, y: int) -> None:
        self.calls.append(("tap", x, y))

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self.calls.append(("long_press", x, y, duration_ms))

    def input_text(self, text: str) -> None:
        self.calls.append(("input_text", text))
        self.field += text

    def press_key(self, key: Key) -> None:
        self.calls.append(("press_key", key))
        if key is Key.HOME:
            self.package = LAUNCHER

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.calls.append(("swipe", x1, y1, x2, y2, duration_ms))

    def launcher_apps(self) -> Mapping[str, str]:
        return dict(APPS)

    def launch_package(self, package: str) -> None:
        if package not in APPS.values():
            raise AppNotFoundError(f"{package} is not installed")
        self.calls.append(("launch_package", package))
        self.package = package

    def launch_activity(self, activity: SystemActivity) -> None:
        self.calls.append(("launch_activity", activity))
        self.package = "com.android.systemui" if activity == "quick_settings" else LAUNCHER

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        self.calls.append(("wait_for_idle", timeout))


class RecordingPhone(RecordingDevice, AdbPhone):
    """A recording phone reached over adb that is not a served sim: its shell records each command, answers nothing."""

    serial = "recording-phone"

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        self.calls.append(("shell", *args))
        return ShellResult(b"", b"", 0)
