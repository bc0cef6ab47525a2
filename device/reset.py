"""Where an episode starts: the phone as it was left, or reset (``run --reset``, and a sweep before every episode).

A simulated phone built for the run (``--device sim``) is always fresh. A phone
reached over adb keeps whatever the previous run left on screen, so ``run``
says which state it starts from, and ``--reset`` puts it back through the
backend's hook, :meth:`~latent_agent.device.base.Device.reset`. The hook's
default is :func:`phone_reset`, the reset of a phone reached over adb:

* an emulator snapshot is loaded first when one is named (``run|sweep --snapshot``): ``adb -s
  emulator-N emu avd snapshot load NAME``, through the emulator's console; the snapshot is then the
  start state, and the phone is only brought home as below (a served simulated phone too, when it
  is served as an emulator: ``sim serve --emulator``);
* otherwise a served simulated phone (``sim serve``, recognized by the property it
  reports) resets fully: the shell command :data:`SIM_RESET` restores its
  initial seeded state (that of the episode's seed, when a sweep gives one),
  with the event noise of the trial that starts (``--trial N``, for a method
  that tries a goal again), as the simulated phone in process does;
* any other phone is brought home: the apps the last episode opened and the
  app in front are force-stopped (never the launcher or the system UI) and Home
  is pressed twice, closing shades and dialogs.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from latent_agent.device.adb_server.served_phone import NOISE_PROP, SIM_RESET
from latent_agent.device.base import Device, Key
from latent_agent.errors import ConfigError, DeviceError

#: Packages a reset never force-stops: stopping them resets nothing and can blank the screen.
KEEP_RUNNING = frozenset({
    "com.android.systemui",
    "com.google.android.apps.nexuslauncher",
    "com.android.launcher3",
    "com.android.launcher",
})
#: Seconds an ``adb emu`` snapshot load may take.
SNAPSHOT_TIMEOUT_S = 120.0
#: How many times a reset presses Home (the second closes what the first revealed: a shade, a dialog).
HOME_PRESSES = 2


@runtime_checkable
class ShellDevice(Protocol):
    """A backend that can run an adb shell command (``AdbDevice`` does)."""

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> object: ...


def shell_of(device: Device) -> ShellDevice | None:
    """The adb shell behind ``device``, if it has one (U2Device and AndroidEnvDevice keep an AdbDevice)."""
    if isinstance(device, ShellDevice):
        return device
    inner = getattr(device, "adb", None)
    return inner if isinstance(inner, ShellDevice) else None


def _stdout(result: object) -> str:
    data = getattr(result, "stdout", b"")
    return data.decode("utf-8", "replace").strip() if isinstance(data, bytes) else str(data).strip()


def is_served_sim(device: Device) -> bool:
    """Whether ``device`` is a simulated phone served over adb (``latent-agent sim serve``).

    Raises:
        DeviceError: If the device does not answer.
    """
    shell = shell_of(device)
    return shell is not None and bool(_stdout(shell.shell(["getprop", NOISE_PROP])))


def start_state(device: Device, *, fresh: bool) -> str:
    """Where an episode on ``device`` starts, in words, without changing anything.

    Args:
        device: The phone.
        fresh: Whether the device was built for this run (a new simulated phone).

    Raises:
        DeviceError: If the device does not answer.
    """
    seed = getattr(device, "seed", None)
    if fresh:
        return "a fresh simulated phone" + (f" (seed {seed})" if isinstance(seed, int) else "")
    what = "the served simulated phone" if is_served_sim(device) else "the phone"
    return (f"{what} as the last run left it: {device.foreground_package()} in front "
            "(not reset; --reset starts from a reset phone)")


def adb_binary() -> str:
    """The adb binary adbutils would use: ``ADBUTILS_ADB_PATH``, else ``adb`` on the PATH, else the one in its
    wheel (found without running it; ``"adb"`` when there is none, which fails as a missing binary)."""
    import os
    import shutil

    import adbutils.binaries

    bundled = Path(adbutils.binaries.__file__).parent / "adb"
    return os.environ.get("ADBUTILS_ADB_PATH") or shutil.which("adb") or (str(bundled) if bundled.is_file() else "adb")


def load_snapshot(serial: str, name: str, *, adb: str | None = None, timeout: float = SNAPSHOT_TIMEOUT_S) -> None:
    """Load an emulator snapshot through the emulator console (``adb -s emulator-N emu avd snapshot load NAME``).

    adb reads the console port from the serial (``emulator-N``: port N), so only emulators answer;
    the console's ``KO`` line is the emulator's refusal (adb itself exits 0 either way).

    Args:
        serial: The emulator's adb serial.
        name: The snapshot.
        adb: The adb binary; by default :func:`adb_binary`.
        timeout: Seconds the load may take.

    Raises:
        DeviceError: If adb is missing, times out or reports a failure.
    """
    command = [adb or adb_binary(), "-s", serial, "emu", "avd", "snapshot", "load", name]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise DeviceError(f"snapshot load needs the adb binary ({adb!r} not found on PATH)") from None
    except subprocess.TimeoutExpired:
        raise DeviceError(f"{' '.join(command)} did not finish within {timeout:.0f} s") from None
    output = (done.stdout + done.stderr).strip()
    # The emulator console answers "OK" or "KO: reason"; adb itself exits 0 either way.
    if done.returncode != 0 or any(line.startswith("KO") for line in output.splitlines()):
        raise DeviceError(f"{' '.join(command)} failed (exit {done.returncode}): {output[:300]}")


def _serial(device: Device, shell: ShellDevice | None) -> str:
    for holder in (shell, device):
        serial = getattr(holder, "serial", None)
        if isinstance(serial, str) and serial:
            return serial
    raise ConfigError(f"loading an emulator snapshot needs an emulator reached over adb; "
                      f"{type(device).__name__} has no adb serial")


def phone_reset(device: Device, *, seed: int | None = None, opened: Iterable[str] = (),
                snapshot: str | None = None, trial: int = 0) -> str:
    """The reset of a phone reached over adb (see the module docstring); returns what was done, in words.

    Args:
        device: The phone.
        seed: The seed a served simulated phone starts from (default: its own); other phones have none.
        opened: Packages the last episode brought to the foreground.
        snapshot: Emulator snapshot to load first, or None; once loaded it is the start state (a served
            simulated phone is then not reset to its seed, and draws no new noise for a trial).
        trial: The trial of an episode that starts (0-based): a served simulated phone draws that
            trial's event noise; other phones have no noise to draw and ignore it.

    Raises:
        DeviceError: If the device does not answer, a snapshot fails to load, or a served sim refuses the reset.
        ConfigError: If a snapshot is asked of a device without an adb serial.
    """
    shell = shell_of(device)
    done = ""
    if snapshot:
        load_snapshot(_serial(device, shell), snapshot)
        done = f"snapshot {snapshot!r} loaded, "
    if shell is not None and not snapshot and is_served_sim(device):
        command = [*SIM_RESET, *([str(seed)] if seed is not None else []), *(["--trial", str(trial)] if trial else [])]
        result = shell.shell(command)
        status = getattr(result, "status", 0)
        if status != 0:
            raise DeviceError(f"{' '.join(command)} failed on the served phone (exit {status}): {_stdout(result)}")
        return f"{done}the served simulated phone, {_stdout(result)}"
    stopping: list[str] = []
    if shell is not None:
        # What the episode opened, and whatever is in front now (it may have been opened last).
        stopping = sorted((set(opened) | {device.foreground_package()}) - KEEP_RUNNING - {""})
        for package in stopping:
            shell.shell(["am", "force-stop", package])
    for _ in range(HOME_PRESSES):
        device.press_key(Key.HOME)
    device.wait_for_idle()
    stopped = f", {', '.join(stopping)} force-stopped" if stopping else ""
    return f"{done}the home screen (Home pressed{stopped})"


def reset(device: Device, snapshot: str | None = None) -> str:
    """``run --reset``: reset ``device`` through its backend's hook; returns what was done, in words.

    Args:
        device: The phone.
        snapshot: The emulator snapshot to load first (``run --snapshot``), or None.

    Raises:
        DeviceError: If the device does not answer, or refuses the reset.
        ConfigError: If the backend cannot load a snapshot.
    """
    return device.reset(snapshot=snapshot)
