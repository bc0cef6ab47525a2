"""``AdbBackedDevice``: the base of backends that drive a phone through their own channel beside adb.

uiautomator2 (:mod:`latent_agent.device.u2`) and android_env (:mod:`latent_agent.device.androidenv`) reach the
phone through a server of their own for the screen and touches, and keep an adb connection to the same phone
(:attr:`AdbBackedDevice.adb`) for what adb answers directly: the shell, the app in front, the launcher's apps,
starting apps and opening the system surfaces. This base forwards those once for both; being an
:class:`~latent_agent.device.adb_phone.AdbPhone`, such a phone resets as any phone over adb does unless its
backend knows better (android_env resets its environment).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from latent_agent.device.adb_phone import AdbPhone, ShellResult
from latent_agent.device.base import SystemActivity


class AdbBackedDevice(AdbPhone):
    """A phone driven through its backend's own channel, with adb's questions answered by :attr:`adb`.

    Args:
        adb: The same phone through adb.

    Attributes:
        adb: The same phone through adb.
        serial: Its adb serial.
    """

    def __init__(self, adb: AdbPhone) -> None:
        self.adb = adb
        self.serial = adb.serial

    def shell(self, args: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        return self.adb.shell(args, timeout=timeout)

    def foreground_package(self) -> str:
        return self.adb.foreground_package()

    def launcher_apps(self) -> Mapping[str, str]:
        return self.adb.launcher_apps()

    def launch_package(self, package: str) -> None:
        self.adb.launch_package(package)

    def launch_activity(self, activity: SystemActivity) -> None:
        self.adb.launch_activity(activity)

    def close(self) -> None:
        self.adb.close()
