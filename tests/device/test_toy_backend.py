"""A device backend defined and registered here, in a test module, runs through `run`, `sweep` and `report`.

Nothing outside this file knows the toy: it proves that a new backend is its device plus one registry entry
(docs/architecture.md, "A new device backend"), and that commands treat it by the capabilities it declares. The
toy is the simulated phone under another name, on a smaller screen and with capabilities of its own: each spec
(``toyphone:NAME``) is one particular phone, as a real one is, rather than any number from a seed, and it cannot
have the simulated phone's noise. Its state is still the simulated phone's, so the sim tasks' checks read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from latent_agent.accessibility.tree import ScreenSize
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.cli import main
from latent_agent.device.base import Device, DeviceCapabilities
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import BACKENDS, Backend, register_backend
from latent_agent.errors import ConfigError
from latent_agent.grounder.actions import Click
from tests.device.contract import DeviceContract

NAME = "toyphone"
#: Sim tasks the demo stand-in plays on the toy's smaller screen (their targets are on the first screenful).
TASKS = ("settings_roaming_off", "qs_flashlight_on")


class ToyPhone(SimDevice):
    """The simulated phone on a 720x1600 screen, named by the spec that built it."""

    capabilities: ClassVar[DeviceCapabilities] = DeviceCapabilities(seeded_reset=False, remote=False,
                                                                    state_checks=True)

    def __init__(self, name: str) -> None:
        super().__init__(size=ScreenSize(720, 1600))
        self.name = name


#: The phones the registry built, by name, in order (the tests check the commands reached the toy through it).
BUILT: list[str] = []


def _build(arg: str, noise: NoiseConfig | None) -> Device:
    BUILT.append(arg)
    return ToyPhone(arg)


BACKEND = Backend(f"{NAME}:NAME", True, _build, ToyPhone.capabilities)


@pytest.fixture
def toy() -> Iterator[str]:
    BUILT.clear()
    register_backend(NAME, BACKEND)
    try:
        yield NAME
    finally:
        del BACKENDS[NAME]


def test_registering_is_idempotent_and_a_clash_or_an_unspellable_name_is_refused(toy: str) -> None:
    register_backend(toy, BACKEND)
    assert BACKENDS[toy] is BACKEND
    with pytest.raises(ConfigError, match=f"device backend '{toy}' is registered already"):
        register_backend(toy, Backend(f"{toy}:X", True, _build, ToyPhone.capabilities))
    with pytest.raises(ConfigError, match="device backend 'sim' is registered already"):
        register_backend("sim", BACKEND)
    for name in ("toy:phone", "toy@x", "toy*2", "a,b", ""):
        with pytest.raises(ConfigError, match="letters, digits"):
            register_backend(name, BACKEND)
        assert name not in BACKENDS


def test_run_plays_and_checks_a_sim_task_on_the_toy(toy: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ep"
    code = main(["run", "Turn off data roaming", "--device", f"{toy}:a", "--llm", "demo", "--no-screenshots",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert BUILT == ["a"]
    t = read_trajectory(out)
    assert t.header.device == "ToyPhone(seed=0)"
    # Its state is the simulated phone's, so the task's check read it (a capability, not the name "sim").
    assert t.end is not None and t.end.stop_reason is StopReason.COMPLETED and t.end.task_check is True
    # Taps were grounded on the toy's own screen: every tap lands inside 720 x 1600.
    taps = [s.action for s in t.steps if isinstance(s.action, Click)]
    assert taps and all(0 <= a.x < 720 and 0 <= a.y < 1600 for a in taps)


def test_the_toy_refuses_noise_and_an_incomplete_spec(toy: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Turn off data roaming", "--device", f"{toy}:a", "--noise", "paper", "--llm", "demo",
                 "--out", str(tmp_path / "noisy")]) == 2
    assert f"needs the simulated phone: {toy}:a cannot add the simulated phone's noise" in capsys.readouterr().err
    assert main(["run", "Turn off data roaming", "--device", toy, "--llm", "demo",
                 "--out", str(tmp_path / "bare")]) == 2
    assert f"expected {toy}:NAME" in capsys.readouterr().err
    assert BUILT == [] and not (tmp_path / "noisy").exists() and not (tmp_path / "bare").exists()


def test_sweep_and_report_on_a_pool_of_toys(toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", ",".join(TASKS), "--methods", "zero-shot-",
                 "--devices", f"{toy}:a,{toy}:b", "--llm", "demo", "--out", str(out), "--no-progress",
                 "--no-screenshots"])
    assert code == 0, capsys.readouterr().err
    assert sorted(set(BUILT)) == ["a", "b"]
    records = ResultsLog(out).load()
    assert sorted(r.task_id for r in records) == sorted(TASKS)
    assert all(r.status is EpisodeStatus.FINISHED and r.success is True for r in records)
    assert {r.device for r in records} <= {f"{toy}:a", f"{toy}:b"}

    assert main(["report", str(out)]) == 0
    md = (out / "report" / "report.md").read_text(encoding="utf-8")
    for task in TASKS:
        assert f"(episodes/{task}__zero-shot-__s0.html)" in md


class TestToyPhoneContract(DeviceContract):
    """The toy keeps the Device contract, its capabilities declared in the registry entry it is built from."""

    @pytest.fixture(autouse=True)
    def registered(self, toy: str) -> None:
        """The contract finds the toy's capabilities in the registry."""

    def make_device(self) -> Device:
        return ToyPhone("contract")
