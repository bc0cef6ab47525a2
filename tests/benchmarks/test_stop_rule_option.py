"""``--stop-rule``: the method's rule by default, the strict one on request, recorded in the trajectory and the
sweep manifest, and kept by ``--resume``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.cli import main


@pytest.mark.parametrize(("given", "recorded"), [((), "paper"), (("--stop-rule", "strict"), "strict")])
def test_run_records_the_stop_rule(given: tuple[str, ...], recorded: str, tmp_path: Path) -> None:
    out = tmp_path / "ep"
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", "zero-shot-",
                 "--no-screenshots", "--out", str(out), *given]) == 0
    assert read_trajectory(out).header.stop_rule == recorded


def test_run_refuses_an_unknown_stop_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--stop-rule", "sometimes",
              "--out", str(tmp_path / "ep")])
    assert exited.value.code == 2
    assert "sometimes" in capsys.readouterr().err
    assert not (tmp_path / "ep").exists()


def test_sweep_records_the_stop_rule_and_resume_keeps_it(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
            "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots"]
    assert main([*args, "--stop-rule", "strict"]) == 0
    assert read_manifest(out).stop_rule == "strict"
    (record,) = ResultsLog(out).load()
    assert read_trajectory(out / record.trajectory).header.stop_rule == "strict"
    # Resuming without the option keeps the planned rule; asking for another one is another sweep.
    assert main([*args, "--resume"]) == 0
    assert read_manifest(out).stop_rule == "strict"
    assert main([*args, "--resume", "--stop-rule", "paper"]) == 2


def test_manifests_from_before_the_option_read_as_the_paper_rule(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
                 "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots"]) == 0
    manifest = out / "manifest.json"
    obj = json.loads(manifest.read_text())
    del obj["stop_rule"]
    manifest.write_text(json.dumps(obj))
    assert read_manifest(out).stop_rule == "paper"
