"""``report`` on a copied sweep folder that lies, and a report killed half-way."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from latent_agent.benchmarks import report
from latent_agent.cli import main
from latent_agent.errors import SweepStateError
from tests.cli.helpers import cli


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "clock_*", "--devices", "sim*2", "--llm", "scripted:echo",
                 "--out", str(out), "--runner", "tests.benchmarks.runners:plus_wins", "--no-progress",
                 "--methods", "zero-shot+"]) == 0
    return out


def _copy(recorded: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded, tmp_path / "base" / "sweep"))


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("field", "value"), [("key", "../../../escaped"), ("key", "a/../../x"),
                                              ("trajectory", "../../elsewhere"),
                                              ("suite", "x/../../../../escaped")])
def test_a_results_file_cannot_send_the_report_outside(recorded: Path, tmp_path: Path, field: str,
                                                       value: str, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = _copy(recorded, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "trajectory.jsonl").write_text((sweep / json.loads(
        (sweep / "results.jsonl").read_text().splitlines()[0])["trajectory"] / "trajectory.jsonl").read_text())
    lines = (sweep / "results.jsonl").read_text().splitlines()
    planted = json.loads(lines[0])
    planted[field] = value
    (sweep / "results.jsonl").write_text("\n".join([*lines, json.dumps(planted)]) + "\n")
    outside = {p for p in _files(tmp_path) if not p.startswith("base/sweep/")}
    with pytest.raises(SweepStateError, match=r"results\.jsonl: .*(not a plain name|leads outside)"):
        report.build_report(sweep)
    assert {p for p in _files(tmp_path) if not p.startswith("base/sweep/")} == outside
    assert main(["report", str(sweep)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "results.jsonl" in err[0]


class _Killed(BaseException):
    """Stands for the process being killed (nothing catches it)."""


def test_a_report_killed_half_way_completes_when_run_again(recorded: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sweep = _copy(recorded, tmp_path)

    def killed(*args: object, **kwargs: object) -> dict[str, str]:
        raise _Killed

    monkeypatch.setattr(report, "episode_pages", killed)  # after the charts, before the tables
    with pytest.raises(_Killed):
        main(["report", str(sweep)])
    assert (sweep / "report" / "charts").is_dir()
    monkeypatch.undo()
    assert main(["report", str(sweep)]) == 0
    assert "| Zero-shot + latent state |" in (sweep / "report" / "report.md").read_text()
    assert not [p for p in (sweep / "report").iterdir() if p.name.endswith(".tmp")]


#: A method name from a copied results.jsonl: markup, a link, a window title (OSC) and a screen clear (CSI).
HOSTILE_METHOD = "<script>alert(1)</script>[x](javascript:alert(1))\x1b]0;pwned\x07\x1b[2J|"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_report_md_and_the_terminal_hold_a_copied_sweeps_names_as_text(recorded: Path, tmp_path: Path) -> None:
    sweep = _copy(recorded, tmp_path)
    lines = (sweep / "results.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["method"] = HOSTILE_METHOD  # drawn in the chart too: matplotlib warns of the glyphs its font lacks
    first["error"] = "<img src=x onerror=alert(1)>\x1b]8;;https://x.example\x1b\\"
    (sweep / "results.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    done = cli("report", str(sweep))
    assert done.returncode == 0, done.stderr
    printed = done.stdout + done.stderr
    assert not CONTROL.search(printed), CONTROL.findall(printed)
    markdown = (sweep / "report" / "report.md").read_text(encoding="utf-8")
    assert not CONTROL.search(markdown), CONTROL.findall(markdown)
    # Markup only where the report writes its own; each character of the copied text escaped (\< renders "<").
    assert not re.search(r"(?<!\\)(<script|<img|\[x\]|\]\(javascript)", markdown), markdown
    # Rendered, this reads as the name did (its control characters as \x1b, ...).
    assert r"| \<script\>alert(1)\</script\>\[x\](javascript:alert(1))\\x1b\]0;pwned\\x07\\x1b\[2J\| |" in markdown
