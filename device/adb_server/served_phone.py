"""The served phone: a :class:`~latent_agent.device.base.Device` plus the state a shell sees around it.

The device itself knows screens and touches; a phone reached over adb also has
files, system properties, settings, an input-method list and a record of the
commands that ran. :class:`ServedPhone` holds that state, serializes device calls
(the simulated device is single-threaded; several adb clients are not), and
answers the questions the shell commands ask (which packages exist, which app
is in front).
"""

from __future__ import annotations

import collections
import logging
import shlex
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from latent_agent.device.adb_server.vfs import VirtualFS
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice

T = TypeVar("T")
log = logging.getLogger("latent_agent.device.adb_server")

#: The ADB Keyboard IME (github.com/senzhk/ADBKeyBoard): types text sent as a broadcast.
ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard"
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
SYSTEM_UI = "com.android.systemui"

#: System property a served simulated phone reports its noise knobs in (``NoiseConfig.spec``);
#: a real phone has no such property. ``latent_agent.device.spec`` reads it to tell a served sim from a phone.
NOISE_PROP = "ro.latentagent.sim.noise"
#: Shell command a served simulated phone understands and a real one does not: back to its initial seeded state.
SIM_RESET = ("latent-sim", "reset")

#: Packages every phone has besides its launchable apps.
SYSTEM_PACKAGES = ("android", "com.android.shell", SYSTEM_UI, "com.android.inputmethod.latin",
                   "com.android.providers.settings")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How the served phone presents itself and which faults it injects.

    Attributes:
        model: ``ro.product.model``.
        sdk: ``ro.build.version.sdk`` (34 is Android 14).
        serial: ``ro.serialno``.
        adb_keyboard: Whether the ADB Keyboard IME is installed and selected, so
            ``am broadcast -a ADB_INPUT_B64`` types text; when ``False`` such
            broadcasts reach no receiver, as on a phone without it.
        idle_failures: The first this-many ``uiautomator dump`` calls fail with
            "could not get idle state" (a busy UI on a real phone).
        dump_delay: Seconds each ``uiautomator dump`` takes (real phones: 1-3 s).
    """

    model: str = "Pixel 7 (latent-agent sim)"
    sdk: int = 34
    serial: str = "LATENTSIM0001"
    adb_keyboard: bool = True
    idle_failures: int = 0
    dump_delay: float = 0.0


class ServedPhone:
    """A device plus the phone-level state the adb services share.

    Args:
        device: The device whose screen and input are served.
        options: Identity and fault injection.
    """

    def __init__(self, device: Device, options: ServerOptions | None = None) -> None:
        self.device = device
        self.options = options or ServerOptions()
        self.vfs = VirtualFS()
        self.boot_time = time.time()
        self._device_lock = threading.RLock()
        self._state_lock = threading.Lock()
        self._idle_failures_left = self.options.idle_failures
        self._last_app = ""
        #: Every simple command the shell ran, as its argument vector, oldest first.
        self.audit: collections.deque[tuple[str, ...]] = collections.deque(maxlen=10_000)
        imes = [LATIN_IME]
        if self.options.adb_keyboard:
            imes.append(ADB_KEYBOARD_IME)
        self.installed_imes: tuple[str, ...] = tuple(imes)
        self.settings: dict[str, dict[str, str]] = {
            "secure": {
                "default_input_method": ADB_KEYBOARD_IME if self.options.adb_keyboard else LATIN_IME,
                "enabled_input_methods": ":".join(imes),
            },
            "system": {"screen_off_timeout": "600000"},
            "global": {"adb_enabled": "1", "airplane_mode_on": "0"},
        }

    def call(self, fn: Callable[..., T], *args: object) -> T:
        """Run one device method with the device to ourselves."""
        with self._device_lock:
            return fn(*args)

    def take_idle_failure(self) -> bool:
        """True if this dump should fail with "could not get idle state" (consumes one)."""
        with self._state_lock:
            if self._idle_failures_left > 0:
                self._idle_failures_left -= 1
                return True
            return False

    def record(self, argv: tuple[str, ...]) -> None:
        """Note a command about to run (the audit trail; logged at INFO for ``sim serve --verbose``)."""
        self.audit.append(argv)
        log.info("run: %s", shlex.join(argv))

    def props(self) -> Mapping[str, str]:
        """System properties ``getprop`` reports (and, for a simulated phone, its noise knobs)."""
        o = self.options
        noise = {NOISE_PROP: self.device.noise.spec} if isinstance(self.device, SimDevice) else {}
        return noise | {
            "ro.product.model": o.model,
            "ro.product.name": "latent_sim",
            "ro.product.device": "latent_sim",
            "ro.product.brand": "latent-agent",
            "ro.product.manufacturer": "latent-agent",
            "ro.product.cpu.abi": "x86_64",
            "ro.build.version.sdk": str(o.sdk),
            "ro.build.version.release": str(max(1, o.sdk - 20)),
            "ro.build.type": "userdebug",
            "ro.build.characteristics": "default",
            "ro.serialno": o.serial,
            "ro.secure": "0",
            "ro.debuggable": "1",
            "ro.adb.secure": "0",
            "ro.sf.lcd_density": "420",
            "sys.boot_completed": "1",
            "persist.sys.locale": "en-US",
        }

    def packages(self) -> list[str]:
        """Every installed package (launchable apps, system packages, IMEs), sorted."""
        pkgs = set(SYSTEM_PACKAGES)
        pkgs.update(self.call(self.device.launcher_apps).values())
        pkgs.update(ime.split("/")[0] for ime in self.installed_imes)
        return sorted(pkgs)

    def foreground(self) -> str:
        """The foreground package; remembers the last app that was not the system UI."""
        pkg = self.call(self.device.foreground_package)
        if pkg != SYSTEM_UI:
            with self._state_lock:
                self._last_app = pkg
        return pkg

    def resumed_app(self) -> str:
        """The app whose activity is resumed (the one under the notification shade, if open)."""
        pkg = self.foreground()
        if pkg != SYSTEM_UI:
            return pkg
        with self._state_lock:
            return self._last_app or pkg

    @property
    def adb_keyboard_active(self) -> bool:
        return self.settings["secure"].get("default_input_method") == ADB_KEYBOARD_IME
