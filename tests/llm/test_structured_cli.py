"""``--llm-structured off|on``: off by default, on the client, in the trajectory header and every call's record, in
a sweep's manifest (a resume keeps it) and in the report's plan line."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.cli import main
from latent_agent.cli.llm_options import add_llm_options, llm_options


def test_the_flag_is_off_by_default_and_builds_the_client() -> None:
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    def built(*flags: str) -> bool:
        return llm_options(parser.parse_args(["--llm", "scripted:echo", *flags])).open().structured

    assert built() is False and built("--llm-structured", "off") is False
    assert built("--llm-structured", "on") is True
    with pytest.raises(SystemExit):
        parser.parse_args(["--llm", "scripted:echo", "--llm-structured", "yes"])


def test_a_run_records_it_in_the_header_and_each_call_how_its_shape_went(tmp_path: Path) -> None:
    """The demo behind the Gemini stand-in (google-genai): the grounder's JSON action goes as a response schema, the
    completion's Yes/No pattern cannot go to Gemini (recorded why), the free estimates carry none; the episode is
    played as without shapes."""
    out = tmp_path / "ep"
    assert main(["run", "Turn on the flashlight", "--device", "sim", "--llm", "demo", "--method", "zero-shot+",
                 "--llm-structured", "on", "--out", str(out), "--no-screenshots"]) == 0
    trajectory = read_trajectory(out)
    assert trajectory.header.llm_structured is True
    calls = [c for s in trajectory.steps for c in s.calls]
    ground = [c for c in calls if c.purpose == "ground"]
    assert ground and all(c.shape == "json_schema" and c.shape_note is None for c in ground)
    completion = [c for c in calls if c.purpose == "completion"]
    assert completion and all(c.shape is None and "Gemini's API takes no grammar" in str(c.shape_note)
                              for c in completion)
    free = [c for c in calls if c.purpose in ("screen_summary", "progression", "mistakes", "previous_action")]
    assert free and all(c.shape is None and c.shape_note is None for c in free)
    assert not any(c.parse_error for c in calls)

    plain = tmp_path / "plain"
    assert main(["run", "Turn on the flashlight", "--device", "sim", "--llm", "demo", "--method", "zero-shot+",
                 "--out", str(plain), "--no-screenshots"]) == 0
    off = read_trajectory(plain)
    assert off.header.llm_structured is False
    assert all(c.shape is None and c.shape_note is None for s in off.steps for c in s.calls)
    assert [s.action for s in off.steps] == [s.action for s in trajectory.steps]


def test_a_sweep_records_it_and_a_resume_keeps_it(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["sweep", "--suite", "sim", "--methods", "zero-shot+", "--devices", "sim", "--llm", "demo",
            "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots",
            "--max-steps", "2"]
    assert main([*args, "--llm-structured", "on"]) == 0
    assert read_manifest(out).llm_structured is True
    (record,) = ResultsLog(out).load()
    assert read_trajectory(out / record.trajectory).header.llm_structured is True
    assert main([*args, "--resume"]) == 0 and read_manifest(out).llm_structured is True
    assert main([*args, "--resume", "--llm-structured", "off"]) == 2  # free answers are another sweep
    assert main(["report", str(out)]) == 0
    assert "answers held to their shapes" in (out / "report" / "report.md").read_text(encoding="utf-8")
