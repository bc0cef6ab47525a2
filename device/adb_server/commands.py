"""The commands the served phone's shell knows, as a name -> handler registry.

Each handler answers the way the Android tool of that name does for the
arguments adb clients actually send (output text, stderr messages, exit
status), and turns the request into :class:`~device.base.Device` calls on the
phone. Arguments the simulated phone cannot honour are refused with a message,
never silently ignored.
"""

from __future__ import annotations

import base64
import binascii
import io
import struct
from collections.abc import Callable

from device.adb_server.phone import SYSTEM_UI
from device.adb_server.shell import ExitShell, Handler, Invocation
from device.adb_server.vfs import VfsError
from device.base import Key
from latent_agent.errors import AppNotFoundError, DeviceError

COMMANDS: dict[str, Handler] = {}

#: Android key names (``KeyEvent.KEYCODE_*`` without the prefix) -> key codes.
KEYCODES = {
    "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22, "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27,
    "TAB": 61, "SPACE": 62, "ENTER": 66, "DEL": 67, "MENU": 82, "NOTIFICATION": 83, "SEARCH": 84,
    "ESCAPE": 111, "FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123, "VOLUME_MUTE": 164,
    "APP_SWITCH": 187, "SLEEP": 223, "WAKEUP": 224, "ALL_APPS": 284,
}
KEYCODE_ALL_APPS = 284
KEYCODE_WAKEUP = 224
#: Below this duration a same-point ``input swipe`` is a tap, above it a long press
#: (``ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT``).
LONG_PRESS_MS = 400
ACTIVITY = "{pkg}/.MainActivity"


def command(*names: str) -> Callable[[Handler], Handler]:
    """Register a handler under one or more command names."""

    def register(fn: Handler) -> Handler:
        for name in names:
            COMMANDS[name] = fn
        return fn

    return register


def _device_failed(inv: Invocation, exc: DeviceError) -> int:
    return inv.fail(f"device error: {exc}", 1)


# -- shell builtins and coreutils ---------------------------------------------


@command("echo")
def _echo(inv: Invocation) -> int:
    args = inv.argv[1:]
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    inv.out(" ".join(args) + ("\n" if newline else ""))
    return 0


@command("true", ":")
def _true(inv: Invocation) -> int:
    return 0


@command("false")
def _false(inv: Invocation) -> int:
    return 1


@command("exit")
def _exit(inv: Invocation) -> int:
    arg = inv.argv[1] if len(inv.argv) > 1 else str(inv.session.status)
    if not arg.lstrip("-").isdigit():
        return inv.fail(f"{arg}: bad number", 2)
    raise ExitShell(int(arg) & 0xFF)


@command("cd")
def _cd(inv: Invocation) -> int:
    target = inv.session.path(inv.argv[1] if len(inv.argv) > 1 else inv.session.vars.get("HOME", "/"))
    st = inv.phone.vfs.stat(target)
    if st is None or not st.is_dir:
        return inv.fail(f"{inv.argv[1] if len(inv.argv) > 1 else target}: No such file or directory", 2)
    inv.session.cwd = target
    return 0


@command("pwd")
def _pwd(inv: Invocation) -> int:
    inv.out(inv.session.cwd + "\n")
    return 0


@command("id")
def _id(inv: Invocation) -> int:
    inv.out("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1015(sdcard_rw) "
            "context=u:r:shell:s0\n")
    return 0


@command("whoami")
def _whoami(inv: Invocation) -> int:
    inv.out("shell\n")
    return 0


@command("sleep")
def _sleep(inv: Invocation) -> int:
    try:
        seconds = float(inv.argv[1]) if len(inv.argv) > 1 else -1.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        return inv.fail("usage: sleep SECONDS")
    # Wakes early when the session is cancelled, so shutdown never waits on a sleep.
    if inv.session.cancelled.wait(seconds):
        return 130
    return 0


@command("cat")
def _cat(inv: Invocation) -> int:
    files = [a for a in inv.argv[1:] if a != "-"] if len(inv.argv) > 1 else []
    if not files:
        inv.out(inv.stdin)
        return 0
    status = 0
    for f in files:
        try:
            inv.out(inv.phone.vfs.read(inv.session.path(f)))
        except VfsError as exc:
            status = inv.fail(f"{f}: {exc}")
    return status


@command("rm")
def _rm(inv: Invocation) -> int:
    force = recursive = False
    paths: list[str] = []
    for a in inv.argv[1:]:
        if a.startswith("-") and len(a) > 1 and paths == []:
            force |= "f" in a
            recursive |= "r" in a or "R" in a
        else:
            paths.append(a)
    if not paths:
        return 0 if force else inv.fail("Needs 1 argument")
    status = 0
    for p in paths:
        try:
            inv.phone.vfs.remove(inv.session.path(p), recursive=recursive)
        except VfsError as exc:
            if not (force and inv.phone.vfs.stat(inv.session.path(p)) is None):
                status = inv.fail(f"{p}: {exc}")
    return status


@command("mkdir")
def _mkdir(inv: Invocation) -> int:
    parents = "-p" in inv.argv[1:]
    status = 0
    for p in (a for a in inv.argv[1:] if a != "-p"):
        try:
            inv.phone.vfs.mkdir(inv.session.path(p), parents=parents)
        except VfsError as exc:
            status = inv.fail(f"{p}: {exc}")
    return status


@command("touch")
def _touch(inv: Invocation) -> int:
    status = 0
    for p in inv.argv[1:]:
        path = inv.session.path(p)
        try:
            old = inv.phone.vfs.read(path) if inv.phone.vfs.stat(path) is not None else b""
            inv.phone.vfs.write(path, old)
        except VfsError as exc:
            status = inv.fail(f"'{p}': {exc}")
    return status


@command("ls")
def _ls(inv: Invocation) -> int:
    paths = [a for a in inv.argv[1:] if not a.startswith("-")] or ["."]
    show_all = any(a.startswith("-") and "a" in a for a in inv.argv[1:])
    status = 0
    for p in paths:
        path = inv.session.path(p)
        st = inv.phone.vfs.stat(path)
        if st is None:
            status = inv.fail(f"{p}: No such file or directory")
        elif not st.is_dir:
            inv.out(p + "\n")
        else:
            names = [n for n, _ in inv.phone.vfs.listdir(path) if show_all or not n.startswith(".")]
            inv.out("".join(n + "\n" for n in names))
    return status


# -- uiautomator, screencap ---------------------------------------------------


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
        return _device_failed(inv, exc)
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
        return _device_failed(inv, exc)
    if not png:
        from PIL import Image

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
def _input(inv: Invocation) -> int:
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
        return _device_failed(inv, exc)
    return inv.fail(f"unknown command '{sub}' (simulated: text, keyevent, tap, swipe, draganddrop)")


# -- activity manager, monkey, status bar ---------------------------------------


_AM_VALUE_OPTS = frozenset({"-a", "-d", "-t", "-c", "-n", "-f", "-p", "--user", "--esn", "-r", "--display"})
_AM_TWO_VALUE_OPTS = frozenset({"--es", "-e", "--ez", "--ei", "--el", "--ef", "--eu", "--ecn", "--esa",
                                "--eia"})


def _intent(args: list[str]) -> tuple[dict[str, list[str]], dict[str, str], list[str]]:
    """Options, string extras and positional arguments of an ``am`` intent."""
    opts: dict[str, list[str]] = {}
    extras: dict[str, str] = {}
    pos: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _AM_TWO_VALUE_OPTS:
            key = args[i + 1] if i + 1 < len(args) else ""
            extras[key] = args[i + 2] if i + 2 < len(args) else ""
            i += 3
        elif a in _AM_VALUE_OPTS:
            opts.setdefault(a, []).append(args[i + 1] if i + 1 < len(args) else "")
            i += 2
        elif a.startswith("-"):
            opts.setdefault(a, [])
            i += 1
        else:
            pos.append(a)
            i += 1
    return opts, extras, pos


def _describe_intent(opts: dict[str, list[str]], extras: dict[str, str]) -> str:
    parts = []
    if "-a" in opts:
        parts.append(f"act={opts['-a'][-1]}")
    if "-c" in opts:
        parts.append(f"cat=[{','.join(opts['-c'])}]")
    if "-d" in opts:
        parts.append(f"dat={opts['-d'][-1]}")
    parts.append("flg=0x10000000" if "-n" in opts else "flg=0x400000")
    if "-n" in opts:
        parts.append(f"cmp={opts['-n'][-1]}")
    if extras:
        parts.append("(has extras)")
    return "Intent { " + " ".join(parts) + " }"


def _launch(inv: Invocation, package: str) -> bool:
    try:
        if package not in set(inv.phone.call(inv.phone.device.launcher_apps).values()):
            return False
        inv.phone.call(inv.phone.device.launch_package, package)
    except AppNotFoundError:
        return False
    return True


@command("am")
def _am(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args:
        inv.err("usage: am [subcommand] [options]\n")
        return 1
    sub = args[0]
    opts, extras, _pos = _intent(args[1:])
    desc = _describe_intent(opts, extras)
    try:
        if sub in ("start", "start-activity"):
            categories = opts.get("-c", [])
            if "android.intent.category.HOME" in categories:
                inv.out(f"Starting: {desc}\n")
                inv.phone.call(inv.phone.device.press_key, Key.HOME)
                return 0
            package = ""
            if "-n" in opts:
                package = opts["-n"][-1].split("/", 1)[0]
            elif "-p" in opts:
                package = opts["-p"][-1]
            if not package:
                inv.err(f"Error: Activity not started, unable to resolve {desc}\n")
                return 1
            inv.out(f"Starting: {desc}\n")
            if not _launch(inv, package):
                inv.err("Error type 3\nError: Activity class {" + (opts.get("-n") or [package])[-1]
                        + "} does not exist.\n")
                return 1
            return 0
        if sub == "broadcast":
            inv.out(f"Broadcasting: {desc}\n")
            action = (opts.get("-a") or [""])[-1]
            if inv.phone.adb_keyboard_active and action in ("ADB_INPUT_B64", "ADB_INPUT_TEXT"):
                msg = extras.get("msg", "")
                if action == "ADB_INPUT_B64":
                    try:
                        msg = base64.b64decode(msg, validate=True).decode("utf-8")
                    except (binascii.Error, UnicodeDecodeError):
                        # ADBKeyboard swallows undecodable payloads; the sender learns nothing.
                        msg = ""
                if msg:
                    inv.phone.call(inv.phone.device.input_text, msg)
            inv.out("Broadcast completed: result=0\n")
            return 0
    except DeviceError as exc:
        return _device_failed(inv, exc)
    inv.err(f"Error: unknown command '{sub}' (simulated: start, broadcast)\n")
    return 1


@command("monkey")
def _monkey(inv: Invocation) -> int:
    args = inv.argv[1:]
    packages = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-p"]
    cats = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-c"]
    count = args[-1] if args else ""
    if not packages or not count.isdigit():
        inv.err("usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...] [-c MAIN_CATEGORY ...] COUNT\n")
        return 1
    if cats and any(c != "android.intent.category.LAUNCHER" for c in cats):
        return inv.fail("only -c android.intent.category.LAUNCHER is simulated")
    for a in ("-p", packages[0]):
        inv.out(f"  bash arg: {a}\n")
    try:
        if int(count) > 0 and not _launch(inv, packages[0]):
            inv.err("** No activities found to run, monkey aborted.\n")
            return 252  # Monkey.run returns -4
    except DeviceError as exc:
        return _device_failed(inv, exc)
    inv.out(f"Events injected: {count}\n"
            "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n")
    return 0


def _query_activities(inv: Invocation, args: list[str]) -> int:
    opts, _extras, _pos = _intent(args)
    if opts.get("-a", [""])[-1] != "android.intent.action.MAIN" or \
            "android.intent.category.LAUNCHER" not in opts.get("-c", []):
        return inv.fail("query-activities: only -a android.intent.action.MAIN -c "
                        "android.intent.category.LAUNCHER is simulated")
    apps = sorted(inv.phone.call(inv.phone.device.launcher_apps).items(), key=lambda kv: kv[1])
    if "--components" in opts:
        inv.out("".join(ACTIVITY.format(pkg=pkg) + "\n" for _, pkg in apps))
        return 0
    lines = [f"{len(apps)} activities found:"]
    for i, (label, pkg) in enumerate(apps):
        lines += [f"  Activity #{i}:",
                  "    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false"]
        if "--brief" in opts:
            lines.append("    " + ACTIVITY.format(pkg=pkg))
            continue
        # The simulated apps have literal labels, so they appear as nonLocalizedLabel.
        lines += ["    ActivityInfo:", f"      name={pkg}.MainActivity", f"      packageName={pkg}",
                  f"      labelRes=0x0 nonLocalizedLabel={label} icon=0x0 banner=0x0",
                  "      enabled=true exported=true directBootAware=false",
                  f"      taskAffinity={pkg} targetActivity=null persistableMode=PERSIST_ROOT_ONLY",
                  "      ApplicationInfo:", f"        packageName={pkg}",
                  f"        labelRes=0x0 nonLocalizedLabel={label} icon=0x0 banner=0x0"]
    inv.out("\n".join(lines) + "\n")
    return 0


def _list_packages(inv: Invocation, args: list[str]) -> int:
    filters = [a for a in args if not a.startswith("-")]
    pkgs = inv.phone.packages()
    if filters:
        pkgs = [p for p in pkgs if filters[0] in p]
    inv.out("".join(f"package:{p}\n" for p in pkgs))
    return 0


@command("pm")
def _pm(inv: Invocation) -> int:
    args = inv.argv[1:]
    try:
        if args[:2] == ["list", "packages"]:
            return _list_packages(inv, args[2:])
        if args[:1] == ["query-activities"]:
            return _query_activities(inv, args[1:])
        if args[:1] == ["path"] and len(args) == 2:
            if args[1] not in inv.phone.packages():
                return 1
            inv.out(f"package:/data/app/{args[1]}/base.apk\n")
            return 0
    except DeviceError as exc:
        return _device_failed(inv, exc)
    inv.err("Error: unknown command (simulated: list packages, query-activities, path)\n")
    return 1


def _statusbar(inv: Invocation, args: list[str]) -> int:
    phone = inv.phone
    if args == ["expand-settings"]:
        phone.foreground()  # remembers the app the shade will cover
        phone.call(phone.device.launch_activity, "quick_settings")
        return 0
    if args == ["collapse"]:
        if phone.foreground() == SYSTEM_UI:
            phone.call(phone.device.press_key, Key.BACK)
        return 0
    return inv.fail("statusbar: simulated: expand-settings, collapse")


@command("cmd")
def _cmd(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args:
        inv.err("cmd: No service specified; use -l to list all running services.\n")
        return 20
    service, rest = args[0], args[1:]
    try:
        if service == "statusbar":
            return _statusbar(inv, rest)
        if service == "package":
            inv.argv = ["pm", *rest]
            return _pm(inv)
        if service == "input":
            inv.argv = ["input", *rest]
            return _input(inv)
    except DeviceError as exc:
        return _device_failed(inv, exc)
    inv.err(f"cmd: Can't find service: {service}\n")
    return 20


# -- system state: dumpsys, wm, getprop, settings, ime ---------------------------


def _window_token(pkg: str) -> str:
    return f"{abs(hash(pkg)) % 0xFFFFFFF:07x}"


@command("dumpsys")
def _dumpsys(inv: Invocation) -> int:
    args = inv.argv[1:]
    phone = inv.phone
    service = args[0] if args else ""
    try:
        if service == "window":
            fg = phone.foreground()
            app = phone.resumed_app()
            size = phone.call(phone.device.screen_size)
            focus = "NotificationShade" if fg == SYSTEM_UI else ACTIVITY.format(pkg=fg)
            inv.out("WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                    f"  mCurrentFocus=Window{{{_window_token(focus)} u0 {focus}}}\n"
                    f"  mFocusedApp=ActivityRecord{{{_window_token(app)} u0 "
                    f"{ACTIVITY.format(pkg=app)} t12}}\n"
                    "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
                    f"  Display: mDisplayId=0\n    init={size.width}x{size.height} 420dpi "
                    f"cur={size.width}x{size.height} app={size.width}x{size.height}\n"
                    "    mRotation=0\n")
            return 0
        if service == "activity" and args[1:2] in (["activities"], ["top"], []):
            app = phone.resumed_app()
            record = f"ActivityRecord{{{_window_token(app)} u0 {ACTIVITY.format(pkg=app)} t12}}"
            if args[1:2] == ["top"]:
                inv.out(f"TASK {app} id=12 userId=0\n  ACTIVITY {ACTIVITY.format(pkg=app)} "
                        f"{_window_token(app)} pid=4242\n")
            else:
                inv.out("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                        f"  mResumedActivity: {record}\n  topResumedActivity={record}\n")
            return 0
        if service == "display":
            size = phone.call(phone.device.screen_size)
            inv.out(f"DISPLAY MANAGER (dumpsys display)\n  mDefaultViewport=DisplayViewport{{type=INTERNAL, "
                    f"valid=true, isActive=true, displayId=0, uniqueId='local:0', physicalPort=0, "
                    f"orientation=0, logicalFrame=Rect(0, 0 - {size.width}, {size.height}), "
                    f"deviceWidth={size.width}, deviceHeight={size.height}}}\n")
            return 0
        if service == "input_method":
            inv.out(f"  mCurMethodId={phone.settings['secure']['default_input_method']}\n")
            return 0
    except DeviceError as exc:
        return _device_failed(inv, exc)
    inv.err(f"Can't find service: {service}\n")
    return 0 if service else 1


@command("wm")
def _wm(inv: Invocation) -> int:
    args = inv.argv[1:]
    if args == ["size"]:
        try:
            size = inv.phone.call(inv.phone.device.screen_size)
        except DeviceError as exc:
            return _device_failed(inv, exc)
        inv.out(f"Physical size: {size.width}x{size.height}\n")
        return 0
    if args == ["density"]:
        inv.out("Physical density: 420\n")
        return 0
    return inv.fail("simulated: wm size, wm density (the simulated display cannot be resized)")


@command("getprop")
def _getprop(inv: Invocation) -> int:
    props = inv.phone.props()
    args = inv.argv[1:]
    if not args:
        inv.out("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))
        return 0
    default = args[1] if len(args) > 1 else ""
    inv.out(props.get(args[0], default) + "\n")
    return 0


@command("settings")
def _settings(inv: Invocation) -> int:
    args = inv.argv[1:]
    if len(args) >= 3 and args[0] in ("get", "put", "delete") and args[1] in inv.phone.settings:
        table = inv.phone.settings[args[1]]
        if args[0] == "get":
            inv.out(table.get(args[2], "null") + "\n")
        elif args[0] == "put" and len(args) >= 4:
            if args[1:3] == ["secure", "default_input_method"] and args[3] not in inv.phone.installed_imes:
                return inv.fail(f"input method {args[3]} is not installed")
            table[args[2]] = args[3]
        elif args[0] == "delete":
            table.pop(args[2], None)
            inv.out("Deleted 1 rows\n")
        else:
            return inv.fail("put: expected NAMESPACE KEY VALUE")
        return 0
    inv.err("usage:  settings [--user <USER_ID> | current] get|put|delete NAMESPACE KEY [VALUE]\n"
            "NAMESPACE is one of {system, secure, global}, case-insensitive\n")
    return 1


@command("ime")
def _ime(inv: Invocation) -> int:
    args = inv.argv[1:]
    phone = inv.phone
    if args[:1] == ["list"]:
        if "-s" in args:
            inv.out("".join(i + "\n" for i in phone.installed_imes))
        else:
            inv.out("".join(f"{i}:\n  mId={i}\n" for i in phone.installed_imes))
        return 0
    if args[:1] in (["set"], ["enable"]) and len(args) == 2:
        if args[1] not in phone.installed_imes:
            inv.err(f"Unknown input method {args[1]} cannot be selected for user #0\n")
            return 255
        if args[0] == "set":
            phone.settings["secure"]["default_input_method"] = args[1]
            inv.out(f"Input method {args[1]} selected for user #0\n")
        else:
            inv.out(f"Input method {args[1]}: already enabled for user #0\n")
        return 0
    return inv.fail("simulated: ime list [-s], ime set ID, ime enable ID")
