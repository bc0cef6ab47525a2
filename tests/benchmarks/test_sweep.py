"""The sweep scheduler with injected runners: every planned episode once, errors, resume, retries, locking."""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import pytest

from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.benchmarks.pool import parse_devices
from latent_agent.benchmarks.results import EpisodeStatus, ResultsLog, StopJudgement
from latent_agent.benchmarks.suite import Suite, load_named_suite
from latent_agent.benchmarks.sweep import SweepLock, SweepOptions, run_sweep
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.errors import DeviceConnectionError, DevicePoolExhaustedError, SweepLockedError, SweepStateError
from tests.benchmarks.fakes import Behaviour, ReplayRunner

QUIET = SweepOptions(progress=False, screenshots=False)


def small(pattern: str = "clock_*") -> tuple[Suite, SweepPlan]:
    suite = load_named_suite("sim").select([pattern])
    plan = SweepPlan.build("sim", [(t.id, t.goal) for t in suite.tasks], ("zero-shot-", "zero-shot+"), 1,
                           "scripted:echo")
    return suite, plan


def sweep(directory: Path, suite: Suite, plan: SweepPlan, runner: ReplayRunner, devices: str = "sim*3",
          **options: object) -> object:
    opts = SweepOptions(progress=False, screenshots=False, **options)  # type: ignore[arg-type]
    return run_sweep(directory, suite, plan, parse_devices(devices), client_factory=nullcontext, runner=runner,
                     options=opts)


def test_every_planned_episode_is_recorded_once_across_devices(tmp_path: Path) -> None:
    suite, plan = small()
    summary = sweep(tmp_path, suite, plan, ReplayRunner(step_delay_s=0.002))
    records = ResultsLog(tmp_path).load()
    assert sorted(r.key for r in records) == sorted(e.key for e in plan.episodes)
    assert summary.ran == len(plan.episodes) and summary.remaining == 0  # type: ignore[attr-defined]
    assert {r.device for r in records} == {"sim#1", "sim#2", "sim#3"}
    for r in records:
        assert r.status is EpisodeStatus.FINISHED and r.success is True
        assert r.stop_judgement in (StopJudgement.RIGHT_TIME, StopJudgement.EXTRA_STEPS)
        trajectory = read_trajectory(tmp_path / r.trajectory)
        assert trajectory.end is not None and trajectory.header.task_id == r.task_id
        assert r.steps == trajectory.end.steps and r.llm_calls == 2 * r.steps


def test_one_device_never_runs_two_episodes_at_once(tmp_path: Path) -> None:
    suite, plan = small()
    active: Counter[int] = Counter()
    worst: list[int] = []
    lock = threading.Lock()
    inner = ReplayRunner(step_delay_s=0.001)

    def runner(job: object) -> Path:
        device = job.device  # type: ignore[attr-defined]
        with lock:
            active[id(device)] += 1
            worst.append(active[id(device)])
        try:
            return inner(job)  # type: ignore[arg-type]
        finally:
            with lock:
                active[id(device)] -= 1

    sweep(tmp_path, suite, plan, runner, devices="sim*4")  # type: ignore[arg-type]
    assert max(worst) == 1


def behaviour_by_task(table: dict[str, Behaviour]) -> ReplayRunner:
    return ReplayRunner(behaviour=lambda task, method, seed: table.get(f"{task}/{method}", "solve"))


def test_outcomes_are_scored_from_the_phone(tmp_path: Path) -> None:
    suite, plan = small("clock_*")
    runner = behaviour_by_task({
        "clock_digital/zero-shot-": "premature", "clock_stopwatch/zero-shot-": "no_stop",
        "clock_timer_5min/zero-shot-": "extra", "clock_bedtime_on/zero-shot-": "grounding",
    })
    sweep(tmp_path, suite, plan, runner)
    by_key = {r.key: r for r in ResultsLog(tmp_path).load()}
    premature = by_key["clock_digital__zero-shot-__s0"]
    assert premature.success is False and premature.stop_judgement is StopJudgement.PREMATURE
    assert premature.stop_reason == "done" and premature.partial and any(p.answer for p in premature.partial)
    no_stop = by_key["clock_stopwatch__zero-shot-__s0"]
    assert no_stop.stop_judgement is StopJudgement.DID_NOT_STOP and no_stop.steps == 20 and no_stop.success
    extra = by_key["clock_timer_5min__zero-shot-__s0"]
    assert extra.success and extra.stop_judgement is StopJudgement.EXTRA_STEPS
    assert by_key["clock_bedtime_on__zero-shot-__s0"].grounding_errors == 1
    assert by_key["clock_digital__zero-shot+__s0"].stop_judgement is StopJudgement.RIGHT_TIME


def test_a_device_crash_errors_its_episode_and_the_sweep_goes_on(tmp_path: Path) -> None:
    suite, plan = small()
    runner = behaviour_by_task({"clock_digital/zero-shot+": "raise", "clock_stopwatch/zero-shot-": "device_crash"})
    summary = sweep(tmp_path, suite, plan, runner)
    records = {r.key: r for r in ResultsLog(tmp_path).load()}
    assert len(records) == len(plan.episodes)
    raised = records["clock_digital__zero-shot+__s0"]
    assert raised.status is EpisodeStatus.ERROR and raised.error_kind == "device"
    assert "DeviceConnectionError: adb connection reset by peer" in raised.error
    assert "Traceback" in (tmp_path / raised.trajectory / "error.txt").read_text()
    crashed = records["clock_stopwatch__zero-shot-__s0"]
    assert crashed.status is EpisodeStatus.ERROR and crashed.error == "device_error: device went offline"
    assert summary.errored == 2  # type: ignore[attr-defined]
    assert sum(r.status is EpisodeStatus.FINISHED for r in records.values()) == len(plan.episodes) - 2


def test_retry_errors_appends_a_second_attempt(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")
    sweep(tmp_path, suite, plan, behaviour_by_task({"clock_alarm_6am/zero-shot+": "raise"}))
    summary = sweep(tmp_path, suite, plan, ReplayRunner(), resume=True)
    assert summary.ran == 0  # type: ignore[attr-defined]  # errored episodes are recorded: plain resume skips them
    summary = sweep(tmp_path, suite, plan, ReplayRunner(), resume=True, retry_errors=True)
    assert summary.ran == 1  # type: ignore[attr-defined]
    records = [r for r in ResultsLog(tmp_path).load() if r.key == "clock_alarm_6am__zero-shot+__s0"]
    assert [(r.attempt, r.status) for r in records] == [(1, EpisodeStatus.ERROR), (2, EpisodeStatus.FINISHED)]
    assert records[1].trajectory == "episodes/clock_alarm_6am__zero-shot+__s0.retry2"
    assert (tmp_path / records[0].trajectory / "error.txt").exists()  # the first attempt is kept


def test_resume_skips_finished_and_moves_interrupted_attempts_aside(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")
    sweep(tmp_path, suite, plan, ReplayRunner(), devices="sim")
    # As if the process died after recording three episodes: the others' directories exist without a record.
    lines = (tmp_path / "results.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "results.jsonl").write_text("".join(lines[:3]))
    summary = sweep(tmp_path, suite, plan, ReplayRunner(), resume=True)
    assert summary.skipped == 3 and summary.ran == len(plan.episodes) - 3  # type: ignore[attr-defined]
    assert summary.moved_aside == len(plan.episodes) - 3  # type: ignore[attr-defined]
    assert (tmp_path / "attempts" / f"{plan.episodes[5].key}.1" / "trajectory.jsonl").exists()
    keys = [r.key for r in ResultsLog(tmp_path).load()]
    assert sorted(keys) == sorted(e.key for e in plan.episodes) and len(keys) == len(set(keys))


def test_directory_checks(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")
    sweep(tmp_path, suite, plan, ReplayRunner())
    with pytest.raises(SweepStateError, match="pass --resume"):
        sweep(tmp_path, suite, plan, ReplayRunner())
    _, other = small("clock_timer_*")
    with pytest.raises(SweepStateError, match="holds a different sweep"):
        sweep(tmp_path, suite, other, ReplayRunner(), resume=True)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(SweepStateError, match="not empty"):
        sweep(busy, suite, plan, ReplayRunner())
    # --resume starts a sweep that was never planned, but never in someone else's directory.
    with pytest.raises(SweepStateError, match=r"not empty and holds no sweep \(found notes.txt\)"):
        sweep(busy, suite, plan, ReplayRunner(), resume=True)
    assert sorted(p.name for p in busy.iterdir()) == [".sweep.lock", "notes.txt"]
    with pytest.raises(SweepStateError, match="is a file"):
        sweep(busy / "notes.txt", suite, plan, ReplayRunner())
    # What a kill before the manifest was written leaves behind is not in the way.
    fresh = tmp_path / "killed_early"
    (fresh / "episodes").mkdir(parents=True)
    (fresh / ".sweep.lock").write_text("")
    assert sweep(fresh, suite, plan, ReplayRunner(), resume=True).ran == len(plan.episodes)  # type: ignore[attr-defined]


def test_a_second_process_cannot_take_the_directory(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")
    with SweepLock(tmp_path), pytest.raises(SweepLockedError, match="in use by another sweep"):
        sweep(tmp_path, suite, plan, ReplayRunner())


def test_real_devices_failing_are_retired_and_the_rest_finish(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")
    built: Counter[str] = Counter()

    def build(spec: str, noise: NoiseConfig | None) -> Device:
        built[spec] += 1
        if spec == "adb:bad":
            raise DeviceConnectionError("adb device 'bad' not found")
        return SimDevice()

    summary = run_sweep(tmp_path, suite, plan, parse_devices("adb:bad,adb:good"), client_factory=nullcontext,
                        runner=ReplayRunner(), options=QUIET, build_device=build)
    assert summary.remaining == 0 and summary.ran == len(plan.episodes)
    assert len(summary.retired) == 1 and summary.retired[0].startswith("adb:bad")
    assert {r.device for r in ResultsLog(tmp_path).load()} == {"adb:good"}


def test_all_devices_failing_leaves_the_rest_planned(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")

    def build(spec: str, noise: NoiseConfig | None) -> Device:
        raise DeviceConnectionError("adb server not running")

    with pytest.raises(DevicePoolExhaustedError, match="every device failed"):
        run_sweep(tmp_path, suite, plan, parse_devices("adb:a,adb:b"), client_factory=nullcontext,
                  runner=ReplayRunner(), options=QUIET, build_device=build)
    assert ResultsLog(tmp_path).load() == []


def test_a_client_that_cannot_open_retires_its_worker(tmp_path: Path) -> None:
    suite, plan = small("clock_alarm_*")
    opened: list[int] = []

    def factory() -> nullcontext[None]:
        opened.append(1)
        if len(opened) == 1:
            raise ConnectionRefusedError("stand-in not listening")
        return nullcontext()

    summary = run_sweep(tmp_path, suite, plan, parse_devices("sim*2"), client_factory=factory,
                        runner=ReplayRunner(), options=QUIET)
    assert summary.remaining == 0 and len(summary.retired) == 1
    assert "opening the LLM client failed: ConnectionRefusedError" in summary.retired[0]
