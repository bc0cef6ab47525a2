"""An LLM provider defined and registered here, in a test module, runs through `run`, `sweep` and `report`.

Nothing outside this file knows the toy: it proves that a new provider is its client plus one registry entry
(docs/architecture.md, "A new LLM provider"). The toy's client is the scripted model answering as the demo's
oracle does, so it plays the sim suite competently, in the process and without a stand-in server; it counts the
clients it builds, so the tests can tell that the commands reached it through the registry.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.cli import main
from latent_agent.demo.oracle import DemoOracle
from latent_agent.errors import ConfigError
from latent_agent.llm.base import LLMClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.spec import PROVIDERS, ClientOptions, LLMSpec, Provider, parse_spec, register_provider

NAME = "toyoracle"
TASKS = ("settings_roaming_off", "settings_dark_theme")


@dataclass
class Built:
    """The specs the toy built a client for, in order."""

    specs: list[LLMSpec] = field(default_factory=list)


def _provider(built: Built) -> Provider:
    def build(spec: LLMSpec, options: ClientOptions, key: str | None) -> LLMClient:
        if spec.extra is not None:
            raise ConfigError(f"--llm {spec}: the toy takes nothing after '@'")
        built.specs.append(spec)
        return ScriptedModel(responder=DemoOracle(), model=spec.name, **options.client_kwargs())

    return Provider(build, example=f"{NAME}:oracle", form=f"{NAME}:NAME")


@pytest.fixture
def toy() -> Iterator[Built]:
    built = Built()
    register_provider(NAME, _provider(built))
    try:
        yield built
    finally:
        del PROVIDERS[NAME]


def test_registering_is_idempotent_and_a_clash_is_refused(toy: Built) -> None:
    entry = PROVIDERS[NAME]
    register_provider(NAME, entry)
    assert PROVIDERS[NAME] is entry
    with pytest.raises(ConfigError, match=f"provider '{NAME}' is registered already"):
        register_provider(NAME, _provider(Built()))
    assert parse_spec(f"{NAME}:oracle") == LLMSpec(NAME, "oracle", None)


def test_run_plays_a_sim_task_with_the_toy(toy: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ep"
    code = main(["run", "Turn off data roaming", "--device", "sim", "--llm", f"{NAME}:oracle",
                 "--no-screenshots", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert [s.name for s in toy.specs] == ["oracle"]
    t = read_trajectory(out)
    # The trajectory names the client the toy built (the scripted model, under the spec's model name).
    assert t.header.llm.endswith(" oracle") and t.end is not None
    assert t.end.stop_reason is StopReason.COMPLETED and t.end.task_check is True


def test_sweep_and_report_with_the_toy(toy: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", "sim", "--tasks", ",".join(TASKS), "--methods", "zero-shot-",
                 "--devices", "sim", "--llm", f"{NAME}:oracle", "--out", str(out), "--no-progress",
                 "--no-screenshots"])
    assert code == 0, capsys.readouterr().err
    assert toy.specs and all(s.provider == NAME for s in toy.specs)
    records = ResultsLog(out).load()
    assert sorted(r.task_id for r in records) == sorted(TASKS)
    assert all(r.status is EpisodeStatus.FINISHED and r.success is True for r in records)

    assert main(["report", str(out)]) == 0
    md = (out / "report" / "report.md").read_text(encoding="utf-8")
    for task in TASKS:
        assert f"(episodes/{task}__zero-shot-__s0.html)" in md
    assert f"{NAME}:oracle" in md
