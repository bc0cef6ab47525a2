"""The real adb binary (from the adbutils wheel) against the served simulated phone."""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.device.sim.device import SimDevice
from tests.device_adb.conftest import Adb, Served, serve, stop
from tests.device_adb.fakes import RecordingDevice


@pytest.fixture(scope="module")
def sim_served(adb: Adb) -> Iterator[Served]:
    served = serve(adb, SimDevice(seed=3))
    yield served
    stop(adb, served)


def test_devices_lists_the_served_phone(adb: Adb, sim_served: Served) -> None:
    out = adb.run("devices", "-l").stdout.decode()
    line = next(ln for ln in out.splitlines() if ln.startswith(sim_served.serial))
    assert "\tdevice" in line or " device " in line
    assert "model:Pixel_7__latent_agent_sim_" in line


def test_dump_then_pull_yields_the_sims_xml(adb: Adb, sim_served: Served, tmp_path: Path) -> None:
    run = adb.run("-s", sim_served.serial, "shell", "uiautomator dump /sdcard/x.xml")
    assert run.returncode == 0
    assert run.stdout == b"UI hierchary dumped to: /sdcard/x.xml\n"
    pulled = tmp_path / "x.xml"
    assert adb.run("-s", sim_served.serial, "pull", "/sdcard/x.xml", str(pulled)).returncode == 0
    assert pulled.read_bytes() == sim_served.device.hierarchy().raw


def test_push_ls_cat_rm(adb: Adb, sim_served: Served, tmp_path: Path) -> None:
    local = tmp_path / "blob.bin"
    local.write_bytes(bytes(range(256)) * 700)  # crosses several sync DATA chunks
    assert adb.run("-s", sim_served.serial, "push", str(local), "/sdcard/Download/blob.bin").returncode == 0
    out = adb.run("-s", sim_served.serial, "exec-out", "cat /sdcard/Download/blob.bin").stdout
    assert out == local.read_bytes()
    back = tmp_path / "back.bin"
    adb.run("-s", sim_served.serial, "pull", "/sdcard/Download/blob.bin", str(back), check=True)
    assert back.read_bytes() == local.read_bytes()
    assert adb.run("-s", sim_served.serial, "shell", "ls /sdcard/Download").stdout == b"blob.bin\n"
    assert adb.run("-s", sim_served.serial, "shell", "rm /sdcard/Download/blob.bin").returncode == 0
    missing = adb.run("-s", sim_served.serial, "pull", "/sdcard/Download/blob.bin", str(back))
    assert missing.returncode != 0 and b"does not exist" in missing.stderr


def test_shell_exit_status_and_unknown_command(adb: Adb, sim_served: Served) -> None:
    run = adb.run("-s", sim_served.serial, "shell", "frobnicate")
    assert run.returncode == 127
    assert run.stderr == b"/system/bin/sh: frobnicate: not found\n"
    assert adb.run("-s", sim_served.serial, "shell", "exit 7").returncode == 7
    run = adb.run("-s", sim_served.serial, "shell", "getprop", "ro.build.version.sdk")
    assert run.stdout == b"34\n"


def test_interactive_shell_reads_stdin(adb: Adb, sim_served: Served, tmp_path: Path) -> None:
    script = tmp_path / "in.sh"
    script.write_text("echo first\nwm size\nexit 4\necho never\n")
    with script.open("rb") as f:
        run = adb.run("-s", sim_served.serial, "shell", stdin=f.fileno())
    assert run.stdout == b"first\nPhysical size: 1080x2400\n"
    assert run.returncode == 4


def test_exec_out_screencap_is_a_valid_png(adb: Adb) -> None:
    from PIL import Image

    served = serve(adb, RecordingDevice())
    try:
        png = adb.run("-s", served.serial, "exec-out", "screencap -p").stdout
        with Image.open(io.BytesIO(png)) as img:
            img.verify()
        assert png == served.device.screenshot()
        raw = adb.run("-s", served.serial, "exec-out", "screencap").stdout
        assert struct.unpack("<4I", raw[:16]) == (108, 240, 1, 1)
    finally:
        stop(adb, served)
