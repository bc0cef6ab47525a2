"""``SimDevice``: the simulated Pixel behind the :class:`~latent_agent.device.base.Device` interface.

Everything an agent, the adb protocol server or a task check does goes
through the Device methods (or :attr:`SimDevice.state` for checks); the
simulator itself lives in :class:`~latent_agent.device.sim.phone.Phone` and the apps.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import ScreenSize, UITree
from latent_agent.device.base import Device, DeviceCapabilities, Hierarchy, Key, SystemActivity
from latent_agent.device.sim.apps.launcher import launcher_labels
from latent_agent.device.sim.noise import (
    NoiseConfig,
    confuse_images,
    garble,
    nearest_other_target,
    notification,
    stable_fraction,
    strip_labels,
    with_decoys,
)
from latent_agent.device.sim.phone import LAUNCHER, SYSTEMUI, Phone
from latent_agent.device.sim.popups import crash_dialog, popup_for
from latent_agent.device.sim.render import render_png
from latent_agent.device.sim.state import PhoneState
from latent_agent.device.sim.ui import Page, Window, hit, to_xml
from latent_agent.device.sim.views import STATUS_H
from latent_agent.errors import AppNotFoundError, ConfigError, DeviceActionError

#: The default display: a Pixel 7 in portrait.
DEFAULT_SIZE = ScreenSize(1080, 2400)


@dataclass(frozen=True, slots=True)
class _Frame:
    """One observation: the windows drawn and the dump of those the agent sees."""

    windows: tuple[Window, ...]
    raw: bytes
    tree: UITree
    package: str


class SimDevice(Device):
    """A simulated Pixel phone: deterministic for a given seed and noise setting.

    Args:
        seed: Seeds the phone's incidental state (time of day, battery) and every
            noise decision; an integer >= 0.
        noise: Noise knobs (all off by default).
        size: Display size.

    Text typed while no field has focus is dropped, as on a real phone.

    Raises:
        ConfigError: For a negative or non-integer seed.
        DeviceActionError: For a screen smaller than 480x800.
    """

    capabilities = DeviceCapabilities(seeded_reset=True, remote=False, state_checks=True)

    def __init__(
        self, seed: int = 0, noise: NoiseConfig | None = None, size: ScreenSize = DEFAULT_SIZE
    ) -> None:
        if size.width < 480 or size.height < 800:
            raise DeviceActionError(f"simulated screen {size.width}x{size.height} is too small (min 480x800)")
        self.noise = noise or NoiseConfig()
        self.size = size
        self.reset(seed=seed)

    def reset(self, *, seed: int | None = None, opened: Iterable[str] = (), snapshot: str | None = None,
              trial: int = 0) -> str:
        """Restore the initial seeded state exactly: home screen, no history, noise replayed from the start.

        Args:
            seed: Start from this seed instead of the phone's own (it becomes the phone's seed).
            opened: Not needed: nothing survives an exact reset.
            snapshot: Not needed: the seeded state is what an emulator snapshot approximates.
            trial: Which trial of the episode starts (0 for the first). The start state is the
                seed's whatever the trial; the noise of events (taps that land off target, dropped
                actions, frozen screens, banners, crashes, pop-ups, garbled text, decoy nodes) draws
                from a stream of the seed and the trial, so a retry meets new faults, not a replay of
                the ones that sank the trial before. Which buttons lack labels stays the seed's: that
                is how the apps are built, not an event.

        Raises:
            ConfigError: For a negative or non-integer seed or trial.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                # Sweeps number seeds 0..N-1; a negative one is a typo, not a distinct phone.
                raise ConfigError(f"sim seed must be an integer >= 0, not {seed!r}")
            self._seed = seed
        if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
            raise ConfigError(f"sim trial must be an integer >= 0, not {trial!r}")
        self.trial = trial
        # The first trial's stream is the seed's own, so a phone that is never retried draws as before.
        self._stream = f"t{trial}:" if trial else ""
        self.phone = Phone(self.seed, self.size.width, self.size.height)
        self.phone.launch_hook = self._before_launch
        self._rng = random.Random(f"sim-noise:{self._stream}{self.seed}")
        self._overlay: Window | None = None
        self._frame: _Frame | None = None
        #: What the display shows while frozen (``frozen_screen``), and for how many more actions.
        self._frozen: _Frame | None = None
        self._frozen_left = 0
        #: The transient notification of ``dynamic_content`` shown by the latest observation.
        self._banner: Window | None = None
        self._actions = 0
        self._looks = 0
        self._launches = 0
        again = f", trial {trial + 1}'s noise" if trial else ""
        return f"the simulated phone reset to its initial state (seed {self.seed}{again})"

    @property
    def seed(self) -> int:
        """The seed the phone's current start state was built from (the last one :meth:`reset` was given)."""
        return self._seed

    def _draw(self, key: str) -> float:
        """A number in [0, 1) fixed by the seed, the trial and ``key``: one event-noise decision."""
        return stable_fraction(self.seed, self._stream + key)

    @property
    def state(self) -> PhoneState:
        """The phone's ground-truth state (what task checks read)."""
        return self.phone.state

    # -- observation -----------------------------------------------------------

    def _observe(self) -> _Frame:
        """The live screen, with the observation-noise knobs applied (cached until something changes)."""
        if self._frame is None:
            windows = list(self.phone.windows())
            if self._overlay is not None:
                windows.append(self._overlay)
            if self.noise.unlabeled_buttons:
                for window in windows:
                    strip_labels(window, self.seed, self.noise.unlabeled_buttons)
            if self.noise.image_buttons:
                for window in windows:
                    confuse_images(window, self.seed, self.noise.image_buttons)
            if self.noise.invisible_nodes:
                windows[-1] = with_decoys(
                    windows[-1],
                    random.Random(f"sim-invisible:{self._stream}{self.seed}:{self._actions}"),
                    self.noise.invisible_nodes,
                )
            package = windows[-1].package
            shown = list(windows) if self.noise.behind_dialog else windows[-1:]
            if self._banner is not None:
                windows.append(self._banner)
                shown.append(self._banner)
            raw = to_xml(shown)

            tree = parse_xml(raw, source="sim")
            self._frame = _Frame(tuple(windows), raw, replace(tree, foreground_package=package), package)
        return self._frame

    def _visible(self, look: bool) -> _Frame:
        """What the display shows; ``look`` marks a new observation (a dump), which redraws dynamic content."""
        if self._frozen is not None:
            return self._frozen
        if look and self.noise.dynamic_content:
            self._looks += 1
            key = f"dynamic:{self._actions}:{self._looks}"
            shown = self._draw(key) < self.noise.dynamic_content
            if shown or self._banner is not None:
                self._banner = (notification(self.size.width, STATUS_H, self._draw(key + ":which"))
                                if shown else None)
                self._frame = None
        return self._observe()

    def screen_size(self) -> ScreenSize:
        return self.size

    def foreground_package(self) -> str:
        return self._observe().package

    def hierarchy(self) -> Hierarchy:
        frame = self._visible(look=True)
        return Hierarchy(raw=frame.raw, format="uiautomator", tree=frame.tree)

    def screenshot(self) -> bytes:
        frame = self._visible(look=False)
        return render_png(list(frame.windows), self.phone, frame.package)

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        # Nothing to wait for: the phone settles at once. A frozen display is a fault of the
        # phone, not a slow animation, so waiting does not end it (only further actions do).
        if timeout < 0:
            raise DeviceActionError(f"wait_for_idle timeout must be >= 0, got {timeout}")

    # -- actions ---------------------------------------------------------------

    def _act(self) -> bool:
        """Bookkeeping before an action (frozen display, dropped actions); False if the action is dropped."""
        index = self._actions
        if self._frozen is not None:
            self._frozen_left -= 1
            if self._frozen_left <= 0:
                self._frozen = None
        elif self.noise.frozen_screen and self._draw(f"frozen:{index}") < self.noise.frozen_screen:
            self._frozen = self._visible(look=False)
            self._frozen_left = self.noise.frozen_steps
        self._actions += 1
        self._looks = 0
        if self._banner is not None:
            self._banner = None
            self._frame = None
        return not (self.noise.dropped_actions
                    and self._draw(f"dropped:{index}") < self.noise.dropped_actions)

    def _done(self) -> None:
        self.phone.invalidate()
        self._frame = None

    def _check_point(self, x: int, y: int) -> None:
        if not (0 <= x < self.size.width and 0 <= y < self.size.height):
            raise DeviceActionError(
                f"point ({x}, {y}) is outside the {self.size.width}x{self.size.height} screen"
            )

    def _offset(self, x: int, y: int) -> tuple[int, int]:
        if not self.noise.tap_offset_px:
            return x, y
        angle = self._rng.uniform(0, 2 * math.pi)
        dx = round(self.noise.tap_offset_px * math.cos(angle))
        dy = round(self.noise.tap_offset_px * math.sin(angle))
        return (min(self.size.width - 1, max(0, x + dx)), min(self.size.height - 1, max(0, y + dy)))

    def _neighbour(self, x: int, y: int) -> tuple[int, int]:
        """Where a touch lands with ``neighbour_taps``: the centre of the nearest other clickable element."""
        index = self._actions - 1
        if not (self.noise.neighbour_taps
                and self._draw(f"neighbour:{index}") < self.noise.neighbour_taps):
            return x, y
        top = self._overlay if self._overlay is not None else self.phone.windows()[-1]
        return nearest_other_target(top.root, x, y) or (x, y)

    def tap(self, x: int, y: int) -> None:
        self._check_point(x, y)
        banner = self._banner
        if not self._act():
            return
        if banner is not None and banner.root.contains(x, y):
            return  # the notification took the touch (and went away, as _act cleared it)
        x, y = self._neighbour(*self._offset(x, y))
        overlay = self._overlay
        if overlay is not None:
            for node in reversed(hit(overlay.root, x, y)):
                if node.on_tap is not None:
                    node.on_tap()
                    break
        else:
            self.phone.tap(x, y)
        self._done()

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self._check_point(x, y)
        if duration_ms < 0:
            raise DeviceActionError(f"long_press duration must be >= 0 ms, got {duration_ms}")
        if not self._act():
            return
        x, y = self._neighbour(*self._offset(x, y))
        if self._overlay is None:
            self.phone.long_press(x, y)
        self._done()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._check_point(x1, y1)
        self._check_point(min(max(x2, 0), self.size.width - 1), min(max(y2, 0), self.size.height - 1))
        if not self._act():
            return
        if self._overlay is None:
            self.phone.swipe(x1, y1, x2, y2)
        self._done()

    def input_text(self, text: str) -> None:
        if not self._act():
            return
        index = self._actions - 1
        if text and self.noise.wrong_text and self._draw(f"text:{index}") < self.noise.wrong_text:
            text = garble(text, random.Random(f"sim-text:{self._stream}{self.seed}:{index}"))
        if self._overlay is None:
            self.phone.type_text(text)
        self._done()

    def press_key(self, key: Key) -> None:
        if not self._act():
            return
        if key is Key.BACK:
            if self._overlay is not None:
                self._overlay = None
            else:
                self.phone.back()
        elif key is Key.HOME:
            self._overlay = None
            self.phone.home()
        elif self._overlay is not None:
            pass  # a system dialog has the focus; keys other than Back/Home do nothing
        elif key is Key.ENTER:
            self.phone.enter()
        elif key is Key.DEL:
            self.phone.delete()
        elif key is Key.APP_SWITCH:
            self.phone.recents_screen()
        self._done()

    def launcher_apps(self) -> Mapping[str, str]:
        return launcher_labels(self.phone)

    def launch_package(self, package: str) -> None:
        if package not in self.launcher_apps().values():
            raise AppNotFoundError(f"package {package!r} is not installed or has no launcher activity")
        if not self._act():
            return
        self._overlay = None
        if self.phone.foreground == SYSTEMUI:
            self.phone.close_shade()
        self.phone.launch(package)
        self._done()

    def launch_activity(self, activity: SystemActivity) -> None:
        if activity not in ("app_drawer", "quick_settings"):
            raise DeviceActionError(f"unknown system activity {activity!r}; use app_drawer or quick_settings")
        if not self._act():
            return
        self._overlay = None
        if activity == "quick_settings":
            self.phone.open_shade()
        else:
            if self.phone.foreground == SYSTEMUI:
                self.phone.close_shade()
            self.phone.go_home()
            self.phone.push(Page("drawer"))
            self.phone.set_field(f"{LAUNCHER}:id/input", "")
        self._done()

    # -- noise -----------------------------------------------------------------

    def _before_launch(self, package: str) -> bool:
        label = self.phone.apps[package].label
        # Keyed by app and launch number: different apps fare differently on the same phone.
        key = f"{package}:{self._launches}"
        self._launches += 1
        noise = self.noise
        if noise.launch_failure_rate and self._draw(f"crash:{key}") < noise.launch_failure_rate:
            self._overlay = crash_dialog(self.phone, label, self._dismiss)
            return False
        if noise.popup_rate and self._draw(f"popup:{key}") < noise.popup_rate:
            advert = self._draw(f"advert:{key}") < 0.5
            self._overlay = popup_for(self.phone, package, label, advert, self._dismiss)
        return True

    def _dismiss(self) -> None:
        self._overlay = None
