"""``U2Device``: a phone driven through uiautomator2's on-device server (the fast path).

uiautomator2 runs a UiAutomator server on the phone and talks JSON-RPC to it
over an adb port forward, so a hierarchy dump costs ~0.1-0.5 s instead of the
1-3 s of ``uiautomator dump``. UI operations (``dump_hierarchy``, ``click``,
``long_click``, ``swipe``, ``press``, ``send_keys``, ``screenshot``) go through
that server; questions adb answers directly (screen size, foreground app,
launcher apps, starting apps the way ``app_start`` does with ``monkey``, the
quick-settings shade) go through :class:`~latent_agent.device.adb.AdbDevice` on the same
adb server (forwarded by :class:`~latent_agent.device.adb_backed.AdbBackedDevice`), so they work, and are
tested, without the on-device server.

The uiautomator2 server is started on first use (uiautomator2 pushes its jar
and launches it with ``app_process``); that needs a real device or emulator.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.device.adb import AdbDevice
from latent_agent.device.adb_backed import AdbBackedDevice
from latent_agent.device.base import DeviceCapabilities, Hierarchy, Key
from latent_agent.device.deadline import call_with_deadline
from latent_agent.errors import DeviceConnectionError, DeviceError, DeviceTimeoutError

T = TypeVar("T")


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


def _bounded(what: str, call: Callable[[], T], timeout: float) -> T:
    """``call()`` within ``timeout`` seconds, its failures turned into device errors."""

    def translated() -> T:
        with _translated(what):
            return call()

    return call_with_deadline(f"uiautomator2 {what}", translated, timeout)


class U2Device(AdbBackedDevice):
    """A device through uiautomator2.

    Every uiautomator2 call runs under a deadline (uiautomator2's own HTTP timeout
    is 300 s): a call still running when it passes raises
    :class:`~latent_agent.errors.DeviceTimeoutError` and is abandoned to finish
    (or fail) on its own thread.

    Args:
        serial: adb serial of the device.
        adb_host: Host of the adb server.
        adb_port: Port of the adb server (default ``$ANDROID_ADB_SERVER_PORT`` or 5037).
        timeout: Seconds any adb-side call may take.
        rpc_timeout: Seconds one call to the on-device server may take.
        connect_timeout: Seconds starting the on-device server may take (it installs and
            launches an instrumentation on first use).

    Raises:
        DeviceConnectionError: If the device is not reachable through adb.
    """

    capabilities = DeviceCapabilities(remote=True)
    #: The phone through adb: screen size, and the questions :class:`AdbBackedDevice` forwards.
    adb: AdbDevice

    def __init__(self, serial: str, *, adb_host: str = "127.0.0.1", adb_port: int | None = None,
                 timeout: float = 20.0, rpc_timeout: float = 20.0, connect_timeout: float = 120.0) -> None:
        if rpc_timeout <= 0 or connect_timeout <= 0:
            raise DeviceError(f"timeouts must be positive (rpc_timeout={rpc_timeout}, "
                              f"connect_timeout={connect_timeout})")
        super().__init__(AdbDevice(serial, adb_host=adb_host, adb_port=adb_port, timeout=timeout))
        self.rpc_timeout = rpc_timeout
        self.connect_timeout = connect_timeout
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
            self._u2 = _bounded("connect", lambda: uiautomator2.connect(client.device(self.serial)),
                                self.connect_timeout)
        return self._u2

    def _rpc(self, what: str, call: Callable[[Any], T], timeout: float | None = None) -> T:
        """Run ``call(self.u2)`` within ``timeout`` (default :attr:`rpc_timeout`) seconds."""
        device = self.u2
        return _bounded(what, lambda: call(device), timeout or self.rpc_timeout)

    # -- adb side ------------------------------------------------------------------

    # Apps start through adb (AdbBackedDevice.launch_package): uiautomator2's app_start(package) runs the same
    # monkey command, and AdbDevice also reads its output, so a missing app raises AppNotFoundError.

    def screen_size(self) -> ScreenSize:
        return self.adb.screen_size()

    # -- on-device server ------------------------------------------------------------

    def hierarchy(self) -> Hierarchy:
        xml: str = self._rpc("dump_hierarchy", lambda d: d.dump_hierarchy())
        raw = xml.encode("utf-8")
        return Hierarchy(raw=raw, format="uiautomator", tree=parse_xml(raw, source=f"u2:{self.serial}"))

    def screenshot(self) -> bytes:
        image = self._rpc("screenshot", lambda d: d.screenshot(format="pillow"))
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return buf.getvalue()

    def tap(self, x: int, y: int) -> None:
        self._rpc("click", lambda d: d.click(int(x), int(y)))

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self._rpc("long_click", lambda d: d.long_click(int(x), int(y), duration_ms / 1000),
                  self.rpc_timeout + duration_ms / 1000)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._rpc("swipe", lambda d: d.swipe(int(x1), int(y1), int(x2), int(y2), duration=duration_ms / 1000),
                  self.rpc_timeout + duration_ms / 1000)

    def press_key(self, key: Key) -> None:
        self._rpc("press", lambda d: d.press(key.value))

    def input_text(self, text: str) -> None:
        if not text:
            return
        # send_keys pastes through the clipboard or uiautomator2's IME: exact for any Unicode.
        self._rpc("send_keys", lambda d: d.send_keys(text))

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        if timeout < 0:
            raise DeviceError(f"wait_for_idle timeout must be >= 0, got {timeout}")
        limit = timeout + self.rpc_timeout
        self._rpc("waitForIdle", lambda d: d.jsonrpc.waitForIdle(int(timeout * 1000), http_timeout=limit), limit)

    def close(self) -> None:
        if self._u2 is not None:
            device, self._u2 = self._u2, None
            # Best effort: a dead device must not turn close() into an error or a hang.
            with contextlib.suppress(Exception):
                _bounded("stop_uiautomator", device.stop_uiautomator, self.rpc_timeout)
        super().close()
