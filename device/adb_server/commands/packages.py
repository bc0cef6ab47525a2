"""Apps and activities: ``am``, ``monkey``, ``pm`` and the ``cmd`` services that front them."""

from __future__ import annotations

import base64
import binascii

from latent_agent.device.adb_server.commands.registry import ACTIVITY, Registry, device_failed
from latent_agent.device.adb_server.commands.ui import input_command
from latent_agent.device.adb_server.served_phone import SYSTEM_UI
from latent_agent.device.adb_server.shell import Invocation
from latent_agent.device.base import Key
from latent_agent.errors import AppNotFoundError, DeviceError

COMMANDS = Registry()
command = COMMANDS.command


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
        return device_failed(inv, exc)
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
        return device_failed(inv, exc)
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
        return device_failed(inv, exc)
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
            return input_command(inv)
    except DeviceError as exc:
        return device_failed(inv, exc)
    inv.err(f"cmd: Can't find service: {service}\n")
    return 20
