"""The simulated phone: determinism, dumps, screenshots, navigation and errors."""

from __future__ import annotations

import io

import pytest
from lxml import etree
from PIL import Image

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.device.base import Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import DeviceActionError
from tests.device.sim_helpers import SIM_ATTRIBUTES, assert_description_invariants


def tap_label(device: SimDevice, label: str) -> None:
    from latent_agent.benchmarks.steps import find_element

    node = find_element(device, label)
    assert node.bounds is not None
    device.tap(*node.bounds.center)


def brightness(image: Image.Image, x: int, y: int) -> int:
    pixel = image.getpixel((x, y))
    assert isinstance(pixel, tuple)
    return sum(pixel)


def test_same_seed_same_phone_and_different_seed_differs() -> None:
    a, b, c = SimDevice(seed=7), SimDevice(seed=7), SimDevice(seed=8)
    for dev in (a, b, c):
        dev.open_app("Settings")
        tap_label(dev, "Display")
    assert a.hierarchy().raw == b.hierarchy().raw
    assert a.screenshot() == b.screenshot()
    assert (a.state.minutes, a.state.settings.battery_level) != (
        c.state.minutes,
        c.state.settings.battery_level,
    )


def test_reset_restores_the_initial_state() -> None:
    dev = SimDevice(seed=2)
    first = dev.hierarchy().raw
    dev.open_app("Settings")
    tap_label(dev, "Display")
    tap_label(dev, "Dark theme")
    assert dev.state.settings.display.dark_theme
    dev.reset()
    assert not dev.state.settings.display.dark_theme
    assert dev.state.history.pages == []
    assert dev.hierarchy().raw == first


def test_dump_has_the_uiautomator_attribute_set_in_order() -> None:
    dev = SimDevice()
    dev.open_app("Clock")
    raw = dev.hierarchy().raw
    assert raw.startswith(
        b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    )
    root = etree.fromstring(raw)
    nodes = list(root.iter("node"))
    assert len(nodes) > 30
    for node in nodes:
        assert tuple(node.attrib) == SIM_ATTRIBUTES
    packages = {n.get("package") for n in nodes}
    assert packages == {"com.google.android.deskclock"}
    assert all(n.get("resource-id") == "" or ":id/" in n.get("resource-id", "") for n in nodes)


def test_settings_rows_are_recyclerview_rows_with_android_title_ids() -> None:
    dev = SimDevice()
    dev.open_app("Settings")
    tree = dev.hierarchy().tree
    lists = [n for n in tree.iter() if n.class_name == "androidx.recyclerview.widget.RecyclerView"]
    assert lists and lists[0].resource_id == "com.android.settings:id/recycler_view" and lists[0].scrollable
    titles = [n.text for n in lists[0].iter() if n.resource_id == "android:id/title"]
    assert titles[:3] == ["Network & internet", "Connected devices", "Apps"]
    assert "About phone" not in titles  # below the fold until scrolled


def test_long_lists_scroll_and_rows_stay_inside_the_list() -> None:
    dev = SimDevice()
    dev.open_app("Settings")
    dev.scroll("down")
    dev.scroll("down")
    tree = dev.hierarchy().tree
    lst = next(n for n in tree.iter() if n.resource_id == "com.android.settings:id/recycler_view")
    assert lst.bounds is not None
    assert "About phone" in {n.text for n in lst.iter()}
    for node in lst.iter():
        assert node.bounds is not None
        assert lst.bounds.left <= node.bounds.left and node.bounds.bottom <= lst.bounds.bottom
    dev.scroll("up")
    dev.scroll("up")
    dev.scroll("up")
    assert "Network & internet" in {n.text for n in dev.hierarchy().tree.iter()}


@pytest.mark.parametrize("app", ["", "Settings", "Clock", "Chrome", "Play Store", "Files", "Calendar"])
def test_every_app_screen_parses_and_keeps_the_description_invariants(app: str) -> None:
    dev = SimDevice(seed=4)
    if app:
        dev.open_app(app)
    h = dev.hierarchy()
    assert parse_xml(h.raw).node_count == h.tree.node_count
    assert h.tree.screen is not None and (h.tree.screen.width, h.tree.screen.height) == (1080, 2400)
    assert_description_invariants(h.tree)


def test_screenshot_is_legible_png_and_follows_the_theme() -> None:
    dev = SimDevice()
    dev.open_app("Settings")
    light = Image.open(io.BytesIO(dev.screenshot())).convert("RGB")
    assert light.size == (1080, 2400)
    assert light.getpixel((540, 1200)) == (255, 255, 255)
    # Text is drawn: the row area holds dark pixels, not just the background.
    row = light.crop((150, 300, 900, 500))
    red_band = row.getextrema()[0]
    assert isinstance(red_band, tuple) and red_band[0] < 80
    tap_label(dev, "Display")
    tap_label(dev, "Dark theme")
    dark = Image.open(io.BytesIO(dev.screenshot())).convert("RGB")
    assert brightness(dark, 540, 1200) < 150


def test_dialogs_are_separate_windows_over_a_dimmed_screen() -> None:
    dev = SimDevice()
    dev.open_app("Settings")
    tap_label(dev, "Network & internet")
    tap_label(dev, "Private DNS")
    tree = dev.hierarchy().tree
    assert len(tree.roots) == 1
    titles = [n.text for n in tree.iter() if n.resource_id == "android:id/alertTitle"]
    assert titles == ["Private DNS"]
    assert "Airplane mode" not in {n.text for n in tree.iter()}
    shot = Image.open(io.BytesIO(dev.screenshot())).convert("RGB")
    assert brightness(shot, 20, 2000) < 3 * 255 // 2  # the scrim
    dev.press_key(Key.BACK)
    assert "Airplane mode" in {n.text for n in dev.hierarchy().tree.iter()}


def test_text_typed_without_focus_is_dropped_like_on_a_phone() -> None:
    dev = SimDevice()
    dev.open_app("Settings")
    before = dev.hierarchy().raw
    dev.input_text("hello")
    assert dev.hierarchy().raw == before


def test_installed_apps_join_the_drawer_and_open() -> None:
    dev = SimDevice()
    assert "Spotify" not in dev.launcher_apps()
    dev.open_app("Play Store")
    tap_label(dev, "Search apps & games")
    dev.input_text("spotify")
    dev.press_key(Key.ENTER)
    tap_label(dev, "Install")
    assert dev.launcher_apps()["Spotify"] == "com.spotify.music"
    dev.launch_activity("app_drawer")
    assert "Spotify" in {n.text for n in dev.hierarchy().tree.iter()}
    assert dev.open_app("spotify") == "com.spotify.music"
    assert "Welcome to Spotify" in {n.text for n in dev.hierarchy().tree.iter()}


def test_gestures_open_the_shade_the_drawer_and_go_home() -> None:
    dev = SimDevice()
    dev.swipe(540, 40, 540, 1200)
    assert dev.foreground_package() == "com.android.systemui"
    dev.press_key(Key.BACK)
    dev.swipe(540, 1400, 540, 500)
    assert any(n.resource_id.endswith("apps_list_view") for n in dev.hierarchy().tree.iter())
    dev.open_app("Clock")
    dev.swipe(540, 2380, 540, 1500)
    assert dev.foreground_package() == "com.google.android.apps.nexuslauncher"


def test_bad_actions_raise_typed_errors() -> None:
    dev = SimDevice()
    with pytest.raises(DeviceActionError, match="outside"):
        dev.tap(-1, 5)
    with pytest.raises(DeviceActionError, match="outside"):
        dev.long_press(5, 2400)
    with pytest.raises(DeviceActionError, match="unknown system activity"):
        dev.launch_activity("recents")  # type: ignore[arg-type]
    with pytest.raises(DeviceActionError):
        dev.wait_for_idle(-1)
