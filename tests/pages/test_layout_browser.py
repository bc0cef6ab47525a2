"""The episode page and the e2e rating form in a real browser: nothing scrolls sideways, every step is seen.

Debian's headless Chromium driven by Playwright, launched as in
tests/annotation/test_browser.py (skipped where that browser is not installed).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from latent_agent.agent.pages.episode_page import unpack_folds
from tests.browser import chromium, offline_only

WIDTHS = (1280, 760, 390)

# Elements sticking out of the window on the right, and boxes that scroll sideways (a filmstrip did).
OVERFLOW_JS = """() => {
  const bad = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) { bad.push("page is " + doc.scrollWidth + " px wide"); }
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) { continue; }
    const name = el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
      ? "." + el.className : "");
    if (box.right > doc.clientWidth + 1) { bad.push(name + " ends at " + Math.round(box.right)); }
    const style = getComputedStyle(el);
    if (["auto", "scroll"].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
      bad.push(name + " scrolls sideways");
    }
  }
  return bad.slice(0, 5);
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _open(browser: Any, path: Path, width: int) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900})
    offline_only(context)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(path.resolve().as_uri())
    tab.errors = errors
    return tab


@pytest.fixture(scope="module")
def episode_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CoT-SC+ episode on the sim (open Settings, scroll down, tap, stop) rendered as ``show`` does."""
    from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
    from latent_agent.agent.pages.episode_page import render_html
    from latent_agent.agent.trajectory import read_trajectory
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    out = tmp_path_factory.mktemp("page") / "ep"
    config = EpisodeConfig("Find out which Android version this phone runs", "cot-sc+", max_steps=6)
    # Its own thread: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(run_episode_sync, config, SimDevice(), ScriptedModel(responder=DemoOracle()), out).result()
    page = out / "episode.html"
    page.write_text(render_html(read_trajectory(out)), encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def e2e_form(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An e2e form of a 9-step episode (more steps than fit in one row)."""
    from latent_agent.annotation.export import ExportOptions, export_forms
    from latent_agent.annotation.forms import load_manifest
    from latent_agent.annotation.questions import FormKind
    from latent_agent.demo.episodes import record_sim_episode

    root = tmp_path_factory.mktemp("form")
    episode = record_sim_episode(root / "run" / "ep", "clock_alarm_330_argon", min_steps=9)
    export_forms(episode, root / "e2e", ExportOptions(FormKind.E2E))
    (form,) = load_manifest(root / "e2e").forms
    return root / "e2e" / "r1" / f"{form.form_id}.html"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_e2e_form_shows_every_step_without_sideways_scrolling(browser: Any, e2e_form: Path, width: int) -> None:
    tab = _open(browser, e2e_form, width)
    figures = tab.locator(".filmstrip figure")
    assert figures.count() >= 9
    assert tab.evaluate(OVERFLOW_JS) == []
    # Every step lies within the window's width (wrapped into rows, not off to the right).
    for i in range(figures.count()):
        box = figures.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    # Each question inside its box: a long one wrapped onto lines across the box's top border at phone width.
    outside = tab.evaluate("""() => [...document.querySelectorAll("section.page.active fieldset")].filter(f =>
      f.querySelector("legend").getBoundingClientRect().top < f.getBoundingClientRect().top + 1).length""")
    assert outside == 0
    assert tab.errors == []
    tab.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_episode_page_fits_the_window_and_unfolds_its_calls(browser: Any, episode_page: Path,
                                                                width: int) -> None:
    tab = _open(browser, episode_page, width)
    folds = unpack_folds(episode_page.read_text(encoding="utf-8"))
    tab.wait_for_function("document.body.dataset.unpacked !== undefined", timeout=10_000)
    assert tab.evaluate("document.body.dataset.unpacked") == str(len(folds))
    # The first LLM call, opened: its prompt and answer as the trajectory holds them, as text.
    first = tab.locator("details[data-fold='0']")
    first.locator("summary").click()
    shown = first.locator("pre").all_inner_texts()
    packed = [text for tag, text in folds[0]["blocks"] if tag == "text"]
    assert [s.strip() for s in shown] == [p.strip() for p in packed] and packed
    tab.locator("details[data-fold]").evaluate_all("ds => ds.forEach(d => d.open = true)")
    assert tab.evaluate(OVERFLOW_JS) == []
    # The scroll step: its caption says which way the finger moved, and every step has its screen.
    captions = tab.locator("figure.shot figcaption").all_inner_texts()
    assert "scroll down (the finger swipes up)" in captions
    assert tab.locator("figure.shot svg image").count() == tab.locator("section.step").count()
    assert "simulated phone, seed 0" in tab.inner_text("table.head")
    # Each heading label on one line (at phone width "normalized goal" was split into "normal", "ized", "goal").
    split = tab.evaluate("""() => [...document.querySelectorAll("table.head td:first-child")].filter(td => {
      const range = document.createRange(); range.selectNodeContents(td); return range.getClientRects().length > 1;
    }).map(td => td.textContent)""")
    assert split == []
    assert tab.errors == []
    tab.context.close()
