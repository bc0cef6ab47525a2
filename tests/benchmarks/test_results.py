"""results.jsonl: round trip, torn-line repair (moved aside, never deleted), malformed lines, plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.methods import METHODS
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.plan import SweepPlan, parse_methods, read_manifest, write_manifest
from latent_agent.benchmarks.results import (
    EpisodeRecord,
    EpisodeStatus,
    PartialAnswer,
    ResultsLog,
    StopJudgement,
    latest,
)
from latent_agent.errors import ConfigError, SweepStateError

TEN_STEPS = EpisodeSettings(max_steps=10)


def record(key: str = "t__zero-shot+__s0", attempt: int = 1, **kw: object) -> EpisodeRecord:
    base: dict[str, object] = {
        "key": key, "suite": "sim", "task_id": key.split("__")[0], "goal": "g", "method": "zero-shot+", "seed": 0,
        "device": "sim#1", "attempt": attempt, "status": EpisodeStatus.FINISHED, "success": True,
    }
    base.update(kw)
    return EpisodeRecord(**base)  # type: ignore[arg-type]


def test_round_trip(tmp_path: Path) -> None:
    log = ResultsLog(tmp_path)
    original = record(partial=(PartialAnswer("Settings was opened", True), PartialAnswer("q", None)),
                      stop_judgement=StopJudgement.EXTRA_STEPS, stop_reason="completed", steps=7, llm_calls=12,
                      prompt_tokens=900, output_tokens=80, duration_s=3.5, success_step=4)
    log.append(original)
    log.append(record("u__react-__s1", status=EpisodeStatus.ERROR, success=None, error="DeviceConnectionError: x",
                      error_kind="device"))
    loaded = log.load()
    assert loaded[0] == original
    assert loaded[1].status is EpisodeStatus.ERROR and loaded[1].error_kind == "device"
    line = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    assert line["schema_version"] == 1 and line["record"] == "episode"
    assert {"task_id", "method", "seed", "device", "success", "partial", "steps", "stop_reason", "llm_calls",
            "prompt_tokens", "output_tokens", "duration_s", "trajectory"} <= set(line)


def test_text_holding_characters_other_readers_take_for_line_ends_stays_in_its_record(tmp_path: Path) -> None:
    # A model's answer or an error text may hold them; the file is written unescaped, one record a "\n".
    log = ResultsLog(tmp_path)
    odd = "a\u2028b\x85c\x0bd\x1ce\u2029f"
    log.append(record(goal=odd, error=odd))
    log.append(record("u__react-__s1"))
    loaded = log.load()
    assert [r.key for r in loaded] == ["t__zero-shot+__s0", "u__react-__s1"]
    assert loaded[0].goal == odd and loaded[0].error == odd


def test_torn_last_line_is_moved_aside_and_cut(tmp_path: Path) -> None:
    log = ResultsLog(tmp_path)
    log.append(record("a__zero-shot+__s0"))
    torn = json.dumps(record("b__zero-shot+__s0").to_json())[:57]
    with (tmp_path / "results.jsonl").open("a") as fh:
        fh.write(torn)
    assert [r.key for r in log.load()] == ["a__zero-shot+__s0"]  # read-only load ignores the torn line
    assert (tmp_path / "results.jsonl").read_text().endswith(torn)
    assert [r.key for r in log.load(repair=True)] == ["a__zero-shot+__s0"]
    assert (tmp_path / "results.jsonl").read_text().endswith("\n")
    aside = list((tmp_path / "attempts").glob("results-torn-*.jsonl"))
    assert len(aside) == 1 and aside[0].read_text() == torn
    log.append(record("b__zero-shot+__s0"))
    assert [r.key for r in log.load(repair=True)] == ["a__zero-shot+__s0", "b__zero-shot+__s0"]


def test_malformed_complete_line_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text('{"record": "episode", "schema_version": 99}\n')
    with pytest.raises(SweepStateError, match=r"results\.jsonl:1: not an episode record"):
        ResultsLog(tmp_path).load()
    (tmp_path / "results.jsonl").write_text("not json\n")
    with pytest.raises(SweepStateError, match="not JSON"):
        ResultsLog(tmp_path).load()
    bad = record().to_json()
    bad["status"] = "exploded"
    (tmp_path / "results.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(SweepStateError, match="malformed episode record"):
        ResultsLog(tmp_path).load()
    # Fields of the wrong type are refused on reading, not met later as a crash inside the metrics.
    bad = record().to_json()
    bad.update(steps="4", success="yes", duration_s=None)
    (tmp_path / "results.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(SweepStateError, match="wrong type of steps, duration_s, success"):
        ResultsLog(tmp_path).load()


def test_latest_attempt_wins() -> None:
    first = record(status=EpisodeStatus.ERROR, success=None)
    second = record(attempt=2, success=False)
    assert latest([first, second])["t__zero-shot+__s0"] is second
    assert latest([second, first])["t__zero-shot+__s0"] is second


def test_partial_score() -> None:
    # The paper's definition for every episode: the share of the task's questions answered yes.
    yes_no = (PartialAnswer("a", True), PartialAnswer("b", False))
    assert record(success=False, partial=yes_no).partial_score == 0.5
    assert record(success=True, partial=yes_no).partial_score == 0.5  # a success is not 1.0 by fiat
    assert record(success=True, partial=(PartialAnswer("a", True), PartialAnswer("b", None))).partial_score == 1.0
    assert record(success=False).partial_score is None  # no questions: nothing to measure
    assert record(success=None, partial=(PartialAnswer("a", None),)).partial_score is None


def test_parse_methods() -> None:
    assert parse_methods("all") == tuple(METHODS)
    assert parse_methods("react+, zero-shot-") == ("react+", "zero-shot-")
    with pytest.raises(ConfigError, match=r"--methods: unknown method 'react'; did you mean react- or react\+\?"):
        parse_methods("react")
    with pytest.raises(ConfigError, match=r"unknown method 'qqq'; choose one of zero-shot-.*, all"):
        parse_methods("zero-shot+,qqq")
    with pytest.raises(ConfigError, match="repeats"):
        parse_methods("react+,react+")


def test_plan_order_and_manifest_round_trip(tmp_path: Path) -> None:
    plan = SweepPlan.build("sim", [("a", "goal a"), ("b", "goal b")], ("zero-shot-", "zero-shot+"), 2, "x:y", TEN_STEPS)
    assert [e.key for e in plan.episodes[:4]] == ["a__zero-shot-__s0", "a__zero-shot+__s0", "b__zero-shot-__s0",
                                                  "b__zero-shot+__s0"]
    assert len(plan.episodes) == 8
    write_manifest(tmp_path, plan)
    assert read_manifest(tmp_path) == plan
    other = SweepPlan.build("sim", [("a", "goal a")], ("zero-shot-",), 2, "x:y", TEN_STEPS)
    assert any(d.startswith("methods") for d in plan.differences(other))
    changed_goal = SweepPlan.build("sim", [("a", "goal A"), ("b", "goal b")], ("zero-shot-", "zero-shot+"), 2,
                                   "x:y", TEN_STEPS)
    assert "the task list or a goal changed" in plan.differences(changed_goal)[0]
    with pytest.raises(ConfigError, match="--seeds"):
        SweepPlan.build("sim", [("a", "g")], ("react+",), 0, "x:y", TEN_STEPS)
