"""A phone reached over an adb server: the base of every adb backend (adb, uiautomator2, AndroidEnv) and its reset.

:class:`AdbPhone` is what those backends have in common: an adb serial and a shell on the phone, through which
it resets (:meth:`AdbPhone.reset`):

* an emulator snapshot is loaded first when one is named (``run|sweep --snapshot``): ``adb -s
  emulator-N emu avd snapshot load NAME``, through the emulator's console; the snapshot is then the
  start state, and the phone is only brought home as below (a served simulated phone too, when it
  is served as an emulator: ``sim serve --emulator``);
* otherwise a served simulated phone (``sim serve``, recognized by the property it
  reports: :meth:`AdbPhone.serves_sim`) resets fully: the shell command
  :data:`~latent_agent.device.adb_server.served_phone.SIM_RESET` restores its initial seeded state
  (that of the episode's seed, when a sweep gives one), with the event noise of the trial that starts
  (``--trial N``, for a method that tries a goal again), as the simulated phone in process does;
* any other phone is brought home: the apps the last episode opened and the
  app in front are force-stopped (never the launcher or the system UI) and Home
  is pressed twice, closing shades and dialogs.
"""

from __future__ import annotations

import abc
import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.device.adb_server.served_phone import NOISE_PROP, SIM_RESET
from latent_agent.device.base import Device, press_home
from latent_agent.errors import DeviceError

#: Packages a reset never force-stops: stopping them resets nothing and can blank the screen.
KEEP_RUNNING = frozenset({
    "com.android.systemui",
    "com.google.android.apps.nexuslauncher",
    "com.android.launcher3",
    "com.android.launcher",
})
#: Seconds an ``adb emu`` snapshot load may take.
SNAPSHOT_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class ShellResult:
    """Output of one shell command.

    Attributes:
        stdout: Standard output bytes.
        stderr: Standard error bytes (merged into ``stdout`` on devices without shell v2).
        status: Exit status (0 on devices without shell v2 unless the command printed one).
    """

    stdout: bytes
    stderr: bytes
    status: int

    def text(self) -> str:
        return (self.stdout + self.stderr).decode("utf-8", "replace")

    def out(self) -> str:
        """Standard output as text, stripped."""
        return self.stdout.decode("utf-8", "replace").strip()


def adb_binary() -> str:
    """The adb binary adbutils would use: ``ADBUTILS_ADB_PATH``, else ``adb`` on the PATH, else the one in its
    wheel (found without running it; ``"adb"`` when there is none, which fails as a missing binary)."""
    import adbutils.binaries  # the adb extra: only a phone over adb gets here

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


class AdbPhone(Device):
    """A phone reached over an adb server: it has a serial and a shell, and resets as the module docstring says.

    Attributes:
        serial: The phone's adb serial (``adb -s SERIAL``).
    """

    serial: str

    @abc.abstractmethod
    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        """Run one command on the phone (its words given separately) within ``timeout`` seconds.

        Raises:
            DeviceTimeoutError: If the command does not finish in time.
            DeviceConnectionError: If the adb server or device is gone or drops mid-command.
        """

    def serves_sim(self) -> bool:
        """Whether this is a simulated phone served over adb (``latent-agent sim serve``).

        Raises:
            DeviceError: If the device does not answer.
        """
        return bool(self.shell(["getprop", NOISE_PROP]).out())

    def reset(self, *, seed: int | None = None, opened: Iterable[str] = (), snapshot: str | None = None,
              trial: int = 0) -> str:
        """The reset of a phone reached over adb (see the module docstring); returns what was done, in words.

        Args:
            seed: The seed a served simulated phone starts from (default: its own); other phones have none.
            opened: Packages the last episode brought to the foreground.
            snapshot: Emulator snapshot to load first, or None; once loaded it is the start state (a served
                simulated phone is then not reset to its seed, and draws no new noise for a trial).
            trial: The trial of an episode that starts (0-based): a served simulated phone draws that
                trial's event noise; other phones have no noise to draw and ignore it.

        Raises:
            DeviceError: If the device does not answer, a snapshot fails to load, or a served sim refuses the reset.
        """
        done = ""
        if snapshot:
            load_snapshot(self.serial, snapshot)
            done = f"snapshot {snapshot!r} loaded, "
        elif self.serves_sim():
            command = [*SIM_RESET, *([str(seed)] if seed is not None else []),
                       *(["--trial", str(trial)] if trial else [])]
            result = self.shell(command)
            if result.status != 0:
                raise DeviceError(f"{' '.join(command)} failed on the served phone (exit {result.status}): "
                                  f"{result.out()}")
            return f"the served simulated phone, {result.out()}"
        # What the episode opened, and whatever is in front now (it may have been opened last).
        stopping = sorted((set(opened) | {self.foreground_package()}) - KEEP_RUNNING - {""})
        for package in stopping:
            self.shell(["am", "force-stop", package])
        press_home(self)
        stopped = f", {', '.join(stopping)} force-stopped" if stopping else ""
        return f"{done}the home screen (Home pressed{stopped})"
