"""Messages that say what is wrong (issue 13 item 5, the command-line parts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.benchmarks.plan import SweepPlan, write_manifest
from latent_agent.llm.spec import PROVIDERS
from tests.cli.helpers import cli, one_line

SWEEP = ["sweep", "--devices", "sim", "--llm", "scripted:echo", "--no-progress",
         "--runner", "tests.benchmarks.runners:solve"]


def test_resume_on_a_folder_holding_another_suites_sweep(tmp_path: Path) -> None:
    out = tmp_path / "aw"
    out.mkdir()
    tasks = [(f"Task{i}", f"Goal {i}") for i in range(51)]
    write_manifest(out, SweepPlan.build("androidworld", tasks, ["react+"], 1, "scripted:echo"))
    done = cli(*SWEEP, "--suite", "sim", "--out", str(out), "--resume")
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert f"{out} holds another sweep (suite androidworld, 51 episodes planned), not one of suite sim" in line
    assert "Task1" not in line and len(line) < 300


def test_resume_on_a_sweep_whose_tasks_the_suite_no_longer_has(tmp_path: Path) -> None:
    out = tmp_path / "old"
    out.mkdir()
    write_manifest(out, SweepPlan.build("sim", [(f"gone_{i}", "A goal") for i in range(40)], ["react+"], 1,
                                        "scripted:echo"))
    done = cli(*SWEEP, "--out", str(out), "--resume")
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "plans 40 task(s) that suite sim no longer has (e.g. gone_0, gone_1, gone_10)" in line


def test_suite_missing(tmp_path: Path) -> None:
    done = cli(*SWEEP, "--out", str(tmp_path / "new"), "--resume")
    assert done.returncode == 2
    assert one_line(done.stderr).endswith(
        f"--suite is required to start a sweep ({tmp_path / 'new'} holds none to resume yet)")
    done = cli(*SWEEP, "--out", str(tmp_path / "new"))
    assert done.returncode == 2
    assert "--suite is required (or --resume, to continue the sweep in --out)" in one_line(done.stderr)


@pytest.mark.parametrize("argv", [["sim", "tasks", "--foo"], ["annotate", "score", "x", "--foo"],
                                  ["llm", "ping", "--llm", "demo", "--foo"]])
def test_an_unknown_option_names_the_subcommands_help(argv: list[str]) -> None:
    done = cli(*argv)
    assert done.returncode == 2
    command = " ".join(a for a in argv[:2] if not a.startswith("-") and a != "x")
    line = one_line(done.stderr)
    assert done.stderr.count("\n") == 1 and "usage:" not in done.stderr  # one line, no usage block
    assert line.startswith("latent-agent: error: unrecognized arguments: --foo (")
    assert line.endswith(f"latent-agent {command} --help shows every option)"), line


@pytest.mark.parametrize("argv", [["run"], ["sweep"], ["llm", "ping"]])
def test_llm_help_lists_every_provider_and_demo(argv: list[str]) -> None:
    done = cli(*argv, "--help")
    assert done.returncode == 0
    help_text = " ".join(done.stdout.split())
    option = help_text.split("--llm SPEC model to use: ", 1)[1].split(" --", 1)[0]  # the option's own help
    for name in PROVIDERS:
        assert f"{name}:" in option, (name, option)
    assert ", or demo (" in option


def test_llm_ping_demo_answers() -> None:
    done = cli("llm", "ping", "--llm", "demo")
    assert done.returncode == 0, done.stderr
    assert "model:    demo-oracle" in done.stdout
