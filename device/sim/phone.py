"""The simulation engine: apps, back stacks, focus, scrolling and input.

:class:`Phone` knows nothing about noise or the :class:`~latent_agent.device.base.Device`
interface; :class:`~latent_agent.device.sim.device.SimDevice` wraps it. Apps reach the
phone through the small API below (``push``, ``pop``, ``launch``,
``field_text``...), from the tap handlers they attach to nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from latent_agent.device.sim.apps import builtin_apps
from latent_agent.device.sim.state import PhoneState, initial_state
from latent_agent.device.sim.ui import Node, Page, Window, hit
from latent_agent.device.sim.views import NAV_H, STATUS_H
from latent_agent.errors import AppNotFoundError

if TYPE_CHECKING:
    from latent_agent.device.sim.apps.base import SimApp

LAUNCHER = "com.google.android.apps.nexuslauncher"
SYSTEMUI = "com.android.systemui"
#: Seconds of simulated time one user action takes (drives the stopwatch and timers).
SECONDS_PER_ACTION = 2


class Phone:
    """The simulated phone's screens and navigation over a :class:`PhoneState`."""

    def __init__(self, seed: int, width: int, height: int) -> None:
        self.seed = seed
        self.width = width
        self.height = height
        self.state: PhoneState = initial_state(seed)
        self.apps: dict[str, SimApp] = {app.package: app for app in builtin_apps()}
        self.stacks: dict[str, list[Page]] = {LAUNCHER: [Page("home")]}
        self.foreground = LAUNCHER
        self.recents: list[str] = []
        self.shade_return = LAUNCHER
        self.fields: dict[str, str] = {}
        #: Transient UI state of open dialogs (a choice not yet saved).
        self.ui: dict[str, str] = {}
        self.select_all: set[str] = set()
        self.focus = ""
        self.scroll: dict[str, int] = {}
        self.scroll_max: dict[str, int] = {}
        self.seconds = 0
        #: Called before an app starts; returning False stops the launch (noise hook).
        self.launch_hook: Callable[[str], bool] | None = None
        self._windows: list[Window] | None = None

    # -- what apps call ---------------------------------------------------

    @property
    def page(self) -> Page:
        """The top page of the foreground app."""
        return self.stacks[self.foreground][-1]

    def key(self, name: str = "list") -> str:
        """A scroll or field key private to the current page."""
        page = self.page
        return f"{self.foreground}/{page.name}/{page.arg}/{name}"

    def push(self, page: Page) -> None:
        """Show ``page`` on top of the foreground app's stack."""
        prefix = f"{self.foreground}/{page.name}/{page.arg}/"
        for k in [k for k in self.scroll if k.startswith(prefix)]:
            del self.scroll[k]
        self.stacks[self.foreground].append(page)
        self.focus = ""
        self._record(page)

    def replace(self, page: Page) -> None:
        """Swap the top page (tab switches, in-place navigation)."""
        self.stacks[self.foreground].pop()
        self.push(page)

    def pop(self) -> None:
        """Close the top page; closing an app's last page shows the home screen."""
        stack = self.stacks[self.foreground]
        self.focus = ""
        if self.foreground == SYSTEMUI:
            self.close_shade()
            return
        if len(stack) > 1:
            stack.pop()
            self._record(stack[-1])
        elif self.foreground != LAUNCHER:
            del self.stacks[self.foreground]
            self.go_home()

    def pop_to(self, name: str) -> None:
        """Pop pages until ``name`` is on top (no-op when it is not on the stack)."""
        stack = self.stacks[self.foreground]
        if any(p.name == name for p in stack):
            while stack[-1].name != name:
                stack.pop()
            self.focus = ""

    def go_home(self) -> None:
        self.foreground = LAUNCHER
        self.stacks[LAUNCHER] = [Page("home")]
        self.focus = ""
        self._record(Page("home"))

    def launch(self, package: str) -> None:
        """Bring ``package`` to the foreground, resuming its back stack if it has one.

        Raises:
            AppNotFoundError: If the package is not installed or has no launcher activity.
        """
        app = self.apps.get(package)
        if app is None or not (app.launcher or package == LAUNCHER):
            raise AppNotFoundError(f"package {package!r} is not installed or has no launcher activity")
        if package == LAUNCHER:
            self.go_home()
            return
        if self.launch_hook is not None and not self.launch_hook(package):
            return
        self.foreground = package
        if not self.stacks.get(package):
            self.stacks[package] = [app.home()]
        self.focus = ""
        if package in self.recents:
            self.recents.remove(package)
        self.recents.append(package)
        self.state.history.packages.append(package)
        self._record(self.page)

    def open_shade(self) -> None:
        if self.foreground != SYSTEMUI:
            self.shade_return = self.foreground
        self.foreground = SYSTEMUI
        self.stacks[SYSTEMUI] = [Page("quick_settings")]
        self.focus = ""
        self.state.history.packages.append(SYSTEMUI)
        self._record(self.page)

    def close_shade(self) -> None:
        self.foreground = self.shade_return if self.shade_return in self.stacks else LAUNCHER
        self.stacks.pop(SYSTEMUI, None)

    def field_text(self, key: str) -> str:
        return self.fields.get(key, "")

    def set_field(self, key: str, text: str, *, focus: bool = False, select_all: bool = False) -> None:
        """Set a text buffer; ``select_all`` makes the next typed text replace it, as
        when a rename dialog opens with the old name selected."""
        self.fields[key] = text
        self.select_all.discard(key)
        if select_all:
            self.select_all.add(key)
        if focus:
            self.focus = key

    def scroll_offset(self, key: str) -> int:
        return self.scroll.get(key, 0)

    def set_scroll(self, key: str, offset: int, max_offset: int) -> None:
        self.scroll[key] = offset
        self.scroll_max[key] = max_offset

    def _record(self, page: Page) -> None:
        suffix = f":{page.arg}" if page.arg else ""
        self.state.history.pages.append(f"{self.foreground}/{page.name}{suffix}")

    # -- observation --------------------------------------------------------

    def invalidate(self) -> None:
        self._windows = None

    def windows(self) -> list[Window]:
        """The windows on screen, bottom first; the last one receives input."""
        if self._windows is None:
            self._windows = self._build()
        return self._windows

    def _build(self) -> list[Window]:
        stack = self.stacks[self.foreground]
        app = self.apps[self.foreground]
        out: list[Window] = []
        for page in reversed(stack):
            window = app.build(self, page)
            out.insert(0, window)
            if not window.modal:
                break
        if self.foreground == SYSTEMUI and self.shade_return in self.stacks:
            # The shade slides over the app it was pulled down from.
            below = self.stacks[self.shade_return][-1]
            out.insert(0, self.apps[self.shade_return].build(self, below))
        return out

    # -- input ----------------------------------------------------------------

    def _after(self) -> None:
        self.seconds += SECONDS_PER_ACTION
        clock = self.state.clock
        if clock.stopwatch_running:
            clock.stopwatch_elapsed += SECONDS_PER_ACTION
        for timer in clock.timers:
            if timer.running:
                timer.seconds = max(0, timer.seconds - SECONDS_PER_ACTION)
        if self.seconds % 60 == 0:
            self.state.minutes = (self.state.minutes + 1) % (24 * 60)
        self._windows = None

    def tap(self, x: int, y: int) -> None:
        top = self.windows()[-1]
        try:
            if top.modal and not top.root.contains(x, y):
                if top.on_outside is not None:
                    top.on_outside()
                return
            for node in reversed(hit(top.root, x, y)):
                if node.field and node.enabled:
                    self.focus = node.field
                    return
                if node.on_tap is not None and node.enabled:
                    node.on_tap()
                    return
        finally:
            self._after()

    def long_press(self, x: int, y: int) -> None:
        top = self.windows()[-1]
        try:
            if top.modal and not top.root.contains(x, y):
                return
            for node in reversed(hit(top.root, x, y)):
                if node.on_long is not None and node.enabled:
                    node.on_long()
                    return
        finally:
            self._after()

    def swipe(self, x1: int, y1: int, x2: int, y2: int) -> None:
        dx, dy = x2 - x1, y2 - y1
        try:
            if y1 < STATUS_H and dy > 200:
                self.open_shade()
                return
            if y1 >= self.height - NAV_H - 10 and dy < -150:
                if self.foreground == LAUNCHER and self.page.name == "home":
                    self.stacks[LAUNCHER].append(Page("drawer"))
                    self._record(self.page)
                else:
                    self.go_home()
                return
            top = self.windows()[-1]
            if abs(dy) >= abs(dx):
                for node in reversed(hit(top.root, x1, y1)):
                    if node.scroll and self.scroll_max.get(node.scroll, 0) > 0:
                        limit = self.scroll_max[node.scroll]
                        self.scroll[node.scroll] = min(limit, max(0, self.scroll.get(node.scroll, 0) - dy))
                        return
            self.apps[self.foreground].swipe(self, self.page, dx, dy)
        finally:
            self._after()

    def back(self) -> None:
        try:
            top = self.windows()[-1]
            if top.modal:
                if top.on_outside is not None:
                    top.on_outside()
                return
            if not self.apps[self.foreground].back(self, self.page):
                self.pop()
        finally:
            self._after()

    def home(self) -> None:
        if self.foreground == SYSTEMUI:
            self.close_shade()
        self.go_home()
        self._after()

    def recents_screen(self) -> None:
        self.go_home()
        self.stacks[LAUNCHER].append(Page("recents"))
        self._record(self.page)
        self._after()

    def focused_node(self) -> Node | None:
        if not self.focus:
            return None
        for node in self.windows()[-1].root.iter():
            if node.field == self.focus:
                return node
        return None

    def type_text(self, text: str) -> bool:
        """Type into the focused field; False when no field on screen has focus."""
        node = self.focused_node()
        if node is None:
            return False
        key = self.focus
        if key in self.select_all:
            self.select_all.discard(key)
            self.fields[key] = text
        else:
            self.fields[key] = self.fields.get(key, "") + text
        self._after()
        return True

    def delete(self) -> None:
        node = self.focused_node()
        if node is not None:
            key = self.focus
            if key in self.select_all:
                self.select_all.discard(key)
                self.fields[key] = ""
            else:
                self.fields[key] = self.fields.get(key, "")[:-1]
        self._after()

    def enter(self) -> None:
        node = self.focused_node()
        try:
            if node is not None and node.on_enter is not None:
                node.on_enter()
        finally:
            self._after()
