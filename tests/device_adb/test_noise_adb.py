"""Noise lives in the phone: every knob's check passes through AdbDevice against the served sim,
and ``--noise`` is checked against what a served sim reports (a real phone refuses it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.device.adb import AdbDevice
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import PROFILES, NoiseConfig
from latent_agent.device.spec import check_pool_noise, device_noise, load_device, noise_record, parse_device_spec
from latent_agent.errors import ConfigError
from tests.device.noise_checks import CHECKS, Make, check_screenshot_follows_the_dump
from tests.device_adb.conftest import Adb, Served, serve, stop
from tests.device_adb.fakes import RecordingDevice


@pytest.fixture
def make_served(adb: Adb) -> Iterator[Make]:
    """Serves a fresh noisy sim per call and hands back an AdbDevice on it; all stopped afterwards."""
    served: list[Served] = []

    def make(seed: int, noise: NoiseConfig) -> tuple[Device, SimDevice]:
        sim = SimDevice(seed=seed, noise=noise)
        served.append(serve(adb, sim))
        return AdbDevice(served[-1].serial, adb_port=adb.port), sim

    yield make
    for one in served:
        stop(adb, one)


@pytest.mark.parametrize("knob", sorted(CHECKS))
def test_knob_through_adb(knob: str, make_served: Make) -> None:
    CHECKS[knob](make_served)


def test_a_frozen_screen_freezes_screencap_too(make_served: Make) -> None:
    check_screenshot_follows_the_dump(make_served)


def _serial(make: Make, noise: NoiseConfig) -> str:
    dev, _ = make(0, noise)
    assert isinstance(dev, AdbDevice)
    return dev.serial


def test_a_served_sim_reports_its_noise(make_served: Make) -> None:
    paper = PROFILES["paper"]
    serial = _serial(make_served, paper)
    device = load_device(f"adb:{serial}", paper)  # the same noise: accepted
    assert device_noise(device) == paper
    with pytest.raises(ConfigError, match=r"served with noise .*not popup_rate=0\.5.*sim serve --noise"):
        load_device(f"adb:{serial}", NoiseConfig(popup_rate=0.5))
    with pytest.raises(ConfigError, match="served with noise"):
        check_pool_noise([parse_device_spec(f"adb:{serial}")], NoiseConfig())
    check_pool_noise([parse_device_spec(f"adb:{serial}")], paper)
    quiet = _serial(make_served, NoiseConfig())
    assert device_noise(load_device(f"adb:{quiet}")) == NoiseConfig()
    assert noise_record(device) == paper.spec and noise_record(load_device(f"adb:{quiet}")) == "none"
    assert noise_record(SimDevice(noise=paper)) == paper.spec


def test_a_real_phone_refuses_noise(adb: Adb) -> None:
    phone = serve(adb, RecordingDevice())  # an adb device that is not the simulated phone
    try:
        assert device_noise(load_device(f"adb:{phone.serial}")) is None
        assert noise_record(load_device(f"adb:{phone.serial}")) is None
        with pytest.raises(ConfigError, match="is a real device, whose noise cannot be switched on"):
            load_device(f"adb:{phone.serial}", PROFILES["paper"])
        load_device(f"adb:{phone.serial}", NoiseConfig())  # asking for none is fine
        check_pool_noise([parse_device_spec(f"adb:{phone.serial}")], NoiseConfig())
    finally:
        stop(adb, phone)
    for spec in ("u2:R58M123", "androidenv:/nonexistent.json"):
        with pytest.raises(ConfigError, match="real device"):  # refused before any connection is tried
            load_device(spec, NoiseConfig(popup_rate=0.1))
        with pytest.raises(ConfigError, match="real device"):
            check_pool_noise([parse_device_spec(spec)], NoiseConfig(popup_rate=0.1))


def test_serve_refuses_a_bad_noise_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.device.adb_server.cli import main

    assert main(["--port", "0", "--noise", "popup_rate=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "popup_rate must be a probability between 0 and 1" in err
