"""Where an episode starts: the phone as it was left, or reset (``run --reset``, and a sweep before every episode).

A simulated phone built for the run (``--device sim``) is always fresh. A phone
reached over adb keeps whatever the previous run left on screen, so ``run``
says which state it starts from, and ``--reset`` puts it back through the
backend's own :meth:`~latent_agent.device.base.Device.reset` (a phone over adb:
:meth:`latent_agent.device.adb_phone.AdbPhone.reset`).
"""

from __future__ import annotations

from latent_agent.device.adb_phone import AdbPhone
from latent_agent.device.base import Device


def start_state(device: Device, *, fresh: bool) -> str:
    """Where an episode on ``device`` starts, in words, without changing anything.

    Args:
        device: The phone.
        fresh: Whether the device was built for this run (a new simulated phone).

    Raises:
        DeviceError: If the device does not answer.
    """
    if fresh:
        return "a fresh simulated phone" + (f" (seed {device.seed})" if device.seed is not None else "")
    served = isinstance(device, AdbPhone) and device.serves_sim()
    what = "the served simulated phone" if served else "the phone"
    return (f"{what} as the last run left it: {device.foreground_package()} in front "
            "(not reset; --reset starts from a reset phone)")


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
