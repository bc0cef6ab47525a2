"""Each noise knob changes what the agent observes (and nothing when off)."""

from __future__ import annotations

import pytest

from accessibility.clean import clean_tree
from accessibility.describe import describe
from device.base import Key
from device.sim.device import SimDevice
from device.sim.noise import DECOYS, NoiseConfig
from latent_agent.errors import ConfigError
from tests.device.sim_helpers import assert_description_invariants
from tests.device.test_sim import tap_label


def labels(dev: SimDevice) -> set[str]:
    return {n.text or n.content_desc for n in dev.hierarchy().tree.iter()} - {""}


def test_all_knobs_are_off_by_default() -> None:
    assert not NoiseConfig().active
    plain, noisy_off = SimDevice(seed=1), SimDevice(seed=1, noise=NoiseConfig())
    for dev in (plain, noisy_off):
        dev.open_app("Clock")
        tap_label(dev, "More options")
    assert plain.hierarchy().raw == noisy_off.hierarchy().raw


def test_invisible_nodes_are_in_the_dump_but_not_in_the_description() -> None:
    dev = SimDevice(seed=1, noise=NoiseConfig(invisible_nodes=3))
    dev.open_app("Settings")
    tree = dev.hierarchy().tree
    hidden = [n for n in tree.iter() if n.visible is False]
    assert len(hidden) == 3 and all(n.text in DECOYS for n in hidden)
    text = describe(clean_tree(tree))
    assert not any(f'"{n.text}"' in text for n in hidden)
    assert_description_invariants(tree)
    assert (
        SimDevice(seed=1, noise=NoiseConfig(invisible_nodes=3)).hierarchy().raw
        == SimDevice(seed=1, noise=NoiseConfig(invisible_nodes=3)).hierarchy().raw
    )


def test_content_behind_a_dialog_stays_in_the_tree() -> None:
    quiet, noisy = SimDevice(), SimDevice(noise=NoiseConfig(behind_dialog=True))
    for dev in (quiet, noisy):
        dev.open_app("Settings")
        tap_label(dev, "Network & internet")
        tap_label(dev, "Private DNS")
    assert "Airplane mode" not in labels(quiet)
    tree = noisy.hierarchy().tree
    assert len(tree.roots) == 2
    assert {"Airplane mode", "Private DNS", "Save"} <= labels(noisy)
    # The content below is in the tree but no longer reachable: tapping it hits the dialog's scrim.
    row = next(n for n in tree.roots[0].iter() if n.text == "Airplane mode")
    assert row.bounds is not None
    noisy.tap(*row.bounds.center)
    assert noisy.state.settings.network.airplane_mode is False


def test_unlabeled_icon_buttons() -> None:
    quiet = SimDevice(seed=5)
    noisy = SimDevice(seed=5, noise=NoiseConfig(unlabeled_buttons=1.0))
    for dev in (quiet, noisy):
        dev.open_app("Clock")
    assert {"More options", "Add alarm", "Expand alarm"} <= labels(quiet)
    assert not {"More options", "Add alarm", "Expand alarm"} & labels(noisy)
    buttons = [n for n in noisy.hierarchy().tree.iter() if n.class_name.endswith("ImageButton")]
    assert buttons and all(not n.content_desc for n in buttons)


def test_popups_appear_when_apps_start_and_can_be_dismissed() -> None:
    dev = SimDevice(seed=3, noise=NoiseConfig(popup_rate=1.0))
    seen = set()
    for app in ("Settings", "Clock", "Chrome", "Files", "Calendar", "Play Store"):
        dev.open_app(app)
        tree = dev.hierarchy().tree
        texts = labels(dev)
        assert "Close ad" in texts or any(t.startswith("Allow ") for t in texts), texts
        seen.add(dev.foreground_package())
        dev.press_key(Key.BACK)
        assert "Close ad" not in labels(dev) and tree.node_count
    assert "com.google.android.permissioncontroller" in seen
    dev = SimDevice(seed=3, noise=NoiseConfig(popup_rate=1.0))
    dev.open_app("Clock")
    blocked = dev.state.clock.alarms[0].enabled
    dev.tap(540, 1200)  # lands on the popup, not on the app
    assert dev.state.clock.alarms[0].enabled == blocked


def test_delayed_screen_updates_show_the_old_screen_until_idle() -> None:
    dev = SimDevice(noise=NoiseConfig(delay_observations=2))
    home = dev.hierarchy().raw
    dev.open_app("Clock")
    assert dev.hierarchy().raw == home
    assert dev.hierarchy().raw == home
    assert dev.hierarchy().raw != home
    dev.press_key(Key.HOME)
    assert b"deskclock" in dev.hierarchy().raw
    dev.wait_for_idle()
    assert dev.hierarchy().raw == home


def test_taps_land_off_target() -> None:
    exact = SimDevice()
    off = SimDevice(noise=NoiseConfig(tap_offset_px=400))
    for dev in (exact, off):
        dev.open_app("Settings")
        tap_label(dev, "Battery")
    assert exact.state.history.pages[-1] == "com.android.settings/battery"
    assert off.state.history.pages[-1] != "com.android.settings/battery"


def test_apps_sometimes_fail_to_start() -> None:
    dev = SimDevice(seed=9, noise=NoiseConfig(launch_failure_rate=1.0))
    dev.open_app("Clock")
    assert dev.foreground_package() == "android"
    assert "Clock keeps stopping" in labels(dev)
    tap_label(dev, "Close app")
    assert dev.foreground_package() == "com.google.android.apps.nexuslauncher"
    half = SimDevice(seed=9, noise=NoiseConfig(launch_failure_rate=0.5))
    outcomes = []
    for _ in range(20):
        half.press_key(Key.HOME)
        half.open_app("Clock")
        outcomes.append(half.foreground_package() == "com.google.android.deskclock")
        half.press_key(Key.BACK)
    assert 3 <= sum(outcomes) <= 17


def test_noise_specs_parse_and_reject_bad_values() -> None:
    cfg = NoiseConfig.parse("tap_offset_px=20, popup_rate=0.25,behind_dialog=true")
    assert cfg == NoiseConfig(tap_offset_px=20, popup_rate=0.25, behind_dialog=True)
    assert NoiseConfig.parse("") == NoiseConfig()
    with pytest.raises(ConfigError, match="knobs"):
        NoiseConfig.parse("loudness=3")
    with pytest.raises(ConfigError, match="probability"):
        NoiseConfig(popup_rate=1.5)
    with pytest.raises(ConfigError, match="int"):
        NoiseConfig.parse("tap_offset_px=lots")
