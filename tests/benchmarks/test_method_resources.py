"""A run's memory, embedder and demonstrations: recorded in the sweep's manifest, reused on resume, never global."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.methods import METHODS, policy_for
from latent_agent.agent.resources import MethodResources
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.plan import SweepPlan, read_manifest, write_manifest
from latent_agent.cli.main import main
from latent_agent.errors import ConfigError, SweepStateError
from tests.agent.test_caap_policy import DEMOS


def _plan(resources: MethodResources) -> SweepPlan:
    return SweepPlan.build("sim", [("settings_roaming_off", "Turn off data roaming")], ["caap"], 1, "demo",
                           EpisodeSettings(max_steps=5, resources=resources))


def test_the_manifest_records_the_resources_and_a_changed_one_is_a_different_sweep(tmp_path: Path) -> None:
    given = MethodResources(memory=tmp_path / "m", embedder="hash:64", demos=tmp_path / "d")
    write_manifest(tmp_path, _plan(given))
    recorded = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))["resources"]
    assert recorded == {"memory": str(tmp_path / "m"), "embedder": "hash:64", "demos": str(tmp_path / "d")}
    back = read_manifest(tmp_path)
    assert back.resources == given and not back.differences(_plan(given))
    assert any(d.startswith("resources:") for d in back.differences(_plan(MethodResources())))
    # Manifests written before resources could be given read as none.
    doc = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    del doc["resources"]
    (tmp_path / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    assert read_manifest(tmp_path).resources == MethodResources()
    doc["resources"] = {"memroy": "x"}
    (tmp_path / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SweepStateError, match="memroy"):
        read_manifest(tmp_path)


def test_a_resume_takes_the_planned_resources_and_refuses_other_ones(tmp_path: Path) -> None:
    planned = MethodResources(demos=tmp_path / "d", embedder="hash:64", memory=tmp_path / "m")
    assert MethodResources().resumed(planned) == planned
    assert MethodResources(demos=tmp_path / "d").resumed(planned) == planned
    with pytest.raises(ConfigError, match=r"--demos .*differs from the sweep's own"):
        MethodResources(demos=tmp_path / "other").resumed(planned)


def test_configuring_a_run_leaves_the_registry_as_registered(tmp_path: Path) -> None:
    (tmp_path / "demos.json").write_text(json.dumps(DEMOS.to_json("sim")), encoding="utf-8")
    before = METHODS["caap"]
    configured = policy_for(before, MethodResources(demos=tmp_path))
    assert configured is not before.policy and METHODS["caap"] is before


def test_a_resumed_sweep_runs_with_the_demos_it_was_planned_with(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    demos = tmp_path / "demos"
    demos.mkdir()
    (demos / "demos.json").write_text(json.dumps(DEMOS.to_json("sim")), encoding="utf-8")
    out = tmp_path / "sweep"
    common = ["sweep", "--out", str(out), "--llm", "demo", "--devices", "sim", "--no-progress", "--no-screenshots"]
    code = main([*common, "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "caap",
                 "--demos", str(demos)])
    assert code == 0, capsys.readouterr().err
    assert read_manifest(out).resources == MethodResources(demos=demos.resolve())
    capsys.readouterr()
    assert main([*common, "--resume"]) == 0
    assert "no --demos" not in capsys.readouterr().err
    other = tmp_path / "other"
    other.mkdir()
    (other / "demos.json").write_text(json.dumps(DEMOS.to_json("sim")), encoding="utf-8")
    assert main([*common, "--resume", "--demos", str(other)]) == 2
    assert "differs from the sweep's own" in capsys.readouterr().err
