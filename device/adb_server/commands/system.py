"""System state: ``dumpsys``, ``wm``, ``getprop``, ``settings`` and ``ime``."""

from __future__ import annotations

import zlib

from latent_agent.device.adb_server.commands.registry import ACTIVITY, Registry, device_failed
from latent_agent.device.adb_server.served_phone import SIM_RESET, SYSTEM_UI
from latent_agent.device.adb_server.shell import Invocation
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import DeviceError

COMMANDS = Registry()
command = COMMANDS.command


def _window_token(pkg: str) -> str:
    # A stable stand-in for the identity hash Android prints (str hash() changes per process).
    return f"{zlib.crc32(pkg.encode()) & 0xFFFFFFF:07x}"


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
        return device_failed(inv, exc)
    inv.err(f"Can't find service: {service}\n")
    return 0 if service else 1


@command("wm")
def _wm(inv: Invocation) -> int:
    args = inv.argv[1:]
    if args == ["size"]:
        try:
            size = inv.phone.call(inv.phone.device.screen_size)
        except DeviceError as exc:
            return device_failed(inv, exc)
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


@command(SIM_RESET[0])
def _latent_sim(inv: Invocation) -> int:
    """``latent-sim reset [SEED] [--trial N]``: put a served simulated phone back in its initial seeded state
    (``run --reset``), or in that of another seed (a sweep's episode); ``--trial N`` starts trial N of an
    episode (0-based): the same start state, with that trial's own event noise (``SimDevice.reset(trial=)``).

    A real phone has no such command (the shell answers "not found"), which is how a caller tells them apart.
    """
    args = inv.argv[1:]
    usage = f"usage: {' '.join(SIM_RESET)} [SEED] [--trial N]"
    if args[:1] != list(SIM_RESET[1:]):
        return inv.fail(usage)
    rest, trial = args[1:], 0
    if "--trial" in rest:
        at = rest.index("--trial")
        if at + 1 >= len(rest) or not rest[at + 1].isdigit():
            return inv.fail(usage)
        trial = int(rest[at + 1])
        rest = rest[:at] + rest[at + 2:]
    if len(rest) > 1 or (rest and not rest[0].isdigit()):
        return inv.fail(usage)
    device = inv.phone.device
    if not isinstance(device, SimDevice):
        return inv.fail("this served device is not a simulated phone; it cannot be reset")
    seed = int(rest[0]) if rest else None
    inv.phone.call(lambda: device.reset(seed=seed, trial=trial))
    again = f", trial {trial + 1}'s noise" if trial else ""
    inv.out(f"reset to the initial state of seed {device.seed}{again}\n")
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
