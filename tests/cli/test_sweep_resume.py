"""Resuming a sweep as a new user would (issue 24 item 4): Ctrl-C prints the command that continues it,
``sweep --out DIR --resume`` alone continues it from its manifest, and the demo's simulated latency is
not part of what the sweep is."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from latent_agent.benchmarks.plan import SweepPlan, read_manifest, write_manifest
from latent_agent.benchmarks.results import ResultsLog
from tests.cli.helpers import ROOT, cli, one_line

RUNNER = "tests.benchmarks.runners:solve"
TASKS = [("settings_roaming_off", "Turn off data roaming"), ("settings_mobile_data_off", "Turn off mobile data")]


def _planned(out: Path, llm: str, devices: str | None = "sim*2") -> SweepPlan:
    """A sweep planned in ``out`` (as ``sweep`` plans it) with nothing run yet."""
    out.mkdir()
    (out / "episodes").mkdir()
    plan = SweepPlan.build("sim", TASKS, ["zero-shot+"], 1, llm, devices=devices)
    write_manifest(out, plan)
    return plan


def test_resume_with_only_out_takes_devices_and_llm_from_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    plan = _planned(out, "scripted:echo")
    done = cli("sweep", "--out", str(out), "--resume", "--runner", RUNNER, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "2 episode(s) run (0 errored), 0 already recorded, 0 of 2 still to run" in done.stdout
    assert sorted(r.key for r in ResultsLog(out).load()) == sorted(e.key for e in plan.episodes)
    # Anything given must match what was planned.
    done = cli("sweep", "--out", str(out), "--resume", "--methods", "zero-shot-", "--runner", RUNNER)
    assert done.returncode == 2
    assert "holds a different sweep: methods: planned ('zero-shot+',), asked ('zero-shot-',)" in one_line(done.stderr)


def test_the_demos_latency_is_not_part_of_the_plan(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    _planned(out, "demo@0.2")
    done = cli("sweep", "--out", str(out), "--resume", "--llm", "demo", "--runner", RUNNER, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "0 of 2 still to run" in done.stdout
    assert read_manifest(out).llm == "demo@0.2"  # the manifest is as it was planned
    done = cli("sweep", "--out", str(out), "--resume", "--llm", "scripted:echo", "--runner", RUNNER)
    assert done.returncode == 2  # another model is another sweep
    assert "holds a different sweep: llm: planned 'demo@0.2', asked 'scripted:echo'" in one_line(done.stderr)


def test_devices_and_llm_are_required_where_no_manifest_names_them(tmp_path: Path) -> None:
    done = cli("sweep", "--suite", "sim", "--out", str(tmp_path / "new"))
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "--devices and --llm are required, e.g. --devices 'sim*4'; --llm demo" in line, line
    old = tmp_path / "old"
    _planned(old, "scripted:echo", devices=None)  # a manifest written before pools were recorded
    done = cli("sweep", "--out", str(old), "--resume", "--runner", RUNNER)
    assert done.returncode == 2
    assert f"--devices is required to resume {old}: its manifest does not name a usable pool" in one_line(done.stderr)


def test_ctrl_c_prints_the_command_that_continues_the_sweep(tmp_path: Path) -> None:
    out = tmp_path / "my sweep"  # a space: the printed command quotes it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "latent_agent.cli", "sweep", "--suite", "sim", "--methods", "zero-shot+,zero-shot-",
         "--seeds", "2", "--devices", "sim*2", "--llm", "scripted:echo", "--out", str(out),
         "--runner", "tests.benchmarks.runners:slow", "--no-progress", "--no-screenshots"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell that started pytest in the background may ignore SIGINT; the sweep must not inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not ResultsLog(out).load():
            assert process.poll() is None, process.communicate()
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    found = re.search(r"^latent-agent: interrupted; what was recorded is kept\. Continue with: (.*)$", stderr, re.M)
    assert found, stderr
    assert stderr.count("interrupted") == 1, stderr  # said once, by the sweep, not again by the entry point
    command = found.group(1)
    assert command.endswith(f"latent-agent sweep --out '{out}' --resume --runner tests.benchmarks.runners:slow")
    planned = {e.key for e in read_manifest(out).episodes}
    assert len(ResultsLog(out).load()) < len(planned)
    # The command runs as printed, from where the sweep ran, and finishes the plan.
    done = subprocess.run(command + " --no-progress", shell=True, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(r.key for r in ResultsLog(out).load()) == sorted(planned)
