"""AdbDevice through the real adb server against the served simulated phone."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from xml.etree import ElementTree

import pytest

from latent_agent.device.adb import AdbDevice, input_text_chunks, label_for, parse_launcher_activities
from latent_agent.device.adb_server import ServerOptions
from latent_agent.device.base import Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import AppNotFoundError, DeviceConnectionError, DeviceError, DeviceTimeoutError
from tests.device_adb.adversarial import adversarial_strings
from tests.device_adb.conftest import Adb, Served, free_port, serve, stop


@pytest.fixture(scope="module")
def sim_served(adb: Adb) -> Iterator[Served]:
    served = serve(adb, SimDevice(seed=5))
    yield served
    stop(adb, served)


def focus_search_field(dev: AdbDevice, sim: SimDevice) -> None:
    """Open the app drawer and tap its search box, all through adb."""
    dev.launch_activity("app_drawer")
    box = next(n for n in dev.hierarchy().tree.iter() if n.class_name.endswith("EditText"))
    assert box.bounds is not None
    dev.tap(*box.bounds.center)
    assert focused_text(sim) == ""


def focused_text(sim: SimDevice) -> str:
    # From the raw dump: the parsed tree cuts long text (accessibility/text_cap.py), the typing test
    # accumulates more than that, and it checks what arrived, not what the agent is shown.
    nodes = [n for n in ElementTree.fromstring(sim.hierarchy().raw).iter("node") if n.get("focused") == "true"]
    assert len(nodes) == 1, "exactly one focused field expected"
    return nodes[0].get("text", "")


def test_observation_matches_the_sim(sim_served: Served) -> None:
    sim = sim_served.device
    assert isinstance(sim, SimDevice)
    dev = AdbDevice(sim_served.serial)
    assert dev.screen_size() == sim.screen_size()
    assert dev.foreground_package() == sim.foreground_package()
    h = dev.hierarchy()
    assert h.raw == sim.hierarchy().raw and h.format == "uiautomator"
    assert h.tree.node_count == sim.hierarchy().tree.node_count
    assert dev.launcher_apps() == dict(sim.launcher_apps())


def test_actions_reach_the_sim(sim_served: Served) -> None:
    sim = sim_served.device
    assert isinstance(sim, SimDevice)
    dev = AdbDevice(sim_served.serial)
    label, package = next(iter(sim.launcher_apps().items()))
    assert dev.open_app(label.lower()) == package
    assert sim.foreground_package() == package
    dev.launch_activity("quick_settings")
    assert sim.foreground_package() == dev.foreground_package() == "com.android.systemui"
    dev.press_key(Key.HOME)
    assert sim.foreground_package() == dev.foreground_package() == "com.google.android.apps.nexuslauncher"
    with pytest.raises(AppNotFoundError):
        dev.launch_package("com.example.not.installed")
    with pytest.raises(AppNotFoundError):
        dev.launch_package("bad; touch /sdcard/x")


def test_200_adversarial_strings_arrive_byte_for_byte(sim_served: Served) -> None:
    sim = sim_served.device
    assert isinstance(sim, SimDevice)
    dev = AdbDevice(sim_served.serial)
    focus_search_field(dev, sim)
    phone = sim_served.server.phone
    files_before = phone.vfs.listdir("/sdcard")
    phone.audit.clear()
    strings = adversarial_strings()
    assert len(strings) == 200 and max(map(len, strings)) == 1000
    typed = ""
    for s in strings:
        dev.input_text(s)
        typed += s
        assert focused_text(sim) == typed, f"typing {s!r} went wrong"
    assert phone.vfs.listdir("/sdcard") == files_before
    assert {argv[0] for argv in phone.audit} <= {"input", "settings", "am"}
    assert all(argv[:2] == ("input", "text") for argv in phone.audit if argv[0] == "input")
    dev.press_key(Key.HOME)


def test_non_ascii_without_adb_keyboard_fails_clearly(adb: Adb) -> None:
    sim = SimDevice(seed=5)
    served = serve(adb, sim, ServerOptions(adb_keyboard=False))
    try:
        dev = AdbDevice(served.serial)
        focus_search_field(dev, sim)
        dev.input_text("plain ascii %s ok")
        with pytest.raises(DeviceError, match="ADB Keyboard"):
            dev.input_text("naïve")
        with pytest.raises(DeviceError, match="U\\+000A"):
            dev.input_text("two\nlines")
        assert focused_text(sim) == "plain ascii %s ok"
    finally:
        stop(adb, served)


def test_dump_retries_on_idle_failures_then_gives_up(adb: Adb) -> None:
    served = serve(adb, SimDevice(seed=1), ServerOptions(idle_failures=2))
    try:
        dev = AdbDevice(served.serial, dump_retries=2)
        assert dev.hierarchy().raw == served.device.hierarchy().raw
        served.server.phone._idle_failures_left = 5
        with pytest.raises(DeviceTimeoutError, match="not idle"):
            AdbDevice(served.serial, dump_retries=1).hierarchy()
    finally:
        stop(adb, served)


def test_slow_dump_times_out(adb: Adb) -> None:
    # The dump would take a minute; without the deadline hierarchy() would succeed after it.
    served = serve(adb, SimDevice(seed=1), ServerOptions(dump_delay=60.0))
    try:
        dev = AdbDevice(served.serial, dump_timeout=0.5)
        with pytest.raises(DeviceTimeoutError, match=r"within 0\.5 s"):
            dev.hierarchy()
    finally:
        stop(adb, served)


def test_unknown_serial_is_a_connection_error(adb: Adb) -> None:
    with pytest.raises(DeviceConnectionError, match="not found"):
        AdbDevice("no-such-serial")
    with pytest.raises(DeviceConnectionError):
        AdbDevice(f"127.0.0.1:{free_port()}", timeout=3)


def test_killing_the_server_mid_command_raises_a_device_error(adb: Adb) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "latent_agent.device.adb_server", "--port", str(port), "--seed", "2",
         "--dump-delay", "600", "--verbose"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    commands: queue.Queue[bytes] = queue.Queue()

    def read_log() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            commands.put(line)

    threading.Thread(target=read_log, daemon=True).start()
    try:
        assert proc.stdout is not None
        assert b"serving the simulated phone" in proc.stdout.readline()
        adb.connect(f"127.0.0.1:{port}")
        dev = AdbDevice(f"127.0.0.1:{port}", dump_timeout=60)
        errors: list[BaseException] = []

        def dump() -> None:
            try:
                dev.hierarchy()
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=dump)
        t.start()
        # Kill only once the phone is inside the (ten-minute) dump: truly mid-command.
        while b"run: uiautomator dump" not in commands.get(timeout=60):
            pass
        proc.kill()
        t.join(60)
        assert not t.is_alive(), "hierarchy() hung after the device died"
        assert len(errors) == 1 and isinstance(errors[0], DeviceConnectionError), errors
        with pytest.raises(DeviceError):
            dev.tap(1, 1)
    finally:
        proc.kill()
        proc.wait(10)
        adb.run("disconnect", f"127.0.0.1:{port}")


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("abc", ["abc"]),
        ("a%sb", ["a%", "sb"]),
        ("%s%s", ["%", "s%", "s"]),
        ("%%s", ["%%", "s"]),
        ("x" * 1200, ["x" * 500, "x" * 500, "x" * 200]),
        ("%", ["%"]),
        ("s%", ["s%"]),
    ],
)
def test_input_text_chunks_never_hold_percent_s(text: str, pieces: list[str]) -> None:
    assert input_text_chunks(text) == pieces
    assert "".join(pieces) == text


def test_launcher_labels() -> None:
    out = (
        "2 activities found:\n  Activity #0:\n    ActivityInfo:\n      packageName=com.android.chrome\n"
        "      labelRes=0x7f1200 nonLocalizedLabel=null icon=0x0 banner=0x0\n  Activity #1:\n"
        "    ActivityInfo:\n      packageName=org.example.notes_app\n"
        "      labelRes=0x0 nonLocalizedLabel=My Notes icon=0x0 banner=0x0\n"
    )
    assert parse_launcher_activities(out) == {
        "Chrome": "com.android.chrome",
        "My Notes": "org.example.notes_app",
    }
    assert label_for("com.google.android.apps.maps") == "Maps"
    assert label_for("org.example.notes_app") == "Notes App"
