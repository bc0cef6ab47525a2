"""The screen tools: ``uiautomator dump``, ``screencap`` and ``input``."""

from __future__ import annotations

import io
import struct

from PIL import Image

from latent_agent.device.adb_server.commands.registry import Registry, device_failed
from latent_agent.device.adb_server.shell import Invocation
from latent_agent.device.adb_server.vfs import VfsError
from latent_agent.device.base import Key
from latent_agent.errors import DeviceError

COMMANDS = Registry()
command = COMMANDS.command

KEYCODE_ALL_APPS = 284
KEYCODE_WAKEUP = 224
#: Android key names (``KeyEvent.KEYCODE_*`` without the prefix) -> key codes: the device's keys (``Key``, named
#: as Android names them) and the others ``input keyevent`` accepts.
KEYCODES = {key.name: key.value for key in Key} | {
    "CALL": 5, "ENDCALL": 6, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22, "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27,
    "TAB": 61, "SPACE": 62, "MENU": 82, "NOTIFICATION": 83, "SEARCH": 84,
    "ESCAPE": 111, "FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123, "VOLUME_MUTE": 164,
    "SLEEP": 223, "WAKEUP": KEYCODE_WAKEUP, "ALL_APPS": KEYCODE_ALL_APPS,
}
#: Below this duration a same-point ``input swipe`` is a tap, above it a long press
#: (``ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT``).
LONG_PRESS_MS = 400


@command("uiautomator")
def _uiautomator(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args or args[0] != "dump":
        inv.err("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                "help: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n")
        return 1
    rest = [a for a in args[1:] if a not in ("--compressed", "--verbose")]
    path = rest[0] if rest else "/sdcard/window_dump.xml"
    if inv.phone.options.dump_delay > 0 and inv.session.cancelled.wait(inv.phone.options.dump_delay):
        return 130
    if inv.phone.take_idle_failure():
        # uiautomator reports this on stderr and still exits 0; clients must read the text.
        inv.err("ERROR: could not get idle state.\n")
        return 0
    try:
        hierarchy = inv.phone.call(inv.phone.device.hierarchy)
    except DeviceError as exc:
        return device_failed(inv, exc)
    if hierarchy.format not in ("uiautomator", "appium"):
        return inv.fail(f"the served device produces {hierarchy.format} dumps, not uiautomator XML")
    if path == "/dev/tty":
        inv.out(hierarchy.raw)
    else:
        try:
            inv.phone.vfs.write(inv.session.path(path), hierarchy.raw)
        except VfsError as exc:
            inv.err(f"java.io.FileNotFoundException: {path}: open failed: ENOENT ({exc})\n")
            return 1
    inv.out(f"UI hierchary dumped to: {path}\n")
    return 0


@command("screencap")
def _screencap(inv: Invocation) -> int:
    args = inv.argv[1:]
    png = "-p" in args
    rest = [a for a in args if not a.startswith("-")]
    if any(a.startswith("-") and a != "-p" for a in args):
        bad = next(a for a in args if a.startswith("-") and a != "-p")
        return inv.fail(f"unsupported option {bad}; usage: screencap [-p] [FILENAME]")
    path = rest[0] if rest else ""
    png = png or path.endswith(".png")
    try:
        data = inv.phone.call(inv.phone.device.screenshot)
    except DeviceError as exc:
        return device_failed(inv, exc)
    if not png:
        with Image.open(io.BytesIO(data)) as img:
            rgba = img.convert("RGBA")
            # Header as Android 9+ writes it: width, height, PIXEL_FORMAT_RGBA_8888, sRGB.
            data = struct.pack("<4I", rgba.width, rgba.height, 1, 1) + rgba.tobytes()
    if path:
        try:
            inv.phone.vfs.write(inv.session.path(path), data)
        except VfsError as exc:
            return inv.fail(f"{path}: {exc}")
    else:
        inv.out(data)
    return 0



# -- input ---------------------------------------------------------------------


def _coord(value: str) -> int:
    return round(float(value))


def _keycode(name: str) -> int | None:
    if name.isdigit():
        return int(name)
    return KEYCODES.get(name.upper().removeprefix("KEYCODE_"))


def _press(inv: Invocation, code: int) -> int:
    phone = inv.phone
    if code == KEYCODE_ALL_APPS:
        phone.call(phone.device.launch_activity, "app_drawer")
        return 0
    if code == KEYCODE_WAKEUP:
        return 0  # the simulated screen is always on
    try:
        key = Key(code)
    except ValueError:
        return inv.fail(f"key code {code} is not simulated (simulated: "
                        f"{', '.join(f'{k.name}={k.value}' for k in Key)}, ALL_APPS=284, WAKEUP=224)")
    phone.call(phone.device.press_key, key)
    return 0


def _type_text(inv: Invocation, text: str) -> int:
    # `input text` turns "%s" into a space; there is no escape for a literal "%s".
    chars = text.replace("%s", " ")
    bad = [c for c in chars if not (" " <= c <= "~")]
    if bad:
        return inv.fail(f"text: cannot map {bad[0]!r} (U+{ord(bad[0]):04X}) to key events with the "
                        "virtual keyboard; nothing was typed")
    if chars:
        inv.phone.call(inv.phone.device.input_text, chars)
    return 0


_INPUT_SOURCES = frozenset({"keyboard", "touchscreen", "touchpad", "mouse", "stylus", "trackball", "dpad",
                            "gamepad", "joystick", "touchnavigation", "rotaryencoder"})


@command("input")
def input_command(inv: Invocation) -> int:
    args = inv.argv[1:]
    if args and args[0] in _INPUT_SOURCES:
        args = args[1:]
    if len(args) >= 2 and args[0] == "-d":
        args = args[2:]
    if not args:
        inv.err("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
        return 1
    sub, rest = args[0], args[1:]
    phone = inv.phone
    try:
        if sub == "text":
            if not rest:
                return inv.fail("text: missing argument")
            return _type_text(inv, rest[0])
        if sub == "keyevent":
            longpress = "--longpress" in rest
            codes = [a for a in rest if a not in ("--longpress", "--doubletap", "--async")]
            if not codes:
                return inv.fail("keyevent: missing key code")
            if longpress:
                return inv.fail("keyevent --longpress is not simulated")
            for name in codes:
                code = _keycode(name)
                if code is None:
                    return inv.fail(f"keyevent: unknown keycode {name!r}")
                status = _press(inv, code)
                if status:
                    return status
            return 0
        if sub == "tap":
            if len(rest) != 2:
                return inv.fail("tap: expected X Y")
            phone.call(phone.device.tap, _coord(rest[0]), _coord(rest[1]))
            return 0
        if sub in ("swipe", "draganddrop"):
            if len(rest) not in (4, 5):
                return inv.fail(f"{sub}: expected X1 Y1 X2 Y2 [DURATION_MS]")
            x1, y1, x2, y2 = (_coord(a) for a in rest[:4])
            duration = int(rest[4]) if len(rest) == 5 else 300
            if (x1, y1) == (x2, y2):
                if duration >= LONG_PRESS_MS:
                    phone.call(phone.device.long_press, x1, y1, duration)
                else:
                    phone.call(phone.device.tap, x1, y1)
            else:
                phone.call(phone.device.swipe, x1, y1, x2, y2, duration)
            return 0
    except ValueError as exc:
        return inv.fail(f"{sub}: bad number ({exc})")
    except DeviceError as exc:
        return device_failed(inv, exc)
    return inv.fail(f"unknown command '{sub}' (simulated: text, keyevent, tap, swipe, draganddrop)")
