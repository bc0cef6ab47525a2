"""A retried trial meets new event noise on the simulated phone, from the same start state."""

from __future__ import annotations

import pytest

from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.errors import ConfigError

BANNERS = NoiseConfig(dynamic_content=0.5)


def _looks(device: SimDevice, n: int = 16) -> list[str]:
    """The dumps of ``n`` observations in a row (each may or may not show a transient banner)."""
    return [device.hierarchy().raw for _ in range(n)]


def test_each_trial_draws_its_own_noise_and_the_same_trial_draws_the_same() -> None:
    phone = SimDevice(seed=3, noise=BANNERS)
    first = _looks(phone)
    assert len(set(first)) > 1  # banners come and go: the noise is on
    assert phone.reset(trial=1).endswith("(seed 3, trial 2's noise)")
    second = _looks(phone)
    assert second != first

    twin = SimDevice(seed=3, noise=BANNERS)
    twin.reset(trial=1)
    assert _looks(twin) == second  # deterministic: same seed and trial, same draws
    phone.reset()
    assert _looks(phone) == first  # trial 0 is the seed's own stream, as before trials existed


def test_a_later_trial_starts_from_the_same_screen_and_state() -> None:
    noise = NoiseConfig(unlabeled_buttons=0.5, image_buttons=0.5, dropped_actions=0.5, popup_rate=0.5)
    phone = SimDevice(seed=5, noise=noise)
    start, state = phone.hierarchy().raw, repr(phone.state)
    phone.open_app("Settings")
    phone.reset(trial=2)
    assert phone.hierarchy().raw == start and repr(phone.state) == state


@pytest.mark.parametrize("trial", [-1, True, 1.5])
def test_a_bad_trial_is_refused(trial: object) -> None:
    with pytest.raises(ConfigError, match="sim trial must be an integer >= 0"):
        SimDevice().reset(trial=trial)  # type: ignore[arg-type]
