"""A served simulated phone draws each trial's own event noise, as the simulated phone in process does:
``latent-sim reset [SEED] [--trial N]``, sent by ``Device.reset(trial=)`` through AdbDevice and the real adb."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from latent_agent.device.adb import AdbDevice
from latent_agent.device.adb_server.commands import COMMANDS
from latent_agent.device.adb_server.served_phone import ServedPhone
from latent_agent.device.adb_server.shell import BufferSink, ShellSession
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from tests.device_adb.conftest import Adb, Served, serve, stop

#: Transient banners on half the observations: each trial's draws show in a few dumps.
BANNERS = NoiseConfig(dynamic_content=0.5)


def _looks(device: Device, n: int = 12) -> list[bytes]:
    return [device.hierarchy().raw for _ in range(n)]


@pytest.fixture
def served(adb: Adb) -> Iterator[tuple[AdbDevice, SimDevice]]:
    sim = SimDevice(seed=3, noise=BANNERS)
    one: Served = serve(adb, sim)
    try:
        yield AdbDevice(one.serial, adb_port=adb.port), sim
    finally:
        stop(adb, one)


def test_a_trial_on_the_served_sim_draws_what_the_sim_in_process_draws(served: tuple[AdbDevice, SimDevice]) -> None:
    phone, sim = served
    assert phone.reset(seed=3, trial=1) == \
        "the served simulated phone, reset to the initial state of seed 3, trial 2's noise"
    assert sim.trial == 1
    second = _looks(phone)
    twin = SimDevice(seed=3, noise=BANNERS)
    twin.reset(trial=1)
    assert second == _looks(twin)  # the same seed and trial: the same draws, over adb or in process
    twin.reset(trial=0)
    first = _looks(twin)
    assert first != second  # ... and not the first trial's
    assert phone.reset(seed=3) == "the served simulated phone, reset to the initial state of seed 3"
    assert sim.trial == 0 and _looks(phone) == first


@pytest.mark.parametrize(("line", "seed", "trial"), [
    ("latent-sim reset", 0, 0), ("latent-sim reset 4", 4, 0), ("latent-sim reset 4 --trial 2", 4, 2),
    ("latent-sim reset --trial 1 5", 5, 1), ("latent-sim reset --trial 0", 0, 0),
])
def test_the_served_reset_command_takes_a_seed_and_a_trial(line: str, seed: int, trial: int) -> None:
    sim = SimDevice()
    sink = BufferSink()
    assert ShellSession(ServedPhone(sim), COMMANDS).run(line, sink) == 0, sink.stderr
    assert (sim.seed, sim.trial) == (seed, trial)


@pytest.mark.parametrize("line", ["latent-sim reset --trial", "latent-sim reset --trial x", "latent-sim reset 1 2",
                                  "latent-sim reset --trial -1", "latent-sim reset 1 --trial 2 --trial 3"])
def test_the_served_reset_command_refuses_a_bad_trial(line: str) -> None:
    sim = SimDevice(seed=1)
    sink = BufferSink()
    assert ShellSession(ServedPhone(sim), COMMANDS).run(line, sink) != 0
    assert b"usage: latent-sim reset [SEED] [--trial N]" in sink.stderr and sim.seed == 1
