"""Every kind of page the project writes, in a real browser 1280 px wide: none scrolls sideways (issue 33 item 8).

The episode page (``show``), a noisy sim sweep's report and one of its episode pages, a MiniWoB++ report and its
beside-the-paper page (from a results file, with the longest method names), and a rater's form, all made by the
commands a user runs; one headless Debian Chromium (tests/browser.py) opens them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from latent_agent.agent.trajectory import StopReason
from latent_agent.benchmarks.report import build_report
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, StopJudgement
from latent_agent.cli.main import main
from tests.browser import chromium, offline_only

WIDTH = 1280

# The page's width against the window's, boxes that scroll sideways (a table too wide for its box), and method
# names broken across lines (a td.name part in more than one line box).
LAYOUT_JS = """() => ({
  page: document.documentElement.scrollWidth,
  window: window.innerWidth,
  scrolling: [...document.querySelectorAll("body *")].filter(el =>
    ["auto", "scroll"].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1)
    .map(el => el.tagName.toLowerCase() + "." + el.className + " " + el.scrollWidth + "/" + el.clientWidth),
  broken: [...document.querySelectorAll("td.name span")].filter(s => s.getClientRects().length > 1)
    .map(s => s.textContent),
  names: document.querySelectorAll("td.name span").length,
})"""


def _miniwob_results(directory: Path) -> None:
    """A MiniWoB++ sweep's results with the longest method labels, beside a paper (no pages: none are needed)."""
    log = ResultsLog(directory)
    for task in ("click-button", "click-checkboxes", "enter-text"):
        for method in ("zero-shot+", "exemplars", "reflection-t1", "reflection-check-t5"):
            log.append(EpisodeRecord(
                key=f"{task}__{method}__s0", suite="miniwob-papers", task_id=task, goal="the page's task",
                method=method, seed=0, device="miniwob#1", attempt=1, status=EpisodeStatus.FINISHED, success=True,
                stop_reason=StopReason.TASK_ENDED, stop_judgement=StopJudgement.RIGHT_TIME, steps=2, raw_reward=1.0,
                time_scaled_reward=0.8))


def _make_pages(root: Path) -> dict[str, Path]:
    sweep = root / "sim"
    assert main(["sweep", "--suite", "sim", "--tasks", "settings_airplane_on,settings_search_data_saver",
                 "--methods", "zero-shot+,react-", "--devices", "sim*2", "--llm", "demo", "--noise", "paper",
                 "--out", str(sweep), "--no-progress"]) == 0
    assert main(["report", str(sweep)]) == 0
    episode = sweep / "episodes" / "settings_search_data_saver__zero-shot+__s0"
    assert main(["show", str(episode), "-o", str(root / "show.html")]) == 0
    assert main(["annotate", "export", "--kind", "e2e", "--out", str(root / "forms"), "--sample", "1",
                 str(sweep)]) == 0
    miniwob = root / "miniwob"
    miniwob.mkdir()
    _miniwob_results(miniwob)
    files = build_report(miniwob, n_resamples=100, render_episodes=False)
    assert files.papers is not None
    return {
        "episode page (show)": root / "show.html",
        "noisy sim report": sweep / "report" / "report.html",
        "report's episode page": sweep / "report" / "episodes" / f"{episode.name}.html",
        "MiniWoB++ report": files.html,
        "beside the papers": files.papers,
        "rater form": next((root / "forms" / "r1").glob("*.html")),
    }


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    # Its own thread: Playwright's sync API keeps an event loop running in this one, and sweeps run their own.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_make_pages, tmp_path_factory.mktemp("pages")).result()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _layout(browser: Any, page: Path) -> tuple[dict[str, Any], Any]:
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    offline_only(context)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(page.resolve().as_uri())
    layout = tab.evaluate(LAYOUT_JS)
    assert errors == []
    return layout, tab


def test_no_page_scrolls_sideways_at_1280_px(pages: dict[str, Path], browser: Any) -> None:
    seen = {}
    for kind, page in pages.items():
        layout, tab = _layout(browser, page)
        seen[kind] = layout
        tab.context.close()
    assert {kind: (s["page"], s["scrolling"]) for kind, s in seen.items()} == {
        kind: (WIDTH, []) for kind in pages}
    # The MiniWoB++ report names "Staged planning + structured reflection (T=5, task check)" in its tables: each
    # part of a name on one line.
    assert seen["MiniWoB++ report"]["names"] >= 8 and seen["MiniWoB++ report"]["broken"] == []
    assert seen["noisy sim report"]["broken"] == []


def test_a_reports_episode_page_leads_back_to_the_report(pages: dict[str, Path], browser: Any) -> None:
    _, tab = _layout(browser, pages["report's episode page"])
    tab.click("p.back a")
    assert tab.url == pages["noisy sim report"].resolve().as_uri()
    assert tab.locator("h1").inner_text() == "Sweep report"
    tab.context.close()
