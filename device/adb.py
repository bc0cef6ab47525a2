"""``AdbDevice``: a phone or emulator driven through the adb server with adbutils.

Every observation and action is one shell command over the adb server's
transport (``shell,v2`` framing when the device offers it, so exit status and
stderr come back separately and a dropped connection is noticed), bounded by a
deadline. User text is only ever passed as a single-quoted shell word.

Text input: printable ASCII goes through ``input text`` (split so that no
piece contains ``%s``, which ``input`` would turn into a space). Anything
else (non-ASCII, newlines, tabs) needs the ADB Keyboard IME
(https://github.com/senzhk/ADBKeyBoard), which types base64-encoded UTF-8
text received as a broadcast; without it :meth:`AdbDevice.input_text` raises
:class:`~latent_agent.errors.DeviceError` instead of typing something else.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import shlex
import socket
import struct
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.device.adb_daemon import ensure_server
from latent_agent.device.adb_phone import AdbPhone, ShellResult
from latent_agent.device.adb_server.commands.ui import KEYCODE_ALL_APPS
from latent_agent.device.adb_server.served_phone import ADB_KEYBOARD_IME
from latent_agent.device.base import DeviceCapabilities, Hierarchy, Key, SystemActivity
from latent_agent.errors import AppNotFoundError, DeviceConnectionError, DeviceError, DeviceTimeoutError
from latent_agent.extras import require

if TYPE_CHECKING:
    import adbutils

DEFAULT_ADB_PORT = 5037
#: Longest piece of text sent in one command (the command line stays far below adb's limits).
TEXT_CHUNK = 500
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PACKAGE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+\Z")
_FOCUS_RE = re.compile(r"mCurrentFocus=Window\{\S+ \S+ (?P<name>[^}\s]+)\}")
_RESUMED_RE = re.compile(
    r"(?:mResumedActivity: |topResumedActivity=)ActivityRecord\{\S+ \S+ (?P<pkg>[^/\s]+)/")
_SIZE_RE = re.compile(r"(Override|Physical) size: (\d+)x(\d+)")
_ROTATION_RE = re.compile(r"\borientation=(\d)")
#: Windows of the system UI that hold the focus without naming a package.
_SYSTEM_UI_WINDOWS = ("NotificationShade", "StatusBar", "StatusBar/NotificationShade")
#: Launcher labels of common apps; used when the device reports no literal label.
KNOWN_LABELS = {
    "com.android.settings": "Settings", "com.android.chrome": "Chrome",
    "com.google.android.deskclock": "Clock", "com.android.deskclock": "Clock",
    "com.google.android.calendar": "Calendar", "com.android.camera2": "Camera",
    "com.google.android.GoogleCamera": "Camera", "com.google.android.apps.maps": "Maps",
    "com.google.android.gm": "Gmail", "com.google.android.youtube": "YouTube",
    "com.google.android.apps.photos": "Photos", "com.google.android.apps.messaging": "Messages",
    "com.google.android.dialer": "Phone", "com.android.dialer": "Phone", "com.android.contacts": "Contacts",
    "com.google.android.contacts": "Contacts", "com.android.vending": "Play Store",
    "com.google.android.documentsui": "Files", "com.google.android.apps.nbu.files": "Files",
    "com.android.documentsui": "Files", "com.google.android.calculator": "Calculator",
    "com.android.calculator2": "Calculator", "com.google.android.keep": "Keep Notes",
    "com.google.android.apps.docs": "Drive", "com.android.messaging": "Messages",
}
_GENERIC_SEGMENTS = frozenset({"com", "org", "net", "android", "google", "apps", "app", "mobile", "client"})


def quote(args: Sequence[str]) -> str:
    """A shell command line whose words are exactly ``args`` (each single-quoted unless plain)."""
    return " ".join(shlex.quote(a) for a in args)


def input_text_chunks(text: str, size: int = TEXT_CHUNK) -> list[str]:
    """Split printable-ASCII ``text`` into pieces ``input text`` types verbatim.

    ``input text`` replaces every ``%s`` with a space and has no escape for it,
    so a piece never holds ``%`` directly followed by ``s``: the text is cut
    between them.
    """
    pieces: list[str] = []
    start = 0
    for i in range(len(text)):
        cut = (text[i] == "%" and text[i + 1:i + 2] == "s") or i + 1 - start >= size
        if cut:
            pieces.append(text[start:i + 1])
            start = i + 1
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def typeable_by_input_text(text: str) -> bool:
    """True if every character is printable ASCII (what ``input text`` maps to key events)."""
    return all(" " <= c <= "~" for c in text)


def label_for(package: str) -> str:
    """A launcher label for a package the device gave no label for."""
    if package in KNOWN_LABELS:
        return KNOWN_LABELS[package]
    segments = [s for s in package.split(".") if s.lower() not in _GENERIC_SEGMENTS]
    word = segments[-1] if segments else package.rsplit(".", 1)[-1]
    return word.replace("_", " ").title()


def parse_launcher_activities(output: str) -> dict[str, str]:
    """Label -> package from ``cmd package query-activities`` output.

    Uses the ``nonLocalizedLabel`` the dump shows when an app has a literal
    label, else :func:`label_for`. Two apps with one label keep distinct keys
    (``"Clock (com.x.clock)"``).
    """
    apps: dict[str, str] = {}
    for block in re.split(r"\n\s*Activity #\d+:", "\n" + output)[1:]:
        pkg_match = re.search(r"packageName=(\S+)", block) or re.search(r"^\s*([\w.]+)/", block, re.M)
        if pkg_match is None:
            continue
        pkg = pkg_match.group(1)
        label_match = re.search(r"nonLocalizedLabel=(.*?) icon=", block)
        label = label_match.group(1) if label_match and label_match.group(1) != "null" else label_for(pkg)
        if label in apps and apps[label] != pkg:
            label = f"{label} ({pkg})"
        apps.setdefault(label, pkg)
    return apps


class AdbDevice(AdbPhone):
    """A device reached through an adb server.

    Args:
        serial: The device serial as ``adb devices`` lists it; ``host:port``
            serials are ``adb connect``-ed first when not listed.
        adb_host: Host of the adb server.
        adb_port: Port of the adb server (default ``$ANDROID_ADB_SERVER_PORT`` or 5037).
        timeout: Seconds any one call may take.
        dump_timeout: Seconds one ``uiautomator dump`` may take (they are slow: 1-3 s).
        dump_retries: Extra attempts when uiautomator reports "could not get idle state".
        dump_path: Device file the dump is written to.

    Raises:
        DeviceConnectionError: If the adb server or the device cannot be reached.
    """

    capabilities = DeviceCapabilities(remote=True)

    def __init__(self, serial: str, *, adb_host: str = "127.0.0.1", adb_port: int | None = None,
                 timeout: float = 20.0, dump_timeout: float = 30.0, dump_retries: int = 3,
                 dump_path: str = "/data/local/tmp/latent_agent_dump.xml") -> None:
        if not serial:
            raise DeviceConnectionError("adb device serial is empty")
        if timeout <= 0 or dump_timeout <= 0:
            raise DeviceError(f"timeouts must be positive (timeout={timeout}, dump_timeout={dump_timeout})")
        self.serial = serial
        self.timeout = timeout
        self.dump_timeout = dump_timeout
        self.dump_retries = dump_retries
        self.dump_path = dump_path
        port = adb_port if adb_port is not None else int(os.environ.get("ANDROID_ADB_SERVER_PORT",
                                                                           DEFAULT_ADB_PORT))
        self._client = self._make_client(adb_host, port)
        self._v2 = self._attach()
        self._size: ScreenSize | None = None

    # -- transport -------------------------------------------------------------

    def _make_client(self, host: str, port: int) -> adbutils.AdbClient:
        require("adb", "an adb device", ("adbutils",))
        import adbutils

        # Before adbutils could start a missing server itself, and leave it running after we exit.
        ensure_server(host, port)
        return adbutils.AdbClient(host=host, port=port, socket_timeout=self.timeout)

    def _attach(self) -> bool:
        """Connect network serials, check the device is online; returns whether it has shell v2."""
        with _translated(f"adb device {self.serial}"):
            listed = {d.serial: d.state for d in self._client.list()}
            if self.serial not in listed and ":" in self.serial:
                answer = self._client.connect(self.serial, timeout=self.timeout)
                if "connected to" not in answer:
                    raise DeviceConnectionError(f"adb connect {self.serial} failed: {answer.strip()}")
                listed = self._wait_listed()
            state = listed.get(self.serial)
            if state is None:
                raise DeviceConnectionError(
                    f"adb device {self.serial!r} not found; attached: {', '.join(listed) or 'none'}")
            if state != "device":
                raise DeviceConnectionError(f"adb device {self.serial} is {state}, not online")
            features = self._client.device(self.serial).get_features()
        return "shell_v2" in features.split(",")

    def _wait_listed(self) -> dict[str, str]:
        deadline = time.monotonic() + self.timeout
        while True:
            listed = {d.serial: d.state for d in self._client.list()}
            if listed.get(self.serial) == "device" or time.monotonic() > deadline:
                return listed
            time.sleep(0.05)

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        """Run one command (its words given separately; each is quoted) within ``timeout`` seconds.

        Raises:
            DeviceTimeoutError: If the command does not finish in time.
            DeviceConnectionError: If the adb server or device is gone or drops mid-command.
        """
        if not args:
            raise DeviceError("empty shell command")
        return self._run(quote(args), timeout or self.timeout)

    def _run(self, command: str, timeout: float) -> ShellResult:
        deadline = time.monotonic() + timeout
        what = f"adb -s {self.serial} shell {command[:80]!r}"
        with _translated(what, timeout):
            conn = self._client.make_connection(timeout=timeout)
            try:
                conn.send_command(f"host:transport:{self.serial}")
                conn.check_okay()
                conn.send_command(f"shell,v2,raw:{command}" if self._v2 else f"shell:{command}")
                conn.check_okay()
                return _read_v2(conn, deadline) if self._v2 else _read_v1(conn, deadline)
            finally:
                conn.close()
        raise AssertionError("unreachable")  # pragma: no cover - _translated always raises

    def _check(self, result: ShellResult, what: str) -> ShellResult:
        if result.status != 0 or b"Error" in result.stderr or b"Exception" in result.stderr:
            raise DeviceError(f"{what} failed (exit {result.status}): {result.text().strip()[:500]}")
        return result

    # -- observation -------------------------------------------------------------

    def screen_size(self) -> ScreenSize:
        out = self._check(self.shell(["wm", "size"]), "wm size").text()
        sizes = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _SIZE_RE.finditer(out)}
        if not sizes:
            raise DeviceError(f"unexpected 'wm size' output: {out.strip()!r}")
        w, h = sizes.get("Override", sizes.get("Physical", (0, 0)))
        rotation = _ROTATION_RE.search(self.shell(["dumpsys", "display"]).text())
        if rotation and int(rotation.group(1)) % 2 == 1:
            w, h = h, w
        self._size = ScreenSize(w, h)
        return self._size

    def foreground_package(self) -> str:
        out = self._check(self.shell(["dumpsys", "window", "windows"]), "dumpsys window").text()
        m = _FOCUS_RE.search(out)
        if m:
            name = m.group("name")
            if "/" in name and not name.startswith("StatusBar"):
                return name.split("/", 1)[0]
            if name in _SYSTEM_UI_WINDOWS:
                return "com.android.systemui"
            if _PACKAGE_RE.match(name):
                return name
        out = self.shell(["dumpsys", "activity", "activities"]).text()
        r = _RESUMED_RE.search(out)
        if r:
            return r.group("pkg")
        raise DeviceError("could not find the focused window in 'dumpsys window' nor a resumed activity")

    def hierarchy(self) -> Hierarchy:
        path = shlex.quote(self.dump_path)
        # One round trip: messages go to stderr, the XML alone to stdout.
        command = f"rm -f {path}; uiautomator dump {path} >&2 && cat {path}"
        last = ""
        for attempt in range(self.dump_retries + 1):
            result = self._run(command, self.dump_timeout)
            last = result.text().strip()
            if "could not get idle state" in last:
                time.sleep(min(0.2 * (attempt + 1), 1.0))
                continue
            raw = _xml_only(result.stdout)
            if result.status != 0 or raw is None:
                raise DeviceError(f"uiautomator dump failed (exit {result.status}): {last[:500]}")
            tree = parse_xml(raw, source=f"adb:{self.serial}")
            return Hierarchy(raw=raw, format="uiautomator", tree=tree)
        raise DeviceTimeoutError(
            f"uiautomator dump: UI not idle after {self.dump_retries + 1} attempts ({last[:200]})")

    def screenshot(self) -> bytes:
        result = self.shell(["screencap", "-p"])
        data = result.stdout
        if result.status != 0 or not data.startswith(_PNG_SIGNATURE):
            raise DeviceError(f"screencap failed (exit {result.status}): {result.stderr[:300]!r}")
        if not data.rstrip(b"\r\n").endswith(b"IEND\xaeB`\x82"):
            raise DeviceConnectionError(f"screencap returned a truncated PNG ({len(data)} bytes)")
        return data.rstrip(b"\r\n") if not self._v2 else data

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        """Poll the hierarchy until two dumps in a row agree or ``timeout`` passes."""
        if timeout < 0:
            raise DeviceError(f"wait_for_idle timeout must be >= 0, got {timeout}")
        deadline = time.monotonic() + timeout
        previous = None
        while time.monotonic() < deadline:
            raw = self.hierarchy().raw
            if raw == previous:
                return
            previous = raw

    # -- actions ----------------------------------------------------------------

    def _input(self, *args: str | int) -> None:
        words = ["input", *(str(int(a)) if isinstance(a, int) else a for a in args)]
        self._check(self.shell(words), " ".join(words[:2]))

    def tap(self, x: int, y: int) -> None:
        self._input("tap", x, y)

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        # A swipe that does not move is a touch held for its duration.
        self._input("swipe", x, y, x, y, duration_ms)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._input("swipe", x1, y1, x2, y2, duration_ms)

    def press_key(self, key: Key) -> None:
        self._input("keyevent", key.value)

    def input_text(self, text: str) -> None:
        if not text:
            return
        if typeable_by_input_text(text):
            for piece in input_text_chunks(text):
                self._check(self.shell(["input", "text", piece]), "input text")
            return
        ime = self.shell(["settings", "get", "secure", "default_input_method"]).stdout.decode().strip()
        if ime != ADB_KEYBOARD_IME:
            odd = next(c for c in text if not " " <= c <= "~")
            raise DeviceError(
                f"cannot type {odd!r} (U+{ord(odd):04X}) exactly: 'input text' only types printable ASCII; "
                "non-ASCII text, newlines and tabs need the ADB Keyboard IME installed and selected "
                f"(current IME: {ime or 'unknown'}); see docs/devices.md")
        for start in range(0, len(text), TEXT_CHUNK):
            payload = base64.b64encode(text[start:start + TEXT_CHUNK].encode("utf-8")).decode("ascii")
            result = self.shell(["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", payload])
            if b"Broadcast completed" not in result.stdout:
                raise DeviceError(f"ADB Keyboard broadcast failed: {result.text().strip()[:300]}")

    def launcher_apps(self) -> Mapping[str, str]:
        result = self.shell(["cmd", "package", "query-activities", "-a", "android.intent.action.MAIN",
                             "-c", "android.intent.category.LAUNCHER"])
        apps = parse_launcher_activities(result.text()) if result.status == 0 else {}
        if apps:
            return apps
        # Older releases have no query-activities: fall back to package names.
        out = self._check(self.shell(["pm", "list", "packages", "-3"]), "pm list packages").text()
        pkgs = [line.removeprefix("package:").strip() for line in out.splitlines()
                if line.startswith("package:")]
        return {label_for(p): p for p in pkgs}

    def launch_package(self, package: str) -> None:
        if not _PACKAGE_RE.match(package):
            raise AppNotFoundError(f"{package!r} is not a package name")
        result = self.shell(["monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1"])
        text = result.text()
        if "No activities found" in text or "monkey aborted" in text:
            raise AppNotFoundError(f"package {package!r} is not installed or has no launcher activity")
        if result.status != 0 or "Events injected" not in text:
            raise DeviceError(
                f"monkey could not start {package} (exit {result.status}): {text.strip()[:300]}")

    def launch_activity(self, activity: SystemActivity) -> None:
        if activity == "quick_settings":
            self._check(self.shell(["cmd", "statusbar", "expand-settings"]), "cmd statusbar expand-settings")
        elif activity == "app_drawer":
            # KEYCODE_ALL_APPS (API 28+) makes the launcher show its app drawer.
            self._input("keyevent", KEYCODE_ALL_APPS)
        else:
            raise DeviceError(f"unknown system activity {activity!r}; use app_drawer or quick_settings")

    def close(self) -> None:
        """Nothing to release: each call uses its own adb server connection."""


def _xml_only(stdout: bytes) -> bytes | None:
    start = stdout.find(b"<?xml")
    if start < 0:
        start = stdout.find(b"<hierarchy")
    end = stdout.rfind(b">")
    if start < 0 or end < start:
        return None
    return stdout[start:end + 1]


_PACKET = struct.Struct("<BI")


def _recv_exact(conn: Any, n: int, deadline: float) -> bytes:
    sock: socket.socket = conn.conn
    buf = bytearray()
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise DeviceConnectionError("connection closed mid-command (device disconnected?)")
        buf.extend(chunk)
    return bytes(buf)


def _read_v2(conn: Any, deadline: float) -> ShellResult:
    out, err = bytearray(), bytearray()
    while True:
        ident, length = _PACKET.unpack(_recv_exact(conn, _PACKET.size, deadline))
        data = _recv_exact(conn, length, deadline) if length else b""
        if ident == 1:
            out.extend(data)
        elif ident == 2:
            err.extend(data)
        elif ident == 3:
            return ShellResult(bytes(out), bytes(err), data[0] if data else 255)


def _read_v1(conn: Any, deadline: float) -> ShellResult:
    sock: socket.socket = conn.conn
    out = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(1 << 16)
        if not chunk:
            return ShellResult(bytes(out), b"", 0)
        out.extend(chunk)


@contextlib.contextmanager
def _translated(what: str, timeout: float | None = None) -> Iterator[None]:
    """Turn adbutils and socket failures into the project's device errors."""
    from adbutils.errors import AdbError, AdbTimeout

    limit = f" within {timeout:g} s" if timeout else ""
    try:
        yield
    except DeviceError:
        raise
    except (AdbTimeout, TimeoutError) as exc:
        raise DeviceTimeoutError(f"{what}: no answer{limit}") from exc
    except AdbError as exc:
        message = str(exc)
        if any(s in message for s in ("not found", "offline", "closed", "connect", "unauthorized")):
            raise DeviceConnectionError(f"{what}: {message}") from exc
        raise DeviceError(f"{what}: {message}") from exc
    except (EOFError, OSError) as exc:
        raise DeviceConnectionError(f"{what}: connection lost ({exc})") from exc


__all__ = ["AdbDevice", "ShellResult", "input_text_chunks", "label_for", "parse_launcher_activities", "quote"]
