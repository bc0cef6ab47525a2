"""The device interface every backend implements (simulated phone, adb, uiautomator2, AndroidEnv).

Contract (checked for every backend by ``tests/device/contract.py``):

* Coordinates are device pixels in the current orientation, origin top-left.
* Every method returns only after the device accepted the command; none waits
  for the UI to settle except :meth:`Device.wait_for_idle`.
* Every call is bounded in time: a backend that cannot finish within its
  timeout raises :class:`~latent_agent.errors.DeviceTimeoutError`; a lost
  connection raises :class:`~latent_agent.errors.DeviceConnectionError`. No
  method hangs and none returns sentinel values.
* :meth:`Device.hierarchy` returns the raw dump exactly as the device produced
  it together with its parsed :class:`~latent_agent.accessibility.tree.UITree`.
* ``scroll("down")`` reveals content further down (the finger moves up), as
  a person would say it.
* :meth:`Device.reset` brings the phone to where an episode starts, in the way
  its backend can: the simulated phone exactly, a phone over adb
  (:class:`~latent_agent.device.adb_phone.AdbPhone`) by going home and stopping
  what the last episode opened. Each backend resets itself; callers never ask
  which kind of device they hold.
* :attr:`Device.seed` is the seed a device's start state was built from, or None
  for a device that has none (a real phone).
* :attr:`Device.capabilities` says what a backend can do; callers branch on these
  flags, never on a backend's name. A call a backend cannot perform (Back on a web
  page) raises :class:`~latent_agent.errors.ActionNotSupportedError`, never a silent no-op.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, Literal, get_args

from rapidfuzz import process, utils

from latent_agent.accessibility.tree import Bounds, ScreenSize, SourceFormat, UITree
from latent_agent.accessibility.web_page import PageView
from latent_agent.errors import AppNotFoundError, ConfigError
from latent_agent.surfaces import SurfaceKind

#: Which way content is scrolled into view: the one direction vocabulary (the grounder's actions re-use it).
Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
#: The system surfaces a device can open: the launcher's app drawer and the quick-settings shade.
SystemActivity = Literal["app_drawer", "quick_settings"]
SYSTEM_ACTIVITIES: tuple[SystemActivity, ...] = get_args(SystemActivity)


class Key(Enum):
    """Hardware/system keys with their Android key codes."""

    BACK = 4
    HOME = 3
    ENTER = 66
    DEL = 67
    APP_SWITCH = 187


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """An accessibility snapshot: the raw dump as produced and its parsed tree.

    Attributes:
        raw: The dump's bytes (uiautomator XML, or a serialized AndroidEnv forest).
        format: Which parser produced ``tree``.
        tree: The parsed (not yet cleaned) tree.
        page: The page as the web papers observe it, from the same walk, on a device whose surface is a web
            page (:mod:`latent_agent.device.web_page`); None on a phone.
    """

    raw: bytes
    format: SourceFormat
    tree: UITree
    page: PageView | None = None


@dataclass(frozen=True, slots=True)
class DeviceCapabilities:
    """What a kind of device can do; declared by each backend (class attribute and registry entry).

    Attributes:
        launcher_and_apps: It has a launcher with installed apps, an app drawer and a quick-settings shade
            (``launcher_apps``, ``launch_package``, ``open_app``, ``launch_activity``). Without it,
            ``launcher_apps`` is empty and the others raise ``ActionNotSupportedError``.
        system_keys: It has Back, Home and the app switcher. Without them, those keys raise
            ``ActionNotSupportedError`` (Enter and Delete remain).
        seeded_reset: ``reset(seed=N)`` starts exactly from the state of seed N, so one spec may stand for
            any number of devices and a sweep gives each episode's device that episode's seed.
        remote: It is reached over a connection (adb) rather than built in this process.
        state_checks: The simulated phone's task checks can read its state in this process.
        task_reward: It hosts a judged task (:class:`~latent_agent.device.task_env.TaskDevice`): the task
            gives the goal and its own reward judges the episode.
        surface: What the agent operates on it (:mod:`latent_agent.surfaces`): every prompt is rendered for
            it, so a web page is never spoken of as a phone. A ``web_page`` also has the keys, the mouse and
            the element look-ups of :class:`~latent_agent.device.web_page.WebPage`, and observes the page
            itself beside its tree (``Hierarchy.page``).
    """

    launcher_and_apps: bool = True
    system_keys: bool = True
    seeded_reset: bool = False
    remote: bool = True
    state_checks: bool = False
    task_reward: bool = False
    surface: SurfaceKind = "phone"


#: How many times a reset presses Home (the second closes what the first revealed: a shade, a dialog).
HOME_PRESSES = 2
#: Fuzzy score (0-100, rapidfuzz WRatio) an app label must reach to match a name.
APP_MATCH_THRESHOLD = 80.0


def resolve_app(name: str, apps: Mapping[str, str]) -> str:
    """Resolve a human app name ("chrome app", "clock") to a package name.

    Args:
        name: What the user or model called the app; a package name is accepted as is.
        apps: Launcher label -> package of the apps installed on the device.

    Returns:
        The package whose label matches best.

    Raises:
        AppNotFoundError: If no label matches well enough; the message lists the
            installed labels.
    """
    wanted = name.strip()
    if not wanted:
        raise AppNotFoundError("empty app name")
    packages = set(apps.values())
    if wanted in packages:
        return wanted
    lowered = {label.lower(): pkg for label, pkg in apps.items()}
    if wanted.lower() in lowered:
        return lowered[wanted.lower()]
    # Goals say "the chrome app" or "Clock app"; the label is the word that matters.
    trimmed = wanted.lower().removeprefix("the ").removesuffix(" app").strip()
    if trimmed in lowered:
        return lowered[trimmed]
    best = process.extractOne(trimmed, list(apps), processor=utils.default_process)
    if best is not None and best[1] >= APP_MATCH_THRESHOLD:
        return apps[best[0]]
    raise AppNotFoundError(f"no installed app matches {name!r}; installed: {', '.join(sorted(apps))}")


class Device(abc.ABC):
    """An Android phone the agent can observe and act on. See the module docstring.

    Attributes:
        capabilities: What this backend can do (the default: a phone reached over adb).
    """

    capabilities: ClassVar[DeviceCapabilities] = DeviceCapabilities()

    @abc.abstractmethod
    def screen_size(self) -> ScreenSize:
        """Display size in pixels in the current orientation."""

    @abc.abstractmethod
    def foreground_package(self) -> str:
        """Package of the app (or system UI) in the foreground."""

    @abc.abstractmethod
    def hierarchy(self) -> Hierarchy:
        """Current accessibility hierarchy: raw dump and parsed tree."""

    @abc.abstractmethod
    def screenshot(self) -> bytes:
        """Current screen as PNG bytes."""

    @abc.abstractmethod
    def tap(self, x: int, y: int) -> None:
        """Tap at ``(x, y)``."""

    @abc.abstractmethod
    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        """Touch and hold at ``(x, y)``."""

    @abc.abstractmethod
    def input_text(self, text: str) -> None:
        """Type ``text`` into the focused field, exactly as given.

        Raises:
            DeviceError: If the text cannot be delivered exactly (a backend
                must not silently alter or drop characters).
        """

    @abc.abstractmethod
    def press_key(self, key: Key) -> None:
        """Press a system key."""

    @abc.abstractmethod
    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """Drag a finger from ``(x1, y1)`` to ``(x2, y2)``."""

    @abc.abstractmethod
    def launcher_apps(self) -> Mapping[str, str]:
        """Launcher label -> package name of every launchable app."""

    @abc.abstractmethod
    def launch_package(self, package: str) -> None:
        """Start an app's launcher activity.

        Raises:
            AppNotFoundError: If the package is not installed or has no launcher activity.
        """

    @abc.abstractmethod
    def launch_activity(self, activity: SystemActivity) -> None:
        """Open the launcher's app drawer or the quick-settings shade."""

    @abc.abstractmethod
    def wait_for_idle(self, timeout: float = 2.0) -> None:
        """Wait until the UI stops changing, or ``timeout`` seconds have passed."""

    def close(self) -> None:  # noqa: B027 - optional hook; most backends hold no resources
        """Release connections and processes held by this backend."""

    @property
    def seed(self) -> int | None:
        """The seed this device's start state was built from (the simulated phone's), for the record: the
        trajectory's device line and where ``run`` says it starts; None for a device without one of its own."""
        return None

    def reset(self, *, seed: int | None = None, opened: Iterable[str] = (), snapshot: str | None = None,
              trial: int = 0) -> str:
        """Bring the phone to the state an episode starts from; returns what was done, in words.

        Each backend resets itself as well as it can: the simulated phone exactly, a phone over adb
        (:class:`~latent_agent.device.adb_phone.AdbPhone`) also stopping apps and loading snapshots.
        This default, for a backend that knows no better, presses Home twice (closing shades and
        dialogs) and waits for the screen to settle.

        Args:
            seed: The episode's seed, for a phone whose start state is seeded (the simulated
                phone, in process or served, starts exactly from it); a real phone has no seed to
                start from and ignores it.
            opened: Packages the last episode brought to the foreground, stopped where the
                backend can stop apps.
            snapshot: Name of an emulator snapshot to load first (``sweep --snapshot``).
            trial: Which trial of an episode starts (0 for the first; a method that retries resets
                before each later one): the simulated phone, in process or served, draws new event
                noise for each trial from the same start state; a real phone ignores it.

        Raises:
            DeviceError: If the device does not answer or refuses the reset.
            ConfigError: If the backend cannot load a snapshot (this default cannot).
        """
        if snapshot:
            raise ConfigError(f"loading an emulator snapshot needs an emulator reached over adb; "
                              f"{type(self).__name__} has no adb serial")
        press_home(self)
        return "the home screen (Home pressed)"

    # Behaviour shared by every backend, expressed through the primitives above.

    def open_app(self, name: str) -> str:
        """Start the app a human name refers to; returns its package.

        Raises:
            AppNotFoundError: If no installed app matches ``name``.
        """
        package = resolve_app(name, self.launcher_apps())
        self.launch_package(package)
        return package

    def scroll(self, direction: Direction, within: Bounds | None = None) -> None:
        """Scroll so that content further in ``direction`` comes into view.

        Args:
            direction: ``"down"`` shows what is below (the finger moves up), etc.
            within: Swipe inside this element (a list) instead of the whole screen.
        """
        area = within or self.screen_size().as_bounds()
        cx, cy = area.center
        # Stay well inside the area so the swipe does not start on a system bar
        # or an element's edge.
        dx, dy = area.width * 3 // 10, area.height * 3 // 10
        moves = {
            "down": (cx, cy + dy, cx, cy - dy),
            "up": (cx, cy - dy, cx, cy + dy),
            "right": (cx + dx, cy, cx - dx, cy),
            "left": (cx - dx, cy, cx + dx, cy),
        }
        if direction not in moves:
            raise ValueError(f"scroll direction must be up, down, left or right, not {direction!r}")
        self.swipe(*moves[direction])

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def press_home(device: Device) -> None:
    """Press Home :data:`HOME_PRESSES` times and wait for the screen to settle: the home screen, shades closed."""
    for _ in range(HOME_PRESSES):
        device.press_key(Key.HOME)
    device.wait_for_idle()
