"""Where an episode starts: the phone as it was left, or reset (``latent-agent run --reset``).

A simulated phone built for the run (``--device sim``) is always fresh. A phone
reached over adb keeps whatever the previous run left on screen, so ``run``
says which state it starts from, and ``--reset`` puts it back:

* a served simulated phone (``sim serve``, recognized by the property it
  reports) resets fully: the shell command :data:`SIM_RESET` restores its
  initial seeded state;
* any other phone is brought home: the app in front is force-stopped (unless it
  is the launcher or the system UI) and Home is pressed twice, closing shades
  and dialogs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from latent_agent.device.adb_server.phone import NOISE_PROP, SIM_RESET
from latent_agent.device.base import Device, Key
from latent_agent.errors import DeviceError

#: Packages a reset never force-stops: stopping them resets nothing and can blank the screen.
KEEP_RUNNING = frozenset({
    "com.android.systemui",
    "com.google.android.apps.nexuslauncher",
    "com.android.launcher3",
    "com.android.launcher",
})


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


def reset(device: Device) -> str:
    """Reset ``device`` for a new episode (see the module docstring); returns what was done, in words.

    Raises:
        DeviceError: If the device does not answer, or a served sim refuses the reset.
    """
    from latent_agent.device.sim.device import SimDevice

    if isinstance(device, SimDevice):
        device.reset()
        return f"the simulated phone reset to its initial state (seed {device.seed})"
    shell = shell_of(device)
    if shell is not None and is_served_sim(device):
        result = shell.shell(list(SIM_RESET))
        status = getattr(result, "status", 0)
        if status != 0:
            raise DeviceError(f"{' '.join(SIM_RESET)} failed on the served phone (exit {status}): {_stdout(result)}")
        return f"the served simulated phone, {_stdout(result)}"
    package = device.foreground_package()
    stopped = ""
    if shell is not None and package and package not in KEEP_RUNNING:
        shell.shell(["am", "force-stop", package])
        stopped = f", {package} force-stopped"
    for _ in range(2):
        device.press_key(Key.HOME)
    device.wait_for_idle()
    return f"the home screen (Home pressed{stopped})"
