"""Report sections are registered: a section from outside the package is written at its place, by its order."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.benchmarks import report_sections
from latent_agent.benchmarks.report import build_report
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection, register_section
from latent_agent.benchmarks.report_tables import Table
from latent_agent.cli import main


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sections") / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "clock_timer_*", "--devices", "sim", "--llm", "scripted:echo",
                 "--out", str(out), "--runner", "tests.benchmarks.runners:plus_wins", "--no-progress",
                 "--methods", "zero-shot+"]) == 0
    return out


def _toy(data: ReportInput) -> list[Table]:
    return [Table("Toy section", ("Episodes",), ((str(len(data.records)),),), note="one count")]


def test_the_built_in_sections_in_the_order_the_report_writes_them() -> None:
    names = [s.name for s in report_sections.report_sections()]
    assert names == ["suites", "papers", "action_spaces", "tests", "stops", "causes", "trials", "exemplars",
                     "observation", "errors", "episodes"]


def test_a_section_registered_from_outside_is_written_at_its_place(sweep: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_sections, "_SECTIONS", dict(report_sections._SECTIONS))
    register_section(ReportSection("toy", 95, _toy))  # between the error guesses and the episodes
    files = build_report(sweep, tmp_path / "report", n_resamples=100, render_episodes=False)
    md = files.markdown.read_text(encoding="utf-8")
    assert "### Toy section" in md and "| Episodes |" in md and "_one count_" in md
    assert md.index("### Error categories") < md.index("### Toy section") < md.index("### Episodes")
    assert "<h3>Toy section</h3>" in files.html.read_text(encoding="utf-8")


def test_a_name_belongs_to_one_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_sections, "_SECTIONS", dict(report_sections._SECTIONS))
    register_section(ReportSection("toy", 95, _toy))
    register_section(ReportSection("toy", 95, _toy))  # the same section again (its module reloaded)
    with pytest.raises(ValueError, match="already registered"):
        register_section(ReportSection("episodes", 95, _toy))
