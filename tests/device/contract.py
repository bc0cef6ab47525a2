"""The contract every :class:`~latent_agent.device.base.Device` backend must pass.

Subclass :class:`DeviceContract` in a backend's test module and implement
``make_device`` (return a fresh, connected device showing its home screen)::

    class TestSimDevice(DeviceContract):
        def make_device(self) -> Device:
            return SimDevice(seed=3)

The tests only use the Device interface and run per capability
(:class:`~latent_agent.device.base.DeviceCapabilities`), never per backend name: a
device with ``launcher_and_apps`` is assumed to have a launcher, an app drawer with
a search field, a quick-settings shade and a Settings app whose first page leads to
"Network & internet"; one without it must refuse every launcher call with
``ActionNotSupportedError``, and likewise Back and Home without ``system_keys``.
Screens the input tests need are opened by :meth:`DeviceContract.open_text_field`
and :meth:`DeviceContract.open_long_list`, which a backend without apps overrides.
The reset tests check the hook every pool and ``run --reset`` rely on: back home
(or to the seeded start), with nothing left of what an episode opened.
"""

from __future__ import annotations

import abc
import functools
import io
from collections.abc import Callable, Iterator

import pytest

from latent_agent.device.base import Device, Hierarchy, Key
from latent_agent.device.task_env import TaskDevice, task_device
from latent_agent.device.web_page import WebPage, web_page
from latent_agent.errors import ActionNotSupportedError

LAUNCHERS = ("com.google.android.apps.nexuslauncher", "com.android.launcher3")
SYSTEMUI = "com.android.systemui"


def shown_texts(device: Device) -> set[str]:
    """The texts on screen (a backend may also list nodes scrolled out of view, marked invisible)."""
    return {n.text for n in device.hierarchy().tree.iter() if n.text and n.visible is not False}


def needs_phone(test: Callable[[DeviceContract, Device], None]) -> Callable[[DeviceContract, Device], None]:
    """Run ``test`` only on a device with a launcher and system keys (the others are checked to refuse them)."""

    @functools.wraps(test)
    def run(self: DeviceContract, device: Device) -> None:
        caps = device.capabilities
        if not (caps.launcher_and_apps and caps.system_keys):
            pytest.skip("a phone's launcher and keys; this device refuses them (test_*_work_or_are_refused)")
        test(self, device)

    return run


class DeviceContract(abc.ABC):
    """Behaviour documented in :mod:`latent_agent.device.base`, checked through the interface only."""

    @abc.abstractmethod
    def make_device(self) -> Device:
        """A fresh device on its home screen."""

    def open_text_field(self, device: Device) -> None:
        """Show a screen with a text field (the app drawer's search field on a phone)."""
        device.launch_activity("app_drawer")
        device.wait_for_idle()

    def open_long_list(self, device: Device) -> None:
        """Show a list longer than the screen (Settings' first page on a phone)."""
        device.open_app("Settings")
        device.wait_for_idle()

    @pytest.fixture
    def device(self) -> Iterator[Device]:
        dev = self.make_device()
        with dev:
            if dev.capabilities.system_keys:
                dev.press_key(Key.HOME)
            dev.wait_for_idle()
            yield dev

    # -- capabilities ---------------------------------------------------------

    def test_declared_capabilities_match_the_registry_and_the_interface(self, device: Device) -> None:
        from latent_agent.device.spec import BACKENDS

        declared = [c for b in BACKENDS.values() for c in b.declared if c == device.capabilities]
        assert declared, f"no registry entry declares {device.capabilities}"
        assert device.capabilities.task_reward == isinstance(device, TaskDevice)
        assert (task_device(device) is not None) == device.capabilities.task_reward
        web = device.capabilities.surface == "web_page"
        assert web == isinstance(device, WebPage) == (web_page(device) is not None)

    def test_the_page_comes_with_the_hierarchy_of_a_web_page_only(self, device: Device) -> None:
        page = device.hierarchy().page
        if device.capabilities.surface != "web_page":
            assert page is None
            return
        assert page is not None and page.screen == device.screen_size()
        assert list(page.leaves), "a web page with no element shown"
        screen = device.screen_size().as_bounds()
        for element in page.leaves:
            assert screen.contains_point(*element.bounds.center), element

    def test_system_keys_work_or_are_refused(self, device: Device) -> None:
        if device.capabilities.system_keys:
            device.press_key(Key.HOME)
            device.wait_for_idle()
            assert device.foreground_package() in LAUNCHERS
            return
        before = device.hierarchy().raw
        for key in (Key.BACK, Key.HOME, Key.APP_SWITCH):
            with pytest.raises(ActionNotSupportedError):
                device.press_key(key)
        assert device.hierarchy().raw == before, "a refused key changed the screen"

    def test_launcher_calls_work_or_are_refused(self, device: Device) -> None:
        if device.capabilities.launcher_and_apps:
            assert device.launcher_apps()
            return
        assert dict(device.launcher_apps()) == {}
        with pytest.raises(ActionNotSupportedError):
            device.open_app("Settings")
        with pytest.raises(ActionNotSupportedError):
            device.launch_package("com.android.settings")
        with pytest.raises(ActionNotSupportedError):
            device.launch_activity("app_drawer")

    # -- observation ----------------------------------------------------------

    def test_screen_size_is_a_phone(self, device: Device) -> None:
        size = device.screen_size()
        assert 320 <= size.width <= 4000 and 320 <= size.height <= 4000

    def test_hierarchy_is_raw_dump_plus_its_parse(self, device: Device) -> None:
        from latent_agent.accessibility.load import parse_any

        h = device.hierarchy()
        assert isinstance(h, Hierarchy) and h.raw
        reparsed = parse_any(h.raw, source="contract")
        assert reparsed.node_count == h.tree.node_count > 0
        assert h.tree.source == h.format

    def test_screenshot_is_a_png_of_the_screen(self, device: Device) -> None:
        from PIL import Image

        png = device.screenshot()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        image = Image.open(io.BytesIO(png))
        size = device.screen_size()
        assert image.size == (size.width, size.height)

    @needs_phone
    def test_home_key_shows_the_launcher(self, device: Device) -> None:
        assert device.foreground_package() in LAUNCHERS

    # -- apps -----------------------------------------------------------------

    @needs_phone
    def test_launcher_apps_map_labels_to_packages(self, device: Device) -> None:
        apps = device.launcher_apps()
        assert apps and all(label and "." in pkg for label, pkg in apps.items())

    @needs_phone
    def test_open_app_by_human_name(self, device: Device) -> None:
        label, package = sorted(device.launcher_apps().items())[0]
        assert device.open_app(f"the {label.lower()} app") == package
        device.wait_for_idle()
        assert device.foreground_package() == package
        device.press_key(Key.HOME)
        device.wait_for_idle()
        assert device.foreground_package() in LAUNCHERS

    @needs_phone
    def test_unknown_apps_raise(self, device: Device) -> None:
        from latent_agent.errors import AppNotFoundError

        with pytest.raises(AppNotFoundError):
            device.launch_package("com.example.surely.not.installed")
        with pytest.raises(AppNotFoundError, match="installed"):
            device.open_app("Zzyzx Quantum Banana")

    @needs_phone
    def test_system_activities(self, device: Device) -> None:
        device.launch_activity("quick_settings")
        device.wait_for_idle()
        assert device.foreground_package() == SYSTEMUI
        device.press_key(Key.HOME)
        device.launch_activity("app_drawer")
        device.wait_for_idle()
        assert device.foreground_package() in LAUNCHERS
        assert any(n.class_name.endswith("EditText") for n in device.hierarchy().tree.iter())

    # -- input ----------------------------------------------------------------

    def test_typing_goes_into_the_tapped_field(self, device: Device) -> None:
        self.open_text_field(device)
        field = next(n for n in device.hierarchy().tree.iter() if n.class_name.endswith("EditText"))
        assert field.bounds is not None
        device.tap(*field.bounds.center)
        device.input_text("cl0ck & co")
        device.wait_for_idle()
        focused = [n for n in device.hierarchy().tree.iter() if n.focused]
        assert [n.text for n in focused] == ["cl0ck & co"]
        device.press_key(Key.DEL)
        device.wait_for_idle()
        assert [n.text for n in device.hierarchy().tree.iter() if n.focused] == ["cl0ck & c"]

    def test_scroll_down_reveals_more_of_a_long_list(self, device: Device) -> None:
        self.open_long_list(device)
        before = shown_texts(device)
        device.scroll("down")
        device.wait_for_idle()
        after = shown_texts(device)
        assert after - before, "scrolling down showed nothing new"
        device.scroll("up")
        device.wait_for_idle()
        assert before <= shown_texts(device) | after

    @needs_phone
    def test_back_leaves_a_subpage(self, device: Device) -> None:
        device.open_app("Settings")
        device.wait_for_idle()
        top = device.hierarchy().raw
        row = next(n for n in device.hierarchy().tree.iter() if n.text == "Network & internet")
        assert row.bounds is not None
        device.tap(*row.bounds.center)
        device.wait_for_idle()
        assert device.hierarchy().raw != top
        device.press_key(Key.BACK)
        device.wait_for_idle()
        assert any(n.text == "Network & internet" for n in device.hierarchy().tree.iter())

    # -- reset ----------------------------------------------------------------

    @needs_phone
    def test_reset_returns_to_the_home_screen_and_says_what_it_did(self, device: Device) -> None:
        device.launch_activity("quick_settings")
        device.wait_for_idle()
        done = device.reset()
        device.wait_for_idle()
        assert isinstance(done, str) and done
        assert device.foreground_package() in LAUNCHERS

    @needs_phone
    def test_reset_leaves_nothing_of_what_the_episode_opened(self, device: Device) -> None:
        package = device.open_app("Settings")
        device.wait_for_idle()
        top = {n.text for n in device.hierarchy().tree.iter() if n.text}
        row = next(n for n in device.hierarchy().tree.iter() if n.text == "Network & internet")
        assert row.bounds is not None
        device.tap(*row.bounds.center)
        device.wait_for_idle()
        subpage = {n.text for n in device.hierarchy().tree.iter() if n.text} - top
        assert subpage, "the subpage shows nothing the first page does not"
        device.reset(seed=0, opened=[package])
        device.wait_for_idle()
        assert device.foreground_package() in LAUNCHERS
        device.open_app("Settings")  # starts afresh on its first page, not where the episode left it
        device.wait_for_idle()
        assert not subpage & {n.text for n in device.hierarchy().tree.iter() if n.text}

    def test_a_seeded_reset_starts_from_the_same_screen(self, device: Device) -> None:
        if not device.capabilities.seeded_reset:
            pytest.skip("this device has no seeded start state (it is one particular device)")
        device.reset(seed=5)
        device.wait_for_idle()
        first = device.hierarchy().raw
        size = device.screen_size()
        device.tap(size.width // 2, size.height // 2)
        device.wait_for_idle()
        device.reset(seed=5)
        device.wait_for_idle()
        assert device.hierarchy().raw == first

    def test_long_press_and_swipe_are_accepted(self, device: Device) -> None:
        size = device.screen_size()
        device.long_press(size.width // 2, size.height // 2)
        device.swipe(size.width // 2, size.height // 2, size.width // 2, size.height // 4, 200)
        device.wait_for_idle(0.5)
        assert device.hierarchy().tree.node_count > 0
