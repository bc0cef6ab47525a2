"""The device pool of a sweep: one slot per ``--devices`` entry, each reset before every episode.

Reset between episodes:

* ``sim`` - a fresh simulated phone seeded with the episode's seed and given the
  sweep's noise (the sim resets itself), so results do not depend on which slot ran an episode.
* real devices (``adb``, ``u2``, ``androidenv``) - the documented reset step:
  press Home twice (closes shades and dialogs, lands on the launcher), force-stop
  every app the previous episode brought to the foreground (``am force-stop``,
  when the backend has an adb shell), and, with ``--snapshot NAME``, load that
  emulator snapshot first (``adb -s SERIAL emu avd snapshot load NAME``).

A slot whose device fails is rebuilt once; if that fails too it is retired and
the sweep continues on the others.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from latent_agent.device.base import Device, Key
from latent_agent.device.reset import KEEP_RUNNING, shell_of
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import DeviceSpec, load_device, parse_device_spec
from latent_agent.errors import ConfigError, DeviceError

#: Seconds an ``adb emu`` snapshot load may take.
SNAPSHOT_TIMEOUT_S = 120.0


def parse_devices(text: str) -> tuple[DeviceSpec, ...]:
    """Parse ``--devices SPEC[,SPEC...]``; ``SPEC*N`` repeats a spec (``sim*4``).

    Raises:
        ConfigError: For an empty list, a bad count, a malformed spec, a seeded
            ``sim:SEED`` (a sweep seeds the sim per episode) or a real device listed twice.
    """
    specs: list[DeviceSpec] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        spec_text, star, count_text = item.partition("*")
        count = 1
        if star:
            try:
                count = int(count_text)
            except ValueError:
                raise ConfigError(f"--devices {item!r}: the count after '*' must be an integer") from None
            if count < 1:
                raise ConfigError(f"--devices {item!r}: the count after '*' must be >= 1")
        spec = parse_device_spec(spec_text)
        if spec.kind == "sim" and spec.arg:
            raise ConfigError(f"--devices {item!r}: in a sweep the simulated phone is seeded by each episode's "
                              "seed (--seeds); use sim or sim*N")
        if spec.kind != "sim" and (count > 1 or spec in specs):
            raise ConfigError(f"--devices lists the real device {spec} more than once")
        specs.extend([spec] * count)
    if not specs:
        raise ConfigError("--devices is empty; e.g. sim*4 or adb:emulator-5554,adb:emulator-5556")
    return tuple(specs)


def load_snapshot(serial: str, name: str, *, adb: str = "adb", timeout: float = SNAPSHOT_TIMEOUT_S) -> None:
    """Load an emulator snapshot through the emulator console (``adb emu``).

    Raises:
        DeviceError: If adb is missing, times out or reports a failure.
    """
    command = [adb, "-s", serial, "emu", "avd", "snapshot", "load", name]
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


@dataclass(frozen=True, slots=True)
class ResetPolicy:
    """How real devices are reset between episodes.

    Attributes:
        snapshot: Emulator snapshot to load before each episode (``--snapshot``), or None.
        home_presses: How many times Home is pressed.
    """

    snapshot: str | None = None
    home_presses: int = 2


def reset_real_device(device: Device, spec: DeviceSpec, policy: ResetPolicy, used: Iterable[str]) -> None:
    """The reset step for a real device (see the module docstring).

    Args:
        device: The device.
        spec: Its ``--devices`` entry (the serial is taken from it for snapshots).
        policy: Snapshot and Home presses.
        used: Packages the previous episode brought to the foreground.

    Raises:
        DeviceError: If the device does not respond.
    """
    if policy.snapshot:
        load_snapshot(spec.arg, policy.snapshot)
    shell = shell_of(device)
    if shell is not None:
        for package in sorted(set(used) - KEEP_RUNNING):
            shell.shell(["am", "force-stop", package])
    for _ in range(policy.home_presses):
        device.press_key(Key.HOME)
    device.wait_for_idle()


@dataclass
class DeviceSlot:
    """One device of the pool (used by one worker thread at a time).

    Attributes:
        name: Shown in progress and results (``sim#2``, ``adb:emulator-5554``).
        spec: The parsed ``--devices`` entry.
        policy: Reset policy for real devices.
        build: Makes the device (the ``--device`` loader by default).
        noise: The simulated phone's noise knobs (sim slots only; a served sim has its own).
    """

    name: str
    spec: DeviceSpec
    policy: ResetPolicy = field(default_factory=ResetPolicy)
    build: Callable[[str], Device] = load_device
    noise: NoiseConfig | None = None
    device: Device | None = None
    used_packages: set[str] = field(default_factory=set)
    retired: str = ""

    def prepare(self, seed: int) -> Device:
        """The device, reset for an episode with ``seed``.

        Raises:
            DeviceError: If the device cannot be built or reset.
        """
        if self.spec.kind == "sim":
            from latent_agent.device.sim.device import SimDevice

            self.close()
            self.device = SimDevice(seed=seed, noise=self.noise)
            return self.device
        if self.device is None:
            self.device = self.build(str(self.spec))
            self.used_packages.clear()
        reset_real_device(self.device, self.spec, self.policy, self.used_packages)
        self.used_packages.clear()
        return self.device

    def note_packages(self, packages: Iterable[str]) -> None:
        self.used_packages.update(packages)

    def recover(self, reason: str) -> bool:
        """After a device failure: rebuild the device once; retire the slot if that fails.

        Returns:
            Whether the slot is usable again.
        """
        self.close()
        if self.spec.kind == "sim":
            return True
        try:
            self.device = self.build(str(self.spec))
        except DeviceError as exc:
            self.retired = f"{reason}; reconnecting failed: {exc}"
            return False
        return True

    def close(self) -> None:
        if self.device is not None:
            # Closing a broken connection may fail; nothing is left to release then.
            with contextlib.suppress(DeviceError):
                self.device.close()
            self.device = None


def make_pool(specs: Sequence[DeviceSpec], policy: ResetPolicy | None = None,
              build: Callable[[str], Device] = load_device, noise: NoiseConfig | None = None) -> list[DeviceSlot]:
    """One slot per spec; sim slots are numbered (``sim#1``...)."""
    slots: list[DeviceSlot] = []
    sims = 0
    for spec in specs:
        if spec.kind == "sim":
            sims += 1
            name = f"sim#{sims}"
        else:
            name = str(spec)
        slots.append(DeviceSlot(name, spec, policy or ResetPolicy(), build, noise))
    return slots

