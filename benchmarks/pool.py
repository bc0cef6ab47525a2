"""The device pool of a sweep: one slot per ``--devices`` entry, each reset before every episode.

A slot builds its device once (with the sweep's noise) and, before every episode, asks the
device to reset itself (:meth:`latent_agent.device.base.Device.reset`) with the episode's seed,
the apps the previous episode opened and the ``--snapshot`` to load. The pool never asks which
kind of device it holds: each backend resets the way it can (the simulated phone exactly to the
episode's seed, so results do not depend on which slot ran an episode; a phone over adb by going
home and force-stopping what was opened; AndroidEnv through ``env.reset``).

A slot whose device fails is rebuilt once; if that fails too it is retired and
the sweep continues on the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from latent_agent.device.base import Device
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import BACKENDS, DeviceSpec, load_device, parse_device_spec
from latent_agent.errors import ConfigError, DeviceError

#: Builds a device from its ``--devices`` entry and the sweep's noise (the ``--device`` loader's signature).
DeviceBuilder = Callable[[str, NoiseConfig | None], Device]


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
        seeded = BACKENDS[spec.kind].seeded
        if seeded and spec.arg:
            bare = DeviceSpec(spec.kind, "", spec.endpoint)  # the same backend, and machine, without the seed or task
            raise ConfigError(f"--devices {item!r}: in a sweep the simulated phone is seeded by each episode's "
                              f"seed (--seeds); use {bare} or {bare}*N")
        if not seeded and (count > 1 or spec in specs):
            raise ConfigError(f"--devices lists the real device {spec} more than once")
        specs.extend([spec] * count)
    if not specs:
        raise ConfigError("--devices is empty; e.g. sim*4 or adb:emulator-5554,adb:emulator-5556")
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class ResetPolicy:
    """How real devices are reset between episodes.

    Attributes:
        snapshot: Emulator snapshot to load before each episode (``--snapshot``), or None.
    """

    snapshot: str | None = None


@dataclass
class DeviceSlot:
    """One device of the pool (used by one worker thread at a time).

    Attributes:
        name: Shown in progress and results (``sim#2``, ``adb:emulator-5554``).
        spec: The parsed ``--devices`` entry.
        policy: What every reset is asked to do besides the defaults (``--snapshot``).
        build: Makes the device (the ``--device`` loader by default).
        noise: The simulated phone's noise knobs, passed to ``build`` (a served sim has its own).
        device: The device, once built.
        opened: Packages brought to the foreground since the last reset.
        retired: Why the slot was retired (empty while it is usable).
    """

    name: str
    spec: DeviceSpec
    policy: ResetPolicy = field(default_factory=ResetPolicy)
    build: DeviceBuilder = load_device
    noise: NoiseConfig | None = None
    device: Device | None = None
    opened: set[str] = field(default_factory=set)
    retired: str = ""

    def prepare(self, seed: int, *, hosted: bool = False) -> Device:
        """The device, reset for an episode with ``seed``.

        Args:
            seed: The episode's seed.
            hosted: The episode's task is a page that a device hosting judged tasks loads with the seed
                (``load_task``, which the episode does and which starts the page afresh), so such a device
                is not reset first (it may have no task loaded to reset to).

        Raises:
            DeviceError: If the device cannot be built or reset.
        """
        if self.device is None:
            self.device = self.build(str(self.spec), self.noise)
            self.opened.clear()
        if not (hosted and self.device.capabilities.task_reward):
            self.device.reset(seed=seed, opened=frozenset(self.opened), snapshot=self.policy.snapshot)
        self.opened.clear()
        return self.device

    def note_packages(self, packages: Iterable[str]) -> None:
        """Remember packages an episode brought to the foreground, for the next reset to stop."""
        self.opened.update(packages)

    def recover(self, reason: str) -> bool:
        """After a device failure: rebuild the device once; retire the slot if that fails.

        Returns:
            Whether the slot is usable again.
        """
        self.close()
        try:
            self.device = self.build(str(self.spec), self.noise)
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
              build: DeviceBuilder = load_device, noise: NoiseConfig | None = None) -> list[DeviceSlot]:
    """One slot per spec; the copies of a seeded spec are numbered (``sim#1``...)."""
    slots: list[DeviceSlot] = []
    copies: dict[DeviceSpec, int] = {}
    for spec in specs:
        name = str(spec)
        if BACKENDS[spec.kind].seeded:
            copies[spec] = copies.get(spec, 0) + 1
            name = f"{spec}#{copies[spec]}"
        slots.append(DeviceSlot(name, spec, policy or ResetPolicy(), build, noise))
    return slots
