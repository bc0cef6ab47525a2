"""The served phone's shell: parsing and expansion like /system/bin/sh, commands mapped to Device calls."""

from __future__ import annotations

import base64

import pytest

from latent_agent.device.adb_server.commands import COMMANDS
from latent_agent.device.adb_server.served_phone import ServedPhone, ServerOptions
from latent_agent.device.adb_server.shell import BufferSink, ShellSession
from latent_agent.device.adb_server.shell_parse import ShellSyntaxError, parse
from latent_agent.device.base import Key
from tests.device_adb.fakes import RecordingDevice


def sh(line: str, phone: ServedPhone | None = None) -> tuple[str, str, int, RecordingDevice]:
    phone = phone or ServedPhone(RecordingDevice())
    sink = BufferSink()
    status = ShellSession(phone, COMMANDS).run(line, sink)
    assert isinstance(phone.device, RecordingDevice)
    return sink.stdout.decode(), sink.stderr.decode(), status, phone.device


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("echo a  b", "a b\n"),
        ("echo 'a  b'", "a  b\n"),
        ('echo "a  $HOME  b"', "a  /  b\n"),
        ("echo \\$HOME '$HOME'", "$HOME $HOME\n"),
        ('echo "\\$x \\"q\\" \\\\ \\n"', '$x "q" \\ \\n\n'),
        ("echo $(echo inner) `echo back`", "inner back\n"),
        ('echo "$(echo "nested quotes")"', "nested quotes\n"),
        ("X='1  2'; echo $X; echo \"$X\"", "1 2\n1  2\n"),
        ("false; echo $?; nope 2>/dev/null; echo $?", "1\n127\n"),
        ("true && echo yes || echo no; false && echo yes || echo no", "yes\nno\n"),
        ("echo a; echo b # comment; echo c", "a\nb\n"),
        ("echo hi | cat", "hi\n"),
        ("echo ~ ~/x '~'", "/ /x ~\n"),
        ("echo /sdcard/Dow* /sdcard/'Dow*' /nope/*", "/sdcard/Download /sdcard/Dow* /nope/*\n"),
        ("echo ''\"\" x", " x\n"),
        ("! false && echo negated", "negated\n"),
    ],
)
def test_expansion_matches_posix_sh(line: str, expected: str) -> None:
    out, _err, _status, _ = sh(line)
    assert out == expected


def test_unknown_command_answers_like_sh() -> None:
    out, err, status, _ = sh("frobnicate --now")
    assert (out, err, status) == ("", "/system/bin/sh: frobnicate: not found\n", 127)


@pytest.mark.parametrize(
    "line", ["echo 'open", 'echo "open', "echo $(open", "a && ", "; x", "if true; then x; fi", "echo `x"]
)
def test_syntax_errors(line: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse(line)
    _out, err, status, _ = sh(line)
    assert status == 1 and err.startswith("/system/bin/sh: ")


def test_redirections_and_files() -> None:
    phone = ServedPhone(RecordingDevice())
    out, _err, status, _ = sh(
        "echo one > /sdcard/f; echo two >> /sdcard/f; cat < /sdcard/f; nope 2>&1 | cat", phone
    )
    assert status == 0
    assert out == "one\ntwo\n/system/bin/sh: nope: not found\n"
    assert phone.vfs.read("/sdcard/f") == b"one\ntwo\n"
    _o, err, status, _ = sh("echo x > /missing/dir/f", phone)
    assert status == 1 and "can't create /missing/dir/f" in err
    _o, _e, status, _ = sh("rm /sdcard/f && cat /sdcard/f", phone)
    assert status == 1 and phone.vfs.stat("/sdcard/f") is None


def test_quoted_metacharacters_never_execute() -> None:
    phone = ServedPhone(RecordingDevice())
    payload = "$(touch /sdcard/a) `touch /sdcard/b` ; touch /sdcard/c && touch /sdcard/d | x > /sdcard/e"
    quoted = "'" + payload.replace("'", "'\\''") + "'"
    _o, _e, status, dev = sh(f"input text {quoted}", phone)
    assert status == 0
    assert dev.field == payload
    assert phone.vfs.listdir("/sdcard") == [
        (n, s) for n, s in phone.vfs.listdir("/sdcard") if n in ("Download", "Pictures")
    ]
    assert [a[0] for a in phone.audit] == ["input"]
    # The same text unquoted does run the commands: the check above can fail.
    sh(f"input text {payload}", phone)
    assert phone.vfs.stat("/sdcard/a") is not None and phone.vfs.stat("/sdcard/c") is not None


def test_input_commands_map_to_device_calls() -> None:
    _o, err, status, dev = sh(
        "input tap 10 20; input swipe 1 2 3 4 500; input swipe 5 5 5 5 800; "
        "input swipe 5 5 5 5 100; input draganddrop 1 1 9 9; input keyevent KEYCODE_BACK 3; "
        "input touchscreen -d 0 tap 7.6 8.2; input keyevent 284"
    )
    assert status == 0, err
    assert dev.calls == [
        ("tap", 10, 20),
        ("swipe", 1, 2, 3, 4, 500),
        ("long_press", 5, 5, 800),
        ("tap", 5, 5),
        ("swipe", 1, 1, 9, 9, 300),
        ("press_key", Key.BACK),
        ("press_key", Key.HOME),
        ("tap", 8, 8),
        ("launch_activity", "app_drawer"),
    ]


def test_input_text_percent_s_and_unmappable() -> None:
    _o, _e, status, dev = sh("input text 'a%sb%%s'")
    assert status == 0 and dev.field == "a b% "
    _o, err, status, dev = sh("input text 'héllo'")
    assert status == 1 and "cannot map" in err and dev.field == ""
    _o, err, status, _ = sh("input keyevent KEYCODE_VOLUME_UP")
    assert status == 1 and "not simulated" in err


def test_adb_keyboard_broadcast_depends_on_option() -> None:
    text = "Grüße 👋\n\tשלום"
    b64 = base64.b64encode(text.encode()).decode()
    out, _e, status, dev = sh(f"am broadcast -a ADB_INPUT_B64 --es msg {b64}")
    assert status == 0 and dev.field == text and "Broadcast completed: result=0" in out
    phone = ServedPhone(RecordingDevice(), ServerOptions(adb_keyboard=False))
    out, _e, status, dev = sh(f"am broadcast -a ADB_INPUT_B64 --es msg {b64}", phone)
    # Without the IME nobody receives the broadcast: it "completes" and nothing is typed.
    assert status == 0 and dev.field == "" and "Broadcast completed" in out
    out, _e, _s, _ = sh("settings get secure default_input_method; ime list -s", phone)
    assert "adbkeyboard" not in out


def test_apps_and_system_state() -> None:
    phone = ServedPhone(RecordingDevice())
    out, _e, status, dev = sh("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1", phone)
    assert status == 0 and "Events injected: 1" in out and dev.package == "com.android.settings"
    out, _e, _s, _ = sh("dumpsys window windows; dumpsys activity activities", phone)
    assert "mCurrentFocus=Window{" in out and "u0 com.android.settings/.MainActivity}" in out
    assert "mResumedActivity: ActivityRecord{" in out
    _o, err, status, _ = sh("monkey -p com.nope -c android.intent.category.LAUNCHER 1", phone)
    assert status == 252 and "No activities found" in err
    out, _e, status, dev = sh("am start -n com.android.chrome/.Main && cmd statusbar expand-settings", phone)
    assert status == 0 and dev.calls[-2:] == [
        ("launch_package", "com.android.chrome"),
        ("launch_activity", "quick_settings"),
    ]
    out, _e, _s, _ = sh("dumpsys window", phone)
    assert "NotificationShade" in out
    out, _e, _s, _ = sh("dumpsys activity activities", phone)
    assert "com.android.chrome/" in out  # the app under the shade stays resumed
    out, _e, _s, dev = sh(
        "cmd statusbar collapse; wm size; getprop ro.build.version.sdk; pm list packages chrome", phone
    )
    assert dev.calls[-1] == ("press_key", Key.BACK)
    assert out == "Physical size: 1080x2400\n34\npackage:com.android.chrome\n"
    out, _e, _s, _ = sh(
        "cmd package query-activities -a android.intent.action.MAIN -c android.intent.category.LAUNCHER",
        phone,
    )
    assert out.startswith("3 activities found:") and "nonLocalizedLabel=Clock icon=" in out
    _o, err, status, _ = sh("cmd nosuch", phone)
    assert status == 20 and "Can't find service: nosuch" in err


def test_uiautomator_dump_and_idle_failures() -> None:
    phone = ServedPhone(RecordingDevice(), ServerOptions(idle_failures=1))
    _o, err, status, _ = sh("uiautomator dump /sdcard/d.xml", phone)
    assert (
        status == 0
        and err == "ERROR: could not get idle state.\n"
        and phone.vfs.stat("/sdcard/d.xml") is None
    )
    out, _e, status, dev = sh("uiautomator dump /sdcard/d.xml", phone)
    assert out == "UI hierchary dumped to: /sdcard/d.xml\n"
    assert phone.vfs.read("/sdcard/d.xml") == dev.hierarchy().raw
    out, _e, _s, _ = sh("uiautomator dump /dev/tty", phone)
    assert out.startswith("<?xml") and out.endswith("UI hierchary dumped to: /dev/tty\n")


def test_screencap_png_and_raw() -> None:
    phone = ServedPhone(RecordingDevice())
    sink = BufferSink()
    ShellSession(phone, COMMANDS).run("screencap -p; screencap /sdcard/s.png", sink)
    assert bytes(sink.stdout) == phone.device.screenshot()
    assert phone.vfs.read("/sdcard/s.png") == phone.device.screenshot()
    sink = BufferSink()
    ShellSession(phone, COMMANDS).run("screencap", sink)
    assert sink.stdout[:16] == (108).to_bytes(4, "little") + (240).to_bytes(4, "little") + bytes(
        [1, 0, 0, 0, 1, 0, 0, 0]
    )
    assert len(sink.stdout) == 16 + 108 * 240 * 4


def test_dumpsys_output_is_the_same_in_every_process() -> None:
    """Window tokens must not come from str hash(), which PYTHONHASHSEED changes per process."""
    import os
    import subprocess
    import sys

    code = (
        "from latent_agent.device.adb_server.commands import COMMANDS\n"
        "from latent_agent.device.adb_server.served_phone import ServedPhone\n"
        "from latent_agent.device.adb_server.shell import BufferSink, ShellSession\n"
        "from tests.device_adb.fakes import RecordingDevice\n"
        "sink = BufferSink()\n"
        "ShellSession(ServedPhone(RecordingDevice()), COMMANDS).run('dumpsys window; dumpsys activity', sink)\n"
        "print(sink.stdout.decode())\n"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1 and "mCurrentFocus=Window{" in outs.pop()
