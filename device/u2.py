"""``U2Device``: a phone driven through uiautomator2's on-device server (the fast path).

uiautomator2 runs a UiAutomator server on the phone and talks JSON-RPC to it
over an adb port forward, so a hierarchy dump costs ~0.1-0.5 s instead of the
1-3 s of ``uiautomator dump``. UI operations (``dump_hierarchy``, ``click``,
``long_click``, ``swipe``, ``press``, ``send_keys``, ``screenshot``) go through
that server; questions adb answers directly (screen size, foreground app,
launcher apps, starting apps the way ``app_start`` does with ``monkey``, the
quick-settings shade) go through :class:`~device.adb.AdbDevice` on the same
adb server, so they work, and are tested, without the on-device server.

The uiautomator2 server is started on first use (uiautomator2 pushes its jar
and launches it with ``app_process``); that needs a real device or emulator.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Mapping
from typing import Any

from accessibility.tree import ScreenSize
from device.adb import AdbDevice
from device.base import Device, Hierarchy, Key, SystemActivity
from latent_agent.errors import DeviceConnectionError, DeviceError, DeviceTimeoutError


@contextlib.contextmanager
def _translated(what: str) -> Iterator[None]:
    """Turn uiautomator2 and transport failures into the project's device errors."""
    from uiautomator2 import exceptions as u2e

    try:
        yield
    except DeviceError:
        raise
    except (u2e.HTTPTimeoutError, TimeoutError) as exc:
        raise DeviceTimeoutError(f"uiautomator2 {what}: timed out ({exc})") from exc
    except (u2e.ConnectError, u2e.HTTPError, u2e.UiAutomationError, ConnectionError, EOFError) as exc:
        raise DeviceConnectionError(f"uiautomator2 {what}: {exc}") from exc
    except u2e.BaseException as exc:
        raise DeviceError(f"uiautomator2 {what}: {type(exc).__name__}: {exc}") from exc


class U2Device(Device):
    """A device through uiautomator2.

    Args:
        serial: adb serial of the device.
        adb_host: Host of the adb server.
        adb_port: Port of the adb server (default ``$ANDROID_ADB_SERVER_PORT`` or 5037).
        timeout: Seconds any adb-side call may take; JSON-RPC calls use uiautomator2's own
            HTTP timeout (:data:`RPC_TIMEOUT`).

    Raises:
        DeviceConnectionError: If the device is not reachable through adb.
    """

    #: Seconds one JSON-RPC call to the on-device server may take.
    RPC_TIMEOUT = 20.0

    def __init__(self, serial: str, *, adb_host: str = "127.0.0.1", adb_port: int | None = None,
                 timeout: float = 20.0) -> None:
        self.serial = serial
        self.adb = AdbDevice(serial, adb_host=adb_host, adb_port=adb_port, timeout=timeout)
        self._u2: Any = None

    @property
    def u2(self) -> Any:
        """The ``uiautomator2.Device``; connecting starts the on-device server.

        Raises:
            DeviceConnectionError: If the server cannot be started.
        """
        if self._u2 is None:
            import adbutils
            import uiautomator2

            client = adbutils.AdbClient(host=self.adb._client.host, port=self.adb._client.port)
            with _translated("connect"):
                self._u2 = uiautomator2.connect(client.device(self.serial))
        return self._u2

    # -- adb side ------------------------------------------------------------------

    def screen_size(self) -> ScreenSize:
        return self.adb.screen_size()

    def foreground_package(self) -> str:
        return self.adb.foreground_package()

    def launcher_apps(self) -> Mapping[str, str]:
        return self.adb.launcher_apps()

    def launch_package(self, package: str) -> None:
        # uiautomator2's app_start(package) runs exactly this monkey command; AdbDevice
        # also reads its output, so a missing app raises AppNotFoundError instead of passing.
        self.adb.launch_package(package)

    def launch_activity(self, activity: SystemActivity) -> None:
        self.adb.launch_activity(activity)

    # -- on-device server ------------------------------------------------------------

    def hierarchy(self) -> Hierarchy:
        from accessibility.parse_xml import parse_xml

        with _translated("dump_hierarchy"):
            xml = self.u2.dump_hierarchy()
        raw = xml.encode("utf-8")
        return Hierarchy(raw=raw, format="uiautomator", tree=parse_xml(raw, source=f"u2:{self.serial}"))

    def screenshot(self) -> bytes:
        with _translated("screenshot"):
            image = self.u2.screenshot(format="pillow")
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return buf.getvalue()

    def tap(self, x: int, y: int) -> None:
        with _translated("click"):
            self.u2.click(int(x), int(y))

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        with _translated("long_click"):
            self.u2.long_click(int(x), int(y), duration_ms / 1000)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        with _translated("swipe"):
            self.u2.swipe(int(x1), int(y1), int(x2), int(y2), duration=duration_ms / 1000)

    def press_key(self, key: Key) -> None:
        with _translated("press"):
            self.u2.press(key.value)

    def input_text(self, text: str) -> None:
        if not text:
            return
        # send_keys pastes through the clipboard or uiautomator2's IME: exact for any Unicode.
        with _translated("send_keys"):
            self.u2.send_keys(text)

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        if timeout < 0:
            raise DeviceError(f"wait_for_idle timeout must be >= 0, got {timeout}")
        with _translated("waitForIdle"):
            self.u2.jsonrpc.waitForIdle(int(timeout * 1000), http_timeout=timeout + self.RPC_TIMEOUT)

    def close(self) -> None:
        if self._u2 is not None:
            with contextlib.suppress(Exception):
                self._u2.stop_uiautomator()
            self._u2 = None
