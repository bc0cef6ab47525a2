"""Exit statuses scripts can rely on, and the sweep's preflight and pause (subprocesses, as a script runs them)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog
from latent_agent.exit_codes import EPILOG, ExitCode, for_stop_reason
from tests.cli.helpers import cli, dead_port, one_line
from tests.cli.runners import LLM_DOWN


def test_every_stop_reason_has_its_exit_status() -> None:
    assert {r for r in StopReason if for_stop_reason(r.value) is ExitCode.OK} == {
        StopReason.COMPLETED, StopReason.DONE, StopReason.GAVE_UP, StopReason.MAX_STEPS, StopReason.METHOD_CAP,
        StopReason.REPEATED_ACTIONS, StopReason.TASK_ENDED}
    assert {r for r in StopReason if for_stop_reason(r.value) is ExitCode.INFRASTRUCTURE} == {
        StopReason.LLM_ERROR, StopReason.DEVICE_ERROR, StopReason.BUDGET_EXHAUSTED}
    assert for_stop_reason(StopReason.INTERRUPTED.value) is ExitCode.INTERRUPTED


def test_help_documents_the_exit_statuses() -> None:
    for argv in ([], ["run"], ["sweep"]):
        done = cli(*argv, "--help")
        assert done.returncode == 0 and EPILOG in done.stdout, done.stdout[-600:]
    for code in ExitCode:
        if code is not ExitCode.BUG:
            assert f"\n  {int(code):<4} " in EPILOG


def test_run_exits_0_when_the_agent_stops_itself(tmp_path: Path) -> None:
    done = cli("run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--out", str(tmp_path / "ep"),
               "--no-screenshots")
    trajectory = read_trajectory(tmp_path / "ep")
    assert trajectory.end is not None and trajectory.end.stop_reason.value in ("completed", "done", "max_steps")
    assert done.returncode == 0, done.stderr


def test_run_exits_3_when_the_llm_fails(tmp_path: Path) -> None:
    cassette = tmp_path / "empty.jsonl"  # a cassette with no answers: every call fails like an absent model
    cassette.write_text(json.dumps({"schema": "latent-agent/llm-cassette", "version": 1}) + "\n")
    done = cli("run", "Turn off data roaming", "--device", "sim", "--llm", f"replay:{cassette}@m",
               "--out", str(tmp_path / "ep"))
    trajectory = read_trajectory(tmp_path / "ep")
    assert trajectory.end is not None and trajectory.end.stop_reason is StopReason.LLM_ERROR
    assert done.returncode == 3, done.stdout + done.stderr
    assert "llm_error" in done.stdout


def test_usage_errors_exit_2_in_one_line(tmp_path: Path) -> None:
    done = cli("run", "Turn off data roaming", "--device", "phone:1", "--llm", "demo", "--out", str(tmp_path / "ep"))
    assert done.returncode == 2 and "--device" in one_line(done.stderr)
    assert not (tmp_path / "ep").exists()


def _sweep(out: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli("sweep", "--suite", "sim", "--tasks", "clock_*", "--methods", "zero-shot+", "--devices", "sim",
               "--llm", "scripted:echo", "--out", str(out), "--runner", "tests.cli.runners:llm_down_while_flagged",
               "--no-progress", "--no-screenshots", *extra, env=env)


def test_a_sweep_with_errored_episodes_exits_3(tmp_path: Path) -> None:
    flag = tmp_path / "llm-down"
    flag.touch()
    done = _sweep(tmp_path / "s", "--max-consecutive-errors", "0", env={LLM_DOWN: str(flag)})
    records = ResultsLog(tmp_path / "s").load()
    assert records and all(r.status is EpisodeStatus.ERROR and r.error_kind == "llm" for r in records)
    assert done.returncode == 3, done.stderr
    assert f"{len(records)} episode(s) of the sweep are recorded as errored" in done.stderr


def test_repeated_llm_failures_pause_the_sweep_and_resume_redoes_them(tmp_path: Path) -> None:
    out, flag = tmp_path / "s", tmp_path / "llm-down"
    flag.touch()
    done = _sweep(out, "--max-consecutive-errors", "2", env={LLM_DOWN: str(flag)})
    assert done.returncode == 4, done.stderr
    line = one_line(done.stderr)
    assert "sweep paused: the same LLM failure ended 2 episodes in a row" in line
    assert "cannot connect to http://127.0.0.1:9" in line and "--resume" in line
    first = ResultsLog(out).load()
    assert len(first) == 2 and all(r.status is EpisodeStatus.ERROR for r in first)  # no retries burnt on the rest
    planned = len(json.loads((out / "manifest.json").read_text())["episodes"])
    assert planned > 2
    assert {e["key"] for e in json.loads((out / "paused.json").read_text())["redo"]} == {r.key for r in first}

    flag.unlink()  # the LLM is back
    done = _sweep(out, "--resume", env={LLM_DOWN: str(flag)})
    assert done.returncode == 0, done.stderr
    records = ResultsLog(out).load()
    assert records[2].key == first[0].key and records[2].attempt == 2  # the paused episodes first
    latest = {r.key: r for r in records}
    assert len(latest) == planned and all(r.status is EpisodeStatus.FINISHED for r in latest.values())
    assert not (out / "paused.json").exists()


def test_preflight_stops_on_a_dead_llm_before_planning(tmp_path: Path) -> None:
    out = tmp_path / "s"
    url = f"http://127.0.0.1:{dead_port()}"
    done = cli("sweep", "--suite", "sim", "--tasks", "clock_*", "--devices", "sim", "--llm", "gemini:m",
               "--llm-base-url", url, "--api-key", "local-test-key", "--out", str(out), "--no-progress")
    assert done.returncode == 3, done.stderr
    line = one_line(done.stderr)
    assert "the LLM gemini:m does not answer" in line and f"cannot connect to {url}" in line
    assert "nothing was run" in line and "local-test-key" not in done.stderr
    assert not out.exists()


def _adb_binary() -> Path:
    import adbutils.binaries

    path = Path(adbutils.binaries.__file__).parent / "adb"
    if not path.exists():  # pragma: no cover - depends on the wheel
        pytest.skip("the adbutils wheel ships no adb binary on this platform")
    return path


def test_preflight_stops_on_a_dead_device_before_planning(tmp_path: Path) -> None:
    adb, port = _adb_binary(), dead_port()
    env = {"ANDROID_ADB_SERVER_PORT": str(port), "ADB_MDNS": "0", "ADB_USB": "0"}
    out = tmp_path / "s"
    try:
        done = cli("sweep", "--suite", "sim", "--tasks", "clock_*", "--devices", f"adb:127.0.0.1:{dead_port()}",
                   "--llm", "scripted:echo", "--out", str(out), "--no-progress", env=env)
    finally:  # the adb server adbutils started for the check
        subprocess.run([str(adb), "-P", str(port), "kill-server"], capture_output=True, timeout=30, check=False)
    assert done.returncode == 3, done.stderr
    line = one_line(done.stderr)
    assert "device adb:127.0.0.1:" in line and "does not answer" in line and "nothing was run" in line
    assert not out.exists()
