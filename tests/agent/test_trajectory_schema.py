"""Trajectory schema 3 (the method's tagged state, timing phases) and reading versions 1 and 2."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from latent_agent.agent.latent_state.state import LatentState, latent_of
from latent_agent.agent.trajectory import (
    SCHEMA_VERSION,
    EpisodeHeader,
    OpaqueState,
    StepRecord,
    StepTiming,
    StopReason,
    TrajectoryWriter,
    TrialRecord,
    read_trajectory,
    state_kind,
)
from latent_agent.errors import InputError

HEADER: dict[str, Any] = {
    "episode_id": "ep", "goal": "Turn off Wi-Fi", "normalized_goal": "Turn off Wi-Fi.", "method": "zero-shot+",
    "grounder": "paper", "llm": "gemini x", "device": "SimDevice", "max_steps": 5, "started_at": 0.0,
}
OLD_TIMING = {"observe_s": 0.1, "latent_s": 0.5, "select_s": 0.2, "ground_s": 0.3, "complete_s": 0.25,
              "execute_s": 0.0, "llm_s": 1.0, "device_s": 0.1, "overhead_s": 0.05, "total_s": 1.2}


def _write(directory: Path, lines: list[dict[str, Any]]) -> Path:
    directory.mkdir()
    (directory / "trajectory.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return directory


def _step(version: int, latent: dict[str, Any] | None) -> dict[str, Any]:
    return {"record": "step", "schema_version": version, "index": 0, "screen_file": "screens/step_000.xml",
            "screenshot_file": None, "foreground_package": "com.android.settings", "description": "Wi-Fi on",
            "latent": latent, "selected_step": "Tap \"Wi-Fi\"", "timing": OLD_TIMING}


@pytest.mark.parametrize("version", [1, 2])
def test_old_steps_are_converted_on_read(tmp_path: Path, version: int) -> None:
    latent: dict[str, Any] = {"previous_action": None, "screen_summary": "Settings", "progression": "You have started.",
              "mistakes": "No mistakes have been made.", "completion": "No."}
    if version == 2:
        latent |= {"inferred_actions": ["Opened Settings."], "commanded": "Open Settings", "previous_step_error": None}
    lines = [{"record": "episode", "schema_version": version, **HEADER}, _step(version, latent),
             _step(version, None)]
    t = read_trajectory(_write(tmp_path / "ep", lines))
    plus, minus = t.steps
    assert isinstance(plus.state, LatentState) and latent_of(plus) is plus.state
    assert plus.state.completion == "No." and plus.state.screen_summary == "Settings"
    assert plus.state.inferred_actions == (("Opened Settings.",) if version == 2 else ())
    assert minus.state is None and latent_of(minus) is None
    assert plus.timing.phases == {"observe": 0.1, "latent": 0.5, "select": 0.2, "ground": 0.3, "complete": 0.25}
    assert plus.timing.llm_s == 1.0 and plus.timing.total_s == 1.2 and plus.timing.overhead_s == 0.05


def test_a_state_of_an_unknown_kind_is_kept_as_written(tmp_path: Path) -> None:
    state = {"kind": "a-method-since-removed", "plan": ["a", "b"], "score": 0.5}
    step = {**_step(SCHEMA_VERSION, None), "state": state, "timing": {"phases": {"plan": 0.5}, "total_s": 1.0}}
    del step["latent"]
    t = read_trajectory(_write(tmp_path / "ep", [{"record": "episode", "schema_version": SCHEMA_VERSION, **HEADER},
                                                  step]))
    kept = t.steps[0].state
    assert isinstance(kept, OpaqueState) and kept.kind == "a-method-since-removed" and latent_of(t.steps[0]) is None
    assert t.steps[0].timing.phases == {"plan": 0.5}

    writer = TrajectoryWriter(tmp_path / "copy", EpisodeHeader(**HEADER))
    writer.step(t.steps[0])
    writer.close()
    line = json.loads((tmp_path / "copy" / "trajectory.jsonl").read_text().splitlines()[1])
    assert line["state"] == state and line["schema_version"] == SCHEMA_VERSION


def test_states_round_trip_with_their_kind(tmp_path: Path) -> None:
    latent = LatentState("Tapped.", "Home", "You have begun.", "No mistakes have been made.", "Yes.",
                         ("Opened.", "Tapped."), "Tap", None)
    writer = TrajectoryWriter(tmp_path / "ep", EpisodeHeader(**HEADER))
    writer.step(StepRecord(0, "screens/step_000.xml", None, "p", "d", latent, "Tap",
                           timing=StepTiming(phases={"latent": 0.4, "ground": 0.1}, total_s=0.6)))
    writer.close()
    raw = json.loads((tmp_path / "ep" / "trajectory.jsonl").read_text().splitlines()[1])
    assert raw["state"]["kind"] == "latent" and "latent" not in raw
    step = read_trajectory(tmp_path / "ep").steps[0]
    assert step.state == latent and step.timing.phases == {"latent": 0.4, "ground": 0.1}


@pytest.mark.parametrize("checked", [True, False, None])
def test_a_trials_check_round_trips_and_old_trials_read_as_unchecked(tmp_path: Path, checked: bool | None) -> None:
    writer = TrajectoryWriter(tmp_path / "ep", EpisodeHeader(**HEADER))
    writer.trial(TrialRecord(0, 4, StopReason.DONE, "said done", True, "reset", checked=checked))
    writer.close()
    raw = json.loads((tmp_path / "ep" / "trajectory.jsonl").read_text().splitlines()[1])
    assert raw["record"] == "trial" and raw["checked"] is checked
    assert read_trajectory(tmp_path / "ep").trials[0].checked is checked

    del raw["checked"]  # a trial written before the field existed
    old = read_trajectory(_write(tmp_path / "old", [{"record": "episode", "schema_version": 3, **HEADER}, raw]))
    assert old.trials[0].checked is None and old.trials[0].stop_reason is StopReason.DONE


def test_a_state_kind_names_one_class() -> None:
    with pytest.raises(ValueError, match="already used by LatentState"):
        @state_kind
        @dataclass(frozen=True)
        class Impostor:
            KIND = "latent"

    with pytest.raises(ValueError, match="dataclass with a str KIND"):
        state_kind(str)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    directory = _write(tmp_path / "ep", [{"record": "episode", "schema_version": SCHEMA_VERSION + 1, **HEADER}])
    with pytest.raises(InputError, match=f"schema_version {SCHEMA_VERSION + 1} is not one of 1, 2, 3, 4"):
        read_trajectory(directory)
