"""The contract every :class:`~latent_agent.device.base.Device` backend must pass.

Subclass :class:`DeviceContract` in a backend's test module and implement
``make_device`` (return a fresh, connected device showing its home screen)::

    class TestSimDevice(DeviceContract):
        def make_device(self) -> Device:
            return SimDevice(seed=3)

The tests only use the Device interface and assume a phone with a launcher,
an app drawer with a search field, a quick-settings shade, and a Settings app
whose first page leads to "Network & internet". The reset tests check the hook
every pool and ``run --reset`` rely on: back home, with nothing left of what an
episode opened.
"""

from __future__ import annotations

import abc
import io
from collections.abc import Iterator

import pytest

from latent_agent.device.base import Device, Hierarchy, Key

LAUNCHERS = ("com.google.android.apps.nexuslauncher", "com.android.launcher3")
SYSTEMUI = "com.android.systemui"


class DeviceContract(abc.ABC):
    """Behaviour documented in :mod:`latent_agent.device.base`, checked through the interface only."""

    @abc.abstractmethod
    def make_device(self) -> Device:
        """A fresh device on its home screen."""

    @pytest.fixture
    def device(self) -> Iterator[Device]:
        dev = self.make_device()
        with dev:
            dev.press_key(Key.HOME)
            dev.wait_for_idle()
            yield dev

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

    def test_home_key_shows_the_launcher(self, device: Device) -> None:
        assert device.foreground_package() in LAUNCHERS

    # -- apps -----------------------------------------------------------------

    def test_launcher_apps_map_labels_to_packages(self, device: Device) -> None:
        apps = device.launcher_apps()
        assert apps and all(label and "." in pkg for label, pkg in apps.items())

    def test_open_app_by_human_name(self, device: Device) -> None:
        label, package = sorted(device.launcher_apps().items())[0]
        assert device.open_app(f"the {label.lower()} app") == package
        device.wait_for_idle()
        assert device.foreground_package() == package
        device.press_key(Key.HOME)
        device.wait_for_idle()
        assert device.foreground_package() in LAUNCHERS

    def test_unknown_apps_raise(self, device: Device) -> None:
        from latent_agent.errors import AppNotFoundError

        with pytest.raises(AppNotFoundError):
            device.launch_package("com.example.surely.not.installed")
        with pytest.raises(AppNotFoundError, match="installed"):
            device.open_app("Zzyzx Quantum Banana")

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
        device.launch_activity("app_drawer")
        device.wait_for_idle()
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
        device.open_app("Settings")
        device.wait_for_idle()
        before = {n.text for n in device.hierarchy().tree.iter() if n.text}
        device.scroll("down")
        device.wait_for_idle()
        after = {n.text for n in device.hierarchy().tree.iter() if n.text}
        assert after - before, "scrolling down showed nothing new"
        device.scroll("up")
        device.wait_for_idle()
        assert before <= {n.text for n in device.hierarchy().tree.iter() if n.text} | after

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

    def test_reset_returns_to_the_home_screen_and_says_what_it_did(self, device: Device) -> None:
        device.launch_activity("quick_settings")
        device.wait_for_idle()
        done = device.reset()
        device.wait_for_idle()
        assert isinstance(done, str) and done
        assert device.foreground_package() in LAUNCHERS

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

    def test_long_press_and_swipe_are_accepted(self, device: Device) -> None:
        size = device.screen_size()
        device.long_press(size.width // 2, size.height // 2)
        device.swipe(size.width // 2, size.height // 2, size.width // 2, size.height // 4, 200)
        device.wait_for_idle(0.5)
        assert device.hierarchy().tree.node_count > 0
