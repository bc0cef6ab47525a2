"""Each noise knob changes what the simulated phone shows or does (and nothing when off); --noise parsing."""

from __future__ import annotations

import pytest

from latent_agent.device.base import Device, Key
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import DECOYS, PROFILES, NoiseConfig, describe_noise, garble
from latent_agent.errors import ConfigError
from tests.device.noise_checks import CHECKS, check_screenshot_follows_the_dump, tap_on
from tests.device.sim_helpers import assert_description_invariants


def make_sim(seed: int, noise: NoiseConfig) -> tuple[Device, SimDevice]:
    sim = SimDevice(seed=seed, noise=noise)
    return sim, sim


@pytest.mark.parametrize("knob", sorted(CHECKS))
def test_knob_on_the_sim(knob: str) -> None:
    CHECKS[knob](make_sim)


def test_every_knob_has_a_check() -> None:
    knobs = set(NoiseConfig().levels()) - {"frozen_steps"}  # shown by the frozen_screen check
    assert knobs == set(CHECKS)


def test_a_frozen_screen_freezes_the_screenshot_too() -> None:
    check_screenshot_follows_the_dump(make_sim)


def test_all_knobs_are_off_by_default() -> None:
    assert not NoiseConfig().active and NoiseConfig().spec == "none"
    plain, noisy_off = SimDevice(seed=1), SimDevice(seed=1, noise=NoiseConfig())
    for dev in (plain, noisy_off):
        dev.open_app("Clock")
        tap_on(dev, "More options")
    assert plain.hierarchy().raw == noisy_off.hierarchy().raw


def script(dev: Device) -> list[bytes]:
    """A fixed walk through three apps; the dump after every action."""
    seen = []
    for step in (lambda: dev.open_app("Settings"), lambda: dev.tap(540, 800), lambda: dev.press_key(Key.BACK),
                 lambda: dev.open_app("Play Store"), lambda: dev.tap(540, 330), lambda: dev.input_text("maps"),
                 lambda: dev.press_key(Key.HOME), lambda: dev.open_app("Clock"), lambda: dev.tap(540, 1960)):
        step()
        dev.wait_for_idle()
        seen.append(dev.hierarchy().raw)
    return seen


def test_the_paper_profile_is_seeded_and_deterministic() -> None:
    paper = PROFILES["paper"]
    first, again = SimDevice(seed=4, noise=paper), SimDevice(seed=4, noise=paper)
    assert script(first) == script(again)
    assert first.state == again.state
    again.reset()
    assert script(again) == script(SimDevice(seed=4, noise=paper))
    assert script(SimDevice(seed=5, noise=paper)) != script(SimDevice(seed=4, noise=paper))


def test_one_knob_does_not_shift_the_decisions_of_another() -> None:
    """Each knob draws from its own stream: adding typos does not move which actions are dropped."""
    def dropped(noise: NoiseConfig) -> list[bool]:
        dev = SimDevice(seed=7, noise=noise)
        out = []
        for _ in range(20):
            before = len(dev.state.history.packages)
            dev.open_app("Clock")
            out.append(len(dev.state.history.packages) == before)
            dev.press_key(Key.HOME)
        return out

    base = dropped(NoiseConfig(dropped_actions=0.3))
    assert any(base) and not all(base)
    assert dropped(NoiseConfig(dropped_actions=0.3, wrong_text=0.5, neighbour_taps=0.5)) == base


def test_noisy_screens_keep_the_description_invariants() -> None:
    dev = SimDevice(seed=2, noise=NoiseConfig(invisible_nodes=3, image_buttons=1.0, unlabeled_buttons=0.5))
    for app in ("Settings", "Clock", "Files"):
        dev.open_app(app)
        assert_description_invariants(dev.hierarchy().tree)


def test_garble_always_changes_the_text() -> None:
    import random

    for text in ("spotify", "a", "Hello World", "42", "ab"):
        for n in range(30):
            assert garble(text, random.Random(n)) != text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", NoiseConfig()),
        ("none", NoiseConfig()),
        ("paper", PROFILES["paper"]),
        ("tap_offset_px=20, popup_rate=0.25,behind_dialog=true",
         NoiseConfig(tap_offset_px=20, popup_rate=0.25, behind_dialog=True)),
        ("paper,wrong_text=0", NoiseConfig(**{**PROFILES["paper"].levels(), "wrong_text": 0.0})),
    ],
)
def test_noise_values_parse(text: str, expected: NoiseConfig) -> None:
    assert NoiseConfig.parse(text) == expected
    assert NoiseConfig.parse(expected.spec) == expected  # what is recorded reads back


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("loudness=3", "unknown knob 'loudness'; knobs: unlabeled_buttons"),
        ("noisy", "unknown profile 'noisy'"),
        ("popup_rate=0.1,paper", "the profile 'paper' must come first"),
        ("popup_rate=1.5", "popup_rate must be a probability between 0 and 1, not 1.5"),
        ("popup_rate=often", "popup_rate needs a probability between 0 and 1, not 'often'"),
        ("tap_offset_px=lots", "tap_offset_px needs a whole number, not 'lots'"),
        ("invisible_nodes=-1", "invisible_nodes must be a whole number >= 0"),
        ("frozen_steps=0", "frozen_steps must be >= 1"),
        ("behind_dialog=maybe", "behind_dialog needs true or false"),
        ("popup_rate=0.1,popup_rate=0.2", "sets popup_rate twice"),
        ("popup_rate=0.1,,wrong_text=0.1", "empty entry"),
    ],
)
def test_bad_noise_values_are_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        NoiseConfig.parse(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_recorded_specs_are_shown_with_their_profile() -> None:
    assert describe_noise(PROFILES["paper"].spec) == f"paper ({PROFILES['paper'].spec})"
    assert describe_noise("none") == "none" and describe_noise("") == "none"
    assert describe_noise("popup_rate=0.3") == "popup_rate=0.3"


def test_knobs_combine_without_doubling_anything() -> None:
    dev = SimDevice(seed=1, noise=NoiseConfig(behind_dialog=True, dynamic_content=1.0, invisible_nodes=2))
    dev.open_app("Settings")
    tap_on(dev, "Network & internet")
    tap_on(dev, "Private DNS")
    for _ in range(3):
        raw = dev.hierarchy().raw
        assert raw.count(b"notification_headsup") == 1
        assert sum(raw.count(f'text="{decoy}"'.encode()) for decoy in DECOYS) == 2
    assert len(dev.hierarchy().tree.roots) == 3  # the screen behind, the dialog, the notification
