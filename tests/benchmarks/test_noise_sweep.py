"""``--noise`` end to end: ``sweep --noise paper`` runs, records the profile in the manifest and every results
line, the phones really are noisy, ``report`` shows it; ``run --noise``; real devices refuse it in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.settings import EpisodeSettings
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.plan import MANIFEST_FILE, SweepPlan, read_manifest
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog
from latent_agent.cli import main
from latent_agent.device.sim.noise import DECOYS, PROFILES

PAPER = PROFILES["paper"].spec
TASKS = "settings_dark_theme,settings_bluetooth_off,clock_stopwatch"


def sweep_args(out: Path, *extra: str) -> list[str]:
    return ["sweep", "--suite", "sim", "--methods", "zero-shot+", "--devices", "sim*2", "--llm", "demo",
            "--out", str(out), "--tasks", TASKS, "--no-progress", "--no-screenshots", "--max-steps", "8", *extra]


def test_sweep_with_the_paper_profile_records_it_and_the_report_shows_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(sweep_args(out, "--noise", "paper"))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert read_manifest(out).noise == PAPER
    records = ResultsLog(out).load()
    assert len(records) == 3 and all(r.status is EpisodeStatus.FINISHED for r in records)
    assert {r.noise for r in records} == {PAPER}
    assert all(json.loads(line)["noise"] == PAPER for line in (out / "results.jsonl").read_text().splitlines())
    # The phones were noisy: the dumps the agent saw hold the decoys of invisible_nodes=2.
    dumps = [p.read_text() for r in records for p in sorted((out / r.trajectory / "screens").glob("*.xml"))]
    assert dumps and all(sum(f'text="{d}"' in dump for d in DECOYS) >= 1 for dump in dumps)

    assert main(["report", str(out)]) == 0
    report = (out / "report" / "report.md").read_text()
    # The knobs are listed one after another with a space, so the line wraps instead of widening the page.
    assert f"noise paper ({PAPER.replace(',', ', ')})" in report

    # Resuming keeps the planned noise; asking for other noise is a different sweep.
    assert main(sweep_args(out, "--resume")) == 0
    assert "nothing to run: all 3 planned episode(s) are recorded" in capsys.readouterr().out
    assert main(sweep_args(out, "--resume", "--noise", "none")) != 0
    err = capsys.readouterr().err
    assert f"noise: planned '{PAPER}', asked 'none'" in err and err.count("\n") == 1


def test_a_sweep_without_noise_records_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "quiet"
    assert main(sweep_args(out, "--tasks", "settings_dark_theme")) == 0, capsys.readouterr().err
    assert read_manifest(out).noise == "none"
    assert [r.noise for r in ResultsLog(out).load()] == ["none"]
    assert main(["report", str(out)]) == 0
    assert "noise none" in (out / "report" / "report.md").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--noise", "paper", "--devices", "u2:R58M123"], "u2:R58M123 is a real device"),
        (["--noise", "androidenv:x"], "unknown profile 'androidenv:x'"),
        (["--noise", "popup_rate=3"], "popup_rate must be a probability between 0 and 1, not 3.0"),
    ],
)
def test_bad_noise_in_a_sweep_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                          message: str) -> None:
    out = tmp_path / "refused"
    assert main(sweep_args(out, *args)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()  # refused before anything was written


def test_run_with_noise_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    episode = tmp_path / "episode"
    code = main(["run", "Turn on dark theme", "--device", "sim:1", "--noise", "invisible_nodes=3", "--llm", "demo",
                 "--out", str(episode), "--no-screenshots", "--max-steps", "8"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "(noise invisible_nodes=3)" in " ".join(captured.out.split())
    dump = sorted((episode / "screens").glob("*.xml"))[0].read_text()
    assert sum(dump.count(f'text="{d}"') for d in DECOYS) == 3
    for device, message in (("u2:R58M123", "is a real device"), ("sim", "unknown knob 'loud'")):
        noise = "paper" if device.startswith("u2") else "loud=1"
        assert main(["run", "Turn on dark theme", "--device", device, "--noise", noise, "--llm", "demo",
                     "--out", str(tmp_path / device.replace(":", "_"))]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_a_frozen_screen_survives_the_episodes_wait_after_each_action(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The episode waits for idle after every action; a frozen display must still reach the agent."""
    episode = tmp_path / "frozen"
    assert main(["run", "Turn on dark theme", "--device", "sim", "--noise", "frozen_screen=1,frozen_steps=2",
                 "--llm", "demo", "--out", str(episode), "--no-screenshots", "--max-steps", "4"]) == 0
    capsys.readouterr()
    trajectory = read_trajectory(episode)
    screens = [(episode / s.screen_file).read_bytes() for s in trajectory.steps]
    assert trajectory.steps[0].executed and len(screens) >= 3
    # Step 0 opened Settings; steps 1 and 2 still saw step 0's home screen, although the episode waited.
    assert b"com.android.settings" not in screens[0]
    assert screens[1] == screens[0] and screens[2] == screens[0]


def test_manifests_and_records_from_before_noise_still_read(tmp_path: Path) -> None:
    plan = SweepPlan.build("sim", [("t", "Do it")], ["zero-shot+"], 1, "demo", EpisodeSettings(max_steps=5))
    old = plan.to_json()
    del old["noise"]
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(old))
    assert read_manifest(tmp_path).noise == "none" and read_manifest(tmp_path).noise_label == "none"
    record = EpisodeRecord(key="t__zero-shot+__s0", suite="sim", task_id="t", goal="Do it", method="zero-shot+",
                           seed=0, device="sim#1", attempt=1, status=EpisodeStatus.FINISHED, success=True)
    line = record.to_json()
    del line["noise"]
    assert EpisodeRecord.from_json(line, "old").noise == ""
    with pytest.raises(Exception, match="wrong type of noise"):
        EpisodeRecord.from_json({**record.to_json(), "noise": 3}, "bad")
