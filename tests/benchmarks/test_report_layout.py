"""The report's pages as a reader moves between and reads them (issue 33 item 5): episode pages link back to the
report, the plan line's noise settings can wrap, a method's name in the Agent column is never broken."""

from __future__ import annotations

import re
from pathlib import Path

from latent_agent.agent.trajectory import StopReason
from latent_agent.benchmarks.plan import SweepPlan, write_manifest
from latent_agent.benchmarks.report import build_report
from latent_agent.benchmarks.report_tables import Link, Table, table_html
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, StopJudgement
from latent_agent.cli.main import main
from latent_agent.device.sim.noise import PROFILES


def test_every_episode_page_of_a_report_links_back_to_it(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "settings_airplane_on", "--methods", "zero-shot+,react-",
                 "--devices", "sim", "--llm", "demo", "--out", str(sweep), "--no-progress"]) == 0
    files = build_report(sweep, tmp_path / "out", n_resamples=100)
    pages = sorted((tmp_path / "out" / "episodes").glob("*.html"))
    assert files.episode_pages == len(pages) == 2
    for page in pages:
        links = re.findall(r'<p class="back"><a href="([^"]+)">Back to the sweep report</a></p>', page.read_text())
        assert links == ["../report.html"]
        assert (page.parent / links[0]).resolve() == files.html.resolve()


def _miniwob_record(task: str, method: str) -> EpisodeRecord:
    return EpisodeRecord(key=f"{task}__{method}__s0", suite="miniwob-papers", task_id=task, goal="the page's task",
                         method=method, seed=0, device="miniwob#1", attempt=1, status=EpisodeStatus.FINISHED,
                         success=True, stop_reason=StopReason.TASK_ENDED, stop_judgement=StopJudgement.RIGHT_TIME,
                         steps=2, raw_reward=1.0, time_scaled_reward=0.8)


def test_the_report_and_the_beside_the_paper_page_link_to_each_other(tmp_path: Path) -> None:
    log = ResultsLog(tmp_path)
    for task in ("click-button", "enter-text"):
        log.append(_miniwob_record(task, "exemplars"))
    files = build_report(tmp_path, n_resamples=100, render_episodes=False)
    assert files.papers is not None
    assert '<li><a href="papers.html">Beside the papers, alone: papers.html</a></li>' in files.html.read_text()
    assert '<li><a href="report.html">The whole report: report.html</a></li>' in files.papers.read_text()
    assert "- [The whole report: report.html](report.html)" in files.papers.with_suffix(".md").read_text()


def test_the_plan_lines_noise_settings_can_wrap_after_each_comma(tmp_path: Path) -> None:
    spec = PROFILES["paper"].spec
    assert spec.count(",") >= 10  # eleven knobs: one unbroken string as --noise writes them
    write_manifest(tmp_path, SweepPlan.build("sim", [("settings_airplane_on", "Turn on airplane mode")],
                                             ["zero-shot+"], 1, "demo", noise=spec))
    (tmp_path / "results.jsonl").write_text("")
    html = build_report(tmp_path, n_resamples=100, render_episodes=False).html.read_text()
    (plan,) = re.findall(r"<li>(Plan: [^<]*)</li>", html)
    assert f"noise paper ({spec.replace(',', ', ')}), observation a11y" in plan
    assert not re.search(r",\S", plan)  # no two words joined by a bare comma: the line may break after each


def test_a_method_name_in_the_agent_column_is_kept_whole_and_its_variant_may_go_below() -> None:
    table = Table("Runs", ("Agent", "Episode"), (
        ("Staged planning + structured reflection (T=5, task check)", "a"),
        ("Zero-shot + <latent> state", Link("zero-shot+", "episodes/zero-shot+.html")),
        (Link("caap", "episodes/caap.html"), "b"),
    ))
    html = table_html(table)
    # Each part a span the report's style keeps on one line (td.name span{white-space:nowrap}).
    assert ("<td class=name><span>Staged planning + structured reflection</span> <span>(T=5, task check)</span></td>"
            "<td>a</td>") in html
    assert "<td class=name><span>Zero-shot + &lt;latent&gt; state</span></td>" in html
    assert '<td><a href="episodes/caap.html">caap</a></td>' in html  # a link is shown as a link
    assert '<td><a href="episodes/zero-shot+.html">zero-shot+</a></td>' in html  # other columns as they were
    assert html.count("<div class=wide><table>") == 1  # a table wider than a phone scrolls in its own box


def test_the_reports_style_keeps_the_names_whole(tmp_path: Path) -> None:
    ResultsLog(tmp_path).append(_miniwob_record("click-button", "reflection-check-t5"))
    html = build_report(tmp_path, n_resamples=100, render_episodes=False).html.read_text()
    assert "td.name span{white-space:nowrap}" in html and '<meta name=viewport content="width=device-width' in html
    assert "<td class=name><span>Staged planning + structured reflection</span> <span>(T=5, task check)</span>" in html
