"""``--llm-max-output``: one ceiling on every call's output cap, recorded as sent, kept by a resumed sweep."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from latent_agent.agent.caap.purposes import CAAP
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.latent_state.purposes import COMPLETION, COT_SC_CAP, SELECT
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.cli import main
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.errors import ConfigError, LLMError
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import CallOptions


def test_the_ceiling_lowers_every_cap_never_raises_one_and_is_recorded_as_sent() -> None:
    ceiling = SELECT.cap - 1
    assert COMPLETION.cap < ceiling < CAAP.cap
    model = ScriptedModel(["a", "b", "c"], output_ceiling=ceiling)
    caller = LLMCaller(model, episode_id="ep")
    model.run_sync(caller.ask("caap", "p"))
    model.run_sync(caller.ask("completion", "p"))
    model.run_sync(caller.ask("select", "p", options=CallOptions(max_output_tokens=COT_SC_CAP)))
    sent = [ceiling, COMPLETION.cap, ceiling]
    assert [r.max_output_tokens for r in model.requests] == sent
    assert [c.max_output_tokens for c in caller.calls] == sent


def test_the_flag_builds_the_client_and_a_bad_value_is_one_clear_error() -> None:
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    assert llm_options(parser.parse_args(["--llm", "scripted:echo"])).open().output_ceiling is None
    capped = llm_options(parser.parse_args(["--llm", "scripted:echo", "--llm-max-output", "48"])).open()
    assert capped.output_ceiling == 48
    with pytest.raises(ConfigError, match="--llm-max-output must be >= 1 token, got 0"):
        llm_options(parser.parse_args(["--llm", "scripted:echo", "--llm-max-output", "0"])).open()
    with pytest.raises(LLMError, match="output_ceiling"):
        ScriptedModel([], output_ceiling=0)


def test_run_refuses_a_bad_ceiling_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "Turn on the flashlight", "--device", "sim", "--llm", "demo", "--llm-max-output", "-3",
                 "--out", str(tmp_path / "ep")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--llm-max-output must be >= 1 token, got -3" in err
    assert not (tmp_path / "ep").exists()


def test_a_sweep_records_its_ceiling_and_a_resume_keeps_it(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["sweep", "--suite", "sim", "--methods", "zero-shot+", "--devices", "sim", "--llm", "demo",
            "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots",
            "--max-steps", "2"]
    assert main([*args, "--llm-max-output", "40"]) == 0
    assert read_manifest(out).llm_max_output == 40
    (record,) = ResultsLog(out).load()
    calls = [c for s in read_trajectory(out / record.trajectory).steps for c in s.calls]
    assert calls and all(c.max_output_tokens is not None and c.max_output_tokens <= 40 for c in calls)
    assert main([*args, "--resume"]) == 0 and read_manifest(out).llm_max_output == 40
    assert main([*args, "--resume", "--llm-max-output", "80"]) == 2  # another ceiling is another sweep
    assert main(["report", str(out)]) == 0
    assert "answers cut at 40 tokens" in (out / "report" / "report.md").read_text(encoding="utf-8")
