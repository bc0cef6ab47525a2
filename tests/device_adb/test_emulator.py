"""The served phone as an emulator: its console, ``adb emu avd snapshot ...`` through the real adb binary, and
``Device.reset(snapshot=)`` (before an episode and between a retrying method's trials) loading a snapshot."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from latent_agent.device.adb import AdbDevice
from latent_agent.device.adb_server.emulator import BOOT_SNAPSHOT, TOKEN_FILE, EmulatorServer, read_token
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError, DeviceError
from tests.device_adb.conftest import Adb

TOKEN = "s3cret-token"
SETTINGS = "com.android.settings"


@dataclass
class Emulator:
    server: EmulatorServer
    sim: SimDevice
    phone: AdbDevice
    home: Path

    def emu(self, adb: Adb, *args: str, home: Path | None = None) -> str:
        """``adb -s emulator-N emu ARGS`` as a user whose home holds ``home``'s token file."""
        done = subprocess.run([str(adb.path), "-P", str(adb.port), "-s", self.server.serial, "emu", *args],
                              env=dict(adb.env, HOME=str(home or self.home)), capture_output=True, timeout=20,
                              check=False)
        assert done.returncode == 0, done.stderr
        return str(done.stdout.decode())


@pytest.fixture
def emulator(adb: Adb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    home = tmp_path / "home"
    home.mkdir()
    (home / TOKEN_FILE).write_text(TOKEN + "\n")
    monkeypatch.setenv("HOME", str(home))  # the adb that Device.reset runs reads the token from there
    sim = SimDevice(seed=1)
    server = EmulatorServer(sim, auth_token=read_token(home)).start()
    try:
        server.register(adb.port)
        adb.run("-s", server.serial, "wait-for-device", timeout=10, check=True)
        yield Emulator(server, sim, AdbDevice(server.serial, adb_port=adb.port), home)
    finally:
        adb.run("disconnect", server.serial)
        server.close()


def test_adb_lists_it_as_an_emulator_and_its_console_takes_snapshots(adb: Adb, emulator: Emulator) -> None:
    serial = emulator.server.serial
    assert re.fullmatch(r"emulator-\d*[02468]", serial)
    assert f"{serial}\tdevice" in adb.run("devices").stdout.decode()
    assert emulator.phone.screen_size().width == 1080  # adbd answers on the console's port + 1
    assert emulator.emu(adb, "avd", "name") == "latent_sim\r\nOK\r\n"
    emulator.sim.state.settings.network.roaming = False
    assert emulator.emu(adb, "avd", "snapshot", "save", "roaming-off") == "OK\r\n"
    assert emulator.emu(adb, "avd", "snapshot", "list") == \
        f"List of snapshots present on all disks:\r\n{BOOT_SNAPSHOT}\r\nroaming-off\r\nOK\r\n"
    assert emulator.emu(adb, "avd", "snapshot", "load", "nope") == "KO: snapshot 'nope' does not exist\r\n"
    assert emulator.emu(adb, "avd", "kill") == "KO: unknown command, try 'help'\r\n"
    # Without the right token nothing but auth, help and quit is answered.
    other = emulator.home.parent / "other"
    other.mkdir()
    (other / TOKEN_FILE).write_text("wrong")
    assert "KO: authentication token does not match" in emulator.emu(adb, "avd", "snapshot", "list", home=other)


def test_a_reset_with_a_snapshot_loads_it_through_adb_emu_then_goes_home(adb: Adb, emulator: Emulator) -> None:
    sim, phone = emulator.sim, emulator.phone
    sim.state.settings.network.roaming = False
    emulator.emu(adb, "avd", "snapshot", "save", "roaming-off")
    sim.state.settings.network.roaming = True
    phone.open_app("Settings")
    assert phone.foreground_package() == SETTINGS
    assert phone.reset(seed=1, opened=[SETTINGS], snapshot="roaming-off") == \
        f"snapshot 'roaming-off' loaded, the home screen (Home pressed, {SETTINGS} force-stopped)"
    # The snapshot is the start state: the served sim is not reset to its seed on top of it.
    assert sim.state.settings.network.roaming is False and phone.foreground_package() != SETTINGS
    phone.reset(snapshot=BOOT_SNAPSHOT)  # the state it was served in (then Home, which the state's history keeps)
    assert sim.state.settings.network.roaming is True
    assert repr(sim.state.settings) == repr(SimDevice(seed=1).state.settings)
    with pytest.raises(DeviceError, match="KO: snapshot 'nope' does not exist"):
        phone.reset(snapshot="nope")


def test_the_trials_of_an_episode_start_from_the_snapshot(emulator: Emulator, tmp_path: Path) -> None:
    from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
    from latent_agent.agent.trajectory import read_trajectory
    from latent_agent.benchmarks.sim_tasks import load_suite
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.llm.scripted import ScriptedModel
    from latent_agent.llm.types import GenerationRequest

    task = next(t for t in load_suite() if t.id == "settings_roaming_off")
    plans = 0

    def early_done(request: GenerationRequest) -> object:
        """The demo, except that its fourth plan (before tapping Roaming) says DONE."""
        nonlocal plans
        if request.purpose == "plan":
            plans += 1
            if plans == 4:
                return "DONE"
        return DemoOracle()(request)

    config = EpisodeConfig(task.goal, "reflection-check", grounder="llm", screenshots=False, seed=1,
                           trial_check=lambda _: task.succeeded(emulator.sim.state), reset_snapshot=BOOT_SNAPSHOT)
    result = run_episode_sync(config, emulator.phone, ScriptedModel(responder=early_done), tmp_path / "ep")
    t = read_trajectory(result.directory)
    assert [r.checked for r in t.trials] == [False, True]
    assert t.trials[0].reset.startswith(f"snapshot '{BOOT_SNAPSHOT}' loaded, the home screen")
    assert task.succeeded(emulator.sim.state)


def test_a_console_session_by_hand() -> None:
    with EmulatorServer(SimDevice(), auth_token=TOKEN) as server, \
            socket.create_connection(("127.0.0.1", server.console_port), timeout=5) as sock:
        lines = sock.makefile("rb")

        def ask(line: str) -> list[str]:
            sock.sendall(line.encode() + b"\n")
            out = []
            while not out or not (out[-1] == "OK" or out[-1].startswith("KO")):
                out.append(lines.readline().decode().rstrip("\r\n"))
            return out

        greeting = []
        while not greeting or greeting[-1] != "OK":
            greeting.append(lines.readline().decode().rstrip("\r\n"))
        assert greeting[0] == "Android Console: Authentication required"
        assert ask("avd snapshot list") == ["KO: unknown command, try 'help'"]
        assert ask("help")[-1] == "OK"
        assert ask("auth nope")[0].startswith("KO: authentication token does not match")
        assert ask(f"auth {TOKEN}") == ["Android Console: type 'help' for a list of commands", "OK"]
        assert ask("avd snapshot save bad/name")[0].startswith("KO: bad snapshot name 'bad/name'")
        assert ask("avd snapshot load") == ["KO: usage: avd snapshot list | avd snapshot save|load|delete NAME"]
        assert ask("avd snapshot delete x") == ["KO: snapshot 'x' does not exist"]
        assert ask("avd snapshot save x") == ["OK"] and ask("avd snapshot delete x") == ["OK"]
        sock.sendall(b"quit\n")
        assert lines.readline() == b""  # the console closes the session


def test_an_odd_console_port_is_refused_and_the_token_is_read_as_the_emulator_reads_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="console port is even"):
        EmulatorServer(SimDevice(), console_port=5555)
    assert read_token(tmp_path) is None
    (tmp_path / TOKEN_FILE).write_text("")
    assert read_token(tmp_path) is None  # an empty file: no authentication
    (tmp_path / TOKEN_FILE).write_text(" abc\n")
    assert read_token(tmp_path) == "abc"


def test_sim_serve_emulator_registers_with_the_adb_server_and_answers_adb_emu(adb: Adb, tmp_path: Path) -> None:
    import sys

    (tmp_path / TOKEN_FILE).write_text(TOKEN)
    env = dict(adb.env, HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "latent_agent.device.adb_server", "--port", "0", "--emulator",
                             "--seed", "2"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        found = re.search(r"as (emulator-\d+): console 127\.0\.0\.1:(\d+), adbd 127\.0\.0\.1:(\d+)", line)
        assert found is not None, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        serial, console, adbd = found.group(1), int(found.group(2)), int(found.group(3))
        assert serial == f"emulator-{console}" and adbd == console + 1
        adb.run("-s", serial, "wait-for-device", timeout=10, check=True)
        listed = subprocess.run([str(adb.path), "-P", str(adb.port), "-s", serial, "emu", "avd", "snapshot", "list"],
                                env=env, capture_output=True, timeout=20, check=True)
        assert listed.stdout.decode() == f"List of snapshots present on all disks:\r\n{BOOT_SNAPSHOT}\r\nOK\r\n"
        assert adb.run("-s", serial, "shell", "getprop", "ro.latentagent.sim.noise").returncode == 0
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_sim_serve_emulator_without_an_adb_server_says_so_in_one_line(tmp_path: Path) -> None:
    import sys

    from tests.device_adb.conftest import free_port

    env = dict(os.environ, HOME=str(tmp_path), ANDROID_ADB_SERVER_PORT=str(free_port()))
    done = subprocess.run([sys.executable, "-m", "latent_agent.device.adb_server", "--port", "0", "--emulator"],
                          env=env, capture_output=True, timeout=30, check=False)
    err = done.stderr.decode()
    assert done.returncode != 0 and "no adb server answers on 127.0.0.1:" in err and err.count("\n") == 1, err


#: The snapshot each sweep job was handed (read by the test below; the sweep runs in this process).
HANDED: list[str | None] = []


def handing_runner(job: object) -> Path:
    """The sweep's real runner, noting the snapshot its trials would load."""
    from latent_agent.benchmarks.episodes import EpisodeJob, agent_runner

    assert isinstance(job, EpisodeJob)
    HANDED.append(job.reset_snapshot)
    return agent_runner(job)


def test_sweep_snapshot_reaches_the_resets_between_trials(tmp_path: Path) -> None:
    from latent_agent.cli.main import main

    HANDED.clear()
    assert main(["sweep", "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "reflection",
                 "--devices", "sim", "--llm", "demo", "--snapshot", "clean", "--out", str(tmp_path / "sweep"),
                 "--runner", f"{__name__}:handing_runner", "--no-screenshots", "--no-progress"]) == 0
    assert HANDED == ["clean"]


def test_run_reset_snapshot_starts_from_the_snapshot(emulator: Emulator, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.agent.trajectory import read_trajectory
    from latent_agent.cli.main import main

    emulator.sim.open_app("Settings")
    emulator.sim.state.settings.network.roaming = False  # the snapshot has it on: the run must turn it off again
    out = tmp_path / "ep"
    assert main(["run", "Turn off data roaming", "--device", f"adb:{emulator.server.serial}", "--llm", "demo",
                 "--method", "reflection", "--reset", "--snapshot", BOOT_SNAPSHOT, "--no-screenshots",
                 "--out", str(out)]) == 0, capsys.readouterr().err
    said = " ".join(capsys.readouterr().out.split())
    assert f"starting from snapshot '{BOOT_SNAPSHOT}' loaded, the home screen" in said
    assert read_trajectory(out).steps[0].selected_step == "Open the Settings app"  # from home, not from Settings
    assert emulator.sim.state.settings.network.roaming is False


def test_run_refuses_a_snapshot_for_the_sim_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli.main import main

    out = tmp_path / "ep"
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--snapshot", "clean",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--snapshot clean loads an emulator snapshot; --device sim resets exactly" in err and err.count("\n") == 1
    assert not out.exists()
