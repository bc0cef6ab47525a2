"""What the command line and the pages say is true (issue 24 item 9): counts agree with their nouns, the page
names the grounder that ran, ``--help`` shows no reST markup, the pytest markers name files that exist, and
``sweep --methods all`` without ``--demos`` runs no CAAP variant that would repeat another's rows."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from latent_agent.agent.methods import METHODS
from latent_agent.agent.pages.episode_page import render_html
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.cli.help_text import plain_help
from latent_agent.words import counted
from tests.cli.helpers import ROOT, cli

RUNNER = "tests.benchmarks.runners:solve"
#: The CAAP variants that show demonstrations, and so have none to show without --demos.
SHOWING_DEMOS = {"caap", "caap-no-cot", "caap-no-rationales"}
_MARKUP = re.compile(r"``|:(func|class|mod|meth|attr|data|exc):`|::$", re.M)


def test_counts_agree_with_their_nouns() -> None:
    assert [counted(n, "LLM call") for n in (0, 1, 2)] == ["0 LLM calls", "1 LLM call", "2 LLM calls"]
    assert counted(1, "retry", "retries") == "1 retry" and counted(3, "retry", "retries") == "3 retries"


def _run_demo_episode(out: Path, *extra: str) -> str:
    done = cli("run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--no-screenshots",
               "--out", str(out), *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_run_and_the_page_count_one_call_in_the_singular(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    printed = _run_demo_episode(out, "--method", "caap-no-demos")  # one call a step: CAAP grounds its own answer
    counts = re.findall(r"(\d+) LLM (calls?)\b", printed)
    assert ("1", "call") in counts, printed
    assert all((n == "1") == (word == "call") for n, word in counts), counts
    page = render_html(read_trajectory(out))
    assert "<dt>LLM</dt><dd>1 call, " in page and not re.search(r"\b1 calls\b", page)
    assert "the method itself (its answer names the element)" in page


@pytest.mark.parametrize(("grounder", "said"), [("paper", "paper grounder, from the model"),
                                                ("hybrid", "hybrid grounder")])
def test_the_page_names_the_grounder_that_ran(grounder: str, said: str, tmp_path: Path) -> None:
    out = tmp_path / "ep"
    _run_demo_episode(out, "--method", "zero-shot-", "--grounder", grounder)
    page = render_html(read_trajectory(out))
    assert said in page
    assert "<dd>llm</dd>" not in page  # read as the llm grounder, which did not run


@pytest.mark.parametrize("command", ["sweep", "report", "memory", "demos", "demos build"])
def test_help_shows_no_rest_markup(command: str) -> None:
    done = cli(*command.split(), "--help")
    assert done.returncode == 0, done.stderr
    assert not _MARKUP.search(done.stdout), [line for line in done.stdout.splitlines() if _MARKUP.search(line)]
    assert "latent-agent" in done.stdout  # the usage line still names the command


def test_plain_help_keeps_the_words_and_drops_the_markup() -> None:
    doc = ("``latent-agent x``: do a thing with :func:`~latent_agent.a.b.helper` and :class:`Name`.\n\n"
           "Example::\n\n    latent-agent x --flag\n\nWrites ``OUT/file``.\n")
    assert plain_help(doc) == ("Do a thing with `helper` and `Name`.\n\nExample:\n\n    latent-agent x --flag\n\n"
                               "Writes `OUT/file`.")


def test_every_script_a_pytest_marker_names_exists() -> None:
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"][
        "markers"]
    named = [(m, path) for m in markers for path in re.findall(r"scripts/[\w*./-]*\w", m)]
    assert named, markers
    for marker, path in named:
        assert list(ROOT.glob(path)), f"{marker!r} names {path}, which does not exist"


def test_sweep_all_without_demos_leaves_out_the_caap_variants_that_would_repeat_others(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    done = cli("sweep", "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "all", "--devices", "sim",
               "--llm", "scripted:echo", "--runner", RUNNER, "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    ran = {r.method for r in ResultsLog(out).load()}
    assert ran == set(METHODS) - SHOWING_DEMOS and {"caap-no-demos", "caap-neither"} <= ran
    left_out = [line for line in done.stderr.splitlines() if "without --demos" in line]
    assert len(left_out) == 1 and all(m in left_out[0] for m in SHOWING_DEMOS), done.stderr
    # Their notice is not printed for methods that do not run.
    assert "no demonstrations are shown" not in done.stderr


def test_sweep_runs_caap_variants_named_without_demos_with_the_notice(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    done = cli("sweep", "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "caap,caap-no-demos",
               "--devices", "sim", "--llm", "scripted:echo", "--runner", RUNNER, "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert {r.method for r in ResultsLog(out).load()} == {"caap", "caap-no-demos"}
    assert "caap: no --demos, so no demonstrations are shown" in done.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert "caap" in json.dumps(manifest)
