"""The MiniWoB++ device: one task page in headless Chromium, seen and touched as a small phone screen.

The screen is the task area (``#wrap``, 160x210 CSS pixels) at three device pixels per CSS pixel: 480x630
device pixels, in which every coordinate of the device (taps, bounds, screenshots) is given. The reward
panel, the START cover and the query box are not part of what the device shows: the query's text is the
goal, returned by :meth:`MiniWobDevice.load_task`. There is no launcher, no app and no Back or Home key:
those calls raise ``ActionNotSupportedError``. Its surface is a web page
(:class:`~latent_agent.device.web_page.WebPage`): keys pressed N times, held modifiers, the mouse's button and
moves, elements found by XPath and options chosen; every hierarchy also holds the page as the web papers
observe it (``Hierarchy.page``), from the same page call. :class:`RemoteMiniWobDevice` is the same page in a
browser on another machine (``--device miniwob@ENDPOINT``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.device.base import DeviceCapabilities, Direction, Hierarchy, Key, SystemActivity
from latent_agent.device.miniwob import actions
from latent_agent.device.miniwob.browser import CHROMIUM, BrowserPage, PageShape, acquire_page
from latent_agent.device.miniwob.dump import to_uiautomator_xml
from latent_agent.device.miniwob.endpoint import parse_endpoint
from latent_agent.device.miniwob.episode import read_reward, start_task
from latent_agent.device.miniwob.page_view import observe_script, to_page_view
from latent_agent.device.miniwob.tasks import html_root, task_page
from latent_agent.device.task_env import TaskDevice, TaskReward
from latent_agent.device.web_page import Modifier, WebKey, WebPage
from latent_agent.errors import ActionNotSupportedError, ConfigError, DeviceError

#: The task area (CSS px) at three device pixels per CSS pixel: 480x630 device pixels.
SHAPE = PageShape(width=160, height=210, scale=3)
#: The package the device reports in front (``miniwob.click-button``) and in every node.
PACKAGE_PREFIX = "miniwob"
#: The seed of a reset that names none and follows no load.
DEFAULT_SEED = 0
#: How far one scroll turns the wheel, as a share of the scrolled element's size.
SCROLL_SHARE = 0.6


@functools.cache
def _init_script() -> str:
    return resources.files("latent_agent.device.miniwob").joinpath("js/page_init.js").read_text("utf-8")


class MiniWobDevice(TaskDevice, WebPage):
    """One MiniWoB++ page (``--device miniwob:TASK``, or ``miniwob`` when each episode names its task).

    Args:
        task: The task ``run`` loads (``click-button``); None when the caller names a task each time
            (a sweep's planned episodes).
        executable: The Chromium binary.
        endpoint: A browser on another machine to open the page in (:mod:`~latent_agent.device.miniwob.endpoint`)
            instead of a Chromium launched here; :class:`RemoteMiniWobDevice` takes it.

    Raises:
        ConfigError: An unknown task (with close matches), a malformed endpoint, or Chromium or Playwright missing.
        DeviceError: The browser does not start or cannot be reached.
    """

    capabilities = DeviceCapabilities(launcher_and_apps=False, system_keys=False, seeded_reset=True, remote=False,
                                      task_reward=True, surface="web_page")

    def __init__(self, task: str | None = None, *, executable: Path = CHROMIUM, endpoint: str | None = None) -> None:
        if task is not None:
            task_page(task)  # an unknown task is refused before a browser starts
        self._task = task
        self._loaded: str | None = None
        self._seed = DEFAULT_SEED
        # What the agent holds down, released before the next task loads (none carries over into it).
        self._held: set[Modifier] = set()
        self._pressed = False
        reached = parse_endpoint(endpoint) if endpoint is not None else None
        self._page: BrowserPage = acquire_page(SHAPE, html_root(), executable, reached)
        try:
            self._page.run(lambda p: p.add_init_script(script=_init_script()))
        except BaseException:
            self._page.close()
            raise

    @property
    def task(self) -> str | None:
        return self._task

    @property
    def seed(self) -> int | None:
        """The seed the loaded task was started from (None before a task is loaded)."""
        return self._seed if self._loaded is not None else None

    # -- the judged task -----------------------------------------------------

    def load_task(self, task: str, seed: int) -> str:
        url = self._page.url_of(task_page(task))
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"a MiniWoB++ seed is an integer, not {seed!r}")
        self._release_held()
        utterance = start_task(self._page, url, seed)
        self._loaded, self._seed = task, seed
        return utterance

    def task_reward(self) -> TaskReward:
        self._need_task()
        return read_reward(self._page)

    def reset(self, *, seed: int | None = None, opened: Iterable[str] = (), snapshot: str | None = None,
              trial: int = 0) -> str:
        """Load the task again from ``seed`` (else the seed it was loaded with); ``opened`` and ``trial`` do not apply.

        Raises:
            ConfigError: A snapshot (a page has none), or no task to load.
            DeviceError: The page does not load.
        """
        if snapshot:
            raise ConfigError(f"--snapshot {snapshot} loads an emulator snapshot; a MiniWoB++ page restarts from "
                              "its seed without one")
        task = self._loaded or self._task
        if task is None:
            raise ConfigError("no MiniWoB++ task to reset to: name one (--device miniwob:TASK) or load one first")
        start = self._seed if seed is None else seed
        utterance = self.load_task(task, start)
        return f"MiniWoB++ task {task}, seed {start}: {utterance}"

    def _need_task(self) -> str:
        if self._loaded is None:
            raise DeviceError("no MiniWoB++ task is loaded yet (load_task or reset first)")
        return self._loaded

    # -- observation ---------------------------------------------------------

    def screen_size(self) -> ScreenSize:
        return ScreenSize(SHAPE.width * SHAPE.scale, SHAPE.height * SHAPE.scale)

    def foreground_package(self) -> str:
        task = self._loaded or self._task
        return f"{PACKAGE_PREFIX}.{task}" if task else PACKAGE_PREFIX

    def hierarchy(self) -> Hierarchy:
        task = self._need_task()
        walked = json.loads(self._page.evaluate(observe_script(), SHAPE.scale))
        raw = to_uiautomator_xml(walked["root"], self.foreground_package())
        return Hierarchy(raw=raw, format="uiautomator", tree=parse_xml(raw, source=f"miniwob:{task}"),
                         page=to_page_view(walked["page"], self.screen_size()))

    def screenshot(self) -> bytes:
        self._need_task()
        return self._page.run(lambda p: p.screenshot(type="png"))

    # -- input ---------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        actions.tap(self._page, x, y)

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        actions.long_press(self._page, x, y, duration_ms)

    def input_text(self, text: str) -> None:
        actions.type_text(self._page, text)

    def press_key(self, key: Key) -> None:
        actions.press(self._page, key)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        actions.swipe(self._page, x1, y1, x2, y2, duration_ms)

    def scroll(self, direction: Direction, within: Bounds | None = None) -> None:
        """Turn the mouse wheel over ``within`` (the element to scroll; else the screen's middle)."""
        area = within or self.screen_size().as_bounds()
        x, y = area.center
        dx, dy = int(area.width * SCROLL_SHARE), int(area.height * SCROLL_SHARE)
        moves = {"down": (0, dy), "up": (0, -dy), "right": (dx, 0), "left": (-dx, 0)}
        if direction not in moves:
            raise ValueError(f"scroll direction must be up, down, left or right, not {direction!r}")
        actions.wheel(self._page, x, y, *moves[direction])

    def wait_for_idle(self, timeout: float = 2.0) -> None:
        if self._loaded is not None:
            actions.wait_for_idle(self._page, timeout)

    # -- the web page's own input (WebPage) ------------------------------------

    def press(self, key: WebKey, times: int = 1) -> None:
        actions.press_web_key(self._page, key, times)

    def hold(self, modifier: Modifier, down: bool) -> None:
        actions.hold_modifier(self._page, modifier, down)
        if down:
            self._held.add(modifier)
        else:
            self._held.discard(modifier)

    def pointer_down(self, x: int, y: int) -> None:
        actions.pointer_down(self._page, x, y)
        self._pressed = True

    def pointer_move(self, x: int, y: int) -> None:
        actions.glide(self._page, x, y)

    def pointer_up(self) -> None:
        if self._pressed:
            actions.pointer_up(self._page)
            self._pressed = False

    def hover(self, x: int, y: int) -> None:
        actions.glide(self._page, x, y)

    def locate(self, xpath: str) -> Bounds | None:
        self._need_task()
        return actions.locate(self._page, xpath)

    def choose_option(self, x: int, y: int, option: str) -> None:
        actions.choose_option(self._page, x, y, option)

    def _release_held(self) -> None:
        for modifier in sorted(self._held):
            actions.hold_modifier(self._page, modifier, False)
        self._held.clear()
        self.pointer_up()

    # -- what a page does not have --------------------------------------------

    def launcher_apps(self) -> Mapping[str, str]:
        return {}

    def launch_package(self, package: str) -> None:
        raise ActionNotSupportedError(f"a MiniWoB++ page has no apps to launch ({package!r})")

    def launch_activity(self, activity: SystemActivity) -> None:
        raise ActionNotSupportedError(f"a MiniWoB++ page has no {activity.replace('_', ' ')}")

    def open_app(self, name: str) -> str:
        raise ActionNotSupportedError(f"a MiniWoB++ page has no apps to open ({name!r})")

    def close(self) -> None:
        self._page.close()


class RemoteMiniWobDevice(MiniWobDevice):
    """A MiniWoB++ page in a browser on another machine (``--device miniwob[:TASK]@ENDPOINT``).

    The page loads from the local pages folder through the browser's request interception (see
    :mod:`~latent_agent.device.miniwob.browser`), so the other machine needs only a Chromium.

    Args:
        endpoint: The browser's endpoint (``ws://HOST:PORT/PATH``, ``cdp://HOST:PORT``, ``http://HOST:PORT``).
        task: As for :class:`MiniWobDevice`.

    Raises:
        ConfigError: An unknown task, a malformed endpoint, or Playwright missing.
        DeviceError: The browser cannot be reached.
    """

    capabilities = DeviceCapabilities(launcher_and_apps=False, system_keys=False, seeded_reset=True, remote=True,
                                      task_reward=True, surface="web_page")

    def __init__(self, endpoint: str, task: str | None = None) -> None:
        super().__init__(task, endpoint=endpoint)
