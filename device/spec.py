"""The ``--device`` spec: one loader for every backend.

Accepted forms::

    sim                 the simulated phone, seed 0
    sim:SEED            the simulated phone with an integer seed
    adb:SERIAL          a device or emulator through adb (adbutils)
    u2:SERIAL           a device through uiautomator2 (needs its on-device server)
    androidenv:CONFIG   an emulator through AndroidEnv (CONFIG: a JSON file, see docs/devices.md)

Backends register themselves in :data:`BACKENDS`; nothing here branches on names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from device.base import Device
from latent_agent.errors import ConfigError


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """A parsed ``--device`` value.

    Attributes:
        kind: Backend name (``sim``, ``adb``, ...).
        arg: What follows the colon (empty when there is none).
    """

    kind: str
    arg: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.arg}" if self.arg else self.kind


@dataclass(frozen=True, slots=True)
class Backend:
    """How to build one kind of device.

    Attributes:
        form: The accepted form, for messages (``adb:SERIAL``).
        needs_arg: Whether the part after the colon is required.
        build: Makes the device from the argument (validated by the builder).
    """

    form: str
    needs_arg: bool
    build: Callable[[str], Device]


def _sim(arg: str) -> Device:
    from device.sim.device import SimDevice

    if not arg:
        return SimDevice()
    try:
        seed = int(arg)
    except ValueError:
        raise ConfigError(f"--device sim:SEED needs an integer seed, not {arg!r}") from None
    return SimDevice(seed=seed)


def _adb(arg: str) -> Device:
    from device.adb import AdbDevice

    return AdbDevice(arg)


def _u2(arg: str) -> Device:
    from device.u2 import U2Device

    return U2Device(arg)


def _androidenv(arg: str) -> Device:
    from device.androidenv import AndroidEnvDevice

    return AndroidEnvDevice.from_config_file(arg)


BACKENDS: dict[str, Backend] = {
    "sim": Backend("sim or sim:SEED", False, _sim),
    "adb": Backend("adb:SERIAL", True, _adb),
    "u2": Backend("u2:SERIAL", True, _u2),
    "androidenv": Backend("androidenv:CONFIG", True, _androidenv),
}


def accepted_forms() -> str:
    return ", ".join(b.form for b in BACKENDS.values())


def parse_device_spec(text: str) -> DeviceSpec:
    """Parse a ``--device`` value without connecting to anything.

    Raises:
        ConfigError: For an unknown backend or a missing argument; the message lists the accepted forms.
    """
    kind, sep, arg = text.strip().partition(":")
    backend = BACKENDS.get(kind)
    if backend is None:
        raise ConfigError(f"unknown --device {text!r}; accepted: {accepted_forms()}")
    if (sep and not arg) or (backend.needs_arg and not arg):
        raise ConfigError(f"--device {text!r} is incomplete; expected {backend.form}")
    return DeviceSpec(kind, arg)


def load_device(text: str) -> Device:
    """Build the device a ``--device`` value names.

    Raises:
        ConfigError: For a malformed spec.
        DeviceError: If the backend cannot reach the device.
    """
    spec = parse_device_spec(text)
    return BACKENDS[spec.kind].build(spec.arg)
