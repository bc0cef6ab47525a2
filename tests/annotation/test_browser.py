"""A rater's session in a real browser: Debian's headless Chromium driven by Playwright.

The form is opened from disk (offline), refuses to save while questions are
unanswered, restores answers after a reload, and the downloaded answer file
imports and scores to the numbers worked out by hand below.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.forms import load_manifest
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind
from latent_agent.annotation.scoring import Aspect, score
from tests.browser import chromium, offline_only


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with chromium() as browser:
        context = browser.new_context(accept_downloads=True)
        errors: list[str] = []
        tab = context.new_page()
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        offline_only(context)  # forms must work offline
        yield tab
        assert errors == []


def _answer(item: str, question: str) -> str:
    """The rater's answers: everything right, no mistakes, except two judgements on step 2."""
    if item == "step_002" and question in ("previous_action_correct", "mistakes_correct"):
        return "no"
    if question in ("summary_incorrect", "summary_incorrect_ignoring_position", "next_action_mistake"):
        return "no"
    return {"partial_3": "no", "stopping": "premature"}.get(question, "yes")


def _fill_and_save(tab: Any, url: str, out: Path) -> Path:
    tab.goto(url)
    for n in range(tab.locator("nav .dot").count()):
        tab.click(f"nav .dot[data-page='{n}']")
        for fs in tab.locator("section.page.active fieldset[data-question]").all():
            item, question = fs.get_attribute("data-item"), fs.get_attribute("data-question")
            fs.locator(f"input[value='{_answer(item, question)}']").check()
    with tab.expect_download() as info:
        tab.click("#save")
    download = info.value
    path = out / download.suggested_filename
    download.save_as(path)
    assert "Saved" in tab.inner_text("#message")
    return path


def test_rater_session_latent_and_e2e(page: Any, sim_run: Path, tmp_path: Path) -> None:
    tab = page
    episode = sim_run / "ep_roaming"  # a single episode directory is a run too
    latent_dir, e2e_dir = tmp_path / "latent", tmp_path / "e2e"
    export_forms(episode, latent_dir, ExportOptions(FormKind.LATENT))
    export_forms(episode, e2e_dir, ExportOptions(FormKind.E2E))
    (form,) = load_manifest(latent_dir).forms
    url = (latent_dir / "r1" / f"{form.form_id}.html").resolve().as_uri()

    tab.goto(url)
    assert tab.locator("img[data-shot]").first.get_attribute("src").startswith("data:image/jpeg;base64,")
    assert tab.evaluate("document.querySelector('img[data-shot]').naturalWidth") == 432
    # Saving with unanswered questions is refused: 5 steps, 7 + 8 + 8 + 8 + 7 questions.
    downloads: list[Any] = []

    def on_download(download: Any) -> None:
        downloads.append(download)

    tab.on("download", on_download)
    tab.click("#save")
    tab.wait_for_timeout(200)
    assert downloads == []
    assert "Not saved: 38 question(s) unanswered" in tab.inner_text("#message")
    assert tab.locator("section.page.active fieldset.unanswered").count() == 7
    # Answers survive closing and reopening the form.
    tab.locator("section.page.active input[name='step_000::summary_accurate'][value='no']").check()
    tab.goto("about:blank")
    tab.goto(url)
    assert tab.locator("input[name='step_000::summary_accurate'][value='no']").is_checked()
    assert "1 of 38 questions answered" in tab.inner_text("#status")
    tab.remove_listener("download", on_download)

    latent_answers = _fill_and_save(tab, url, tmp_path)
    assert latent_answers.name == f"{form.form_id}.r1.answers.json"
    saved = json.loads(latent_answers.read_text())
    assert saved["answers"]["step_000"]["summary_accurate"] == "yes"  # the later answer replaced the first
    (e2e_form,) = load_manifest(e2e_dir).forms
    e2e_answers = _fill_and_save(tab, (e2e_dir / "r1" / f"{e2e_form.form_id}.html").resolve().as_uri(), tmp_path)

    scores_dir = tmp_path / "scores"
    import_answers([latent_dir, e2e_dir, latent_answers, e2e_answers], scores_dir)
    s = score(load_scores_dir(scores_dir))
    rows = {r.aspect: r for r in s.table2 if r.benchmark == "sim"}
    # previous action: steps 1-4, judged wrong at step 2 only -> 3/4. The inferred actions say the same
    # as the commanded ones, so the baseline equals the agent (3/4) and its one miss is the hard case.
    p = rows[Aspect.PREVIOUS_ACTION]
    assert (p.ratings, p.accuracy, p.baseline, p.hard_ratings, p.hard_accuracy) == (4, 0.75, 0.75, 1, 0.0)
    m = rows[Aspect.MISTAKES]
    assert (m.ratings, m.accuracy, m.baseline, m.hard_ratings, m.hard_accuracy) == (5, 0.8, 0.8, 1, 0.0)
    # completion: all judged right; the agent says "Yes" on the last step only, where "never complete" fails.
    c = rows[Aspect.COMPLETION]
    assert (c.ratings, c.accuracy, c.baseline, c.hard_ratings, c.hard_accuracy) == (5, 1.0, 0.8, 1, 1.0)
    assert (rows[Aspect.SCREEN_SUMMARY].accuracy, rows[Aspect.SUMMARY_NO_INCORRECT].accuracy) == (1.0, 1.0)
    (t3,) = [r for r in s.table3 if r.benchmark == "sim"]
    assert (t3.completed, t3.success, t3.stopping["premature"], t3.partial) == (1.0, 0.0, 1.0, pytest.approx(2 / 3))


def test_rater_session_errors_form(page: Any, failed_sweep: Path, tmp_path: Path) -> None:
    from latent_agent.annotation.consensus import consensus
    from tests.annotation.conftest import ROAMING

    tab = page
    forms_dir = tmp_path / "errors"
    export_forms(failed_sweep, forms_dir, ExportOptions(FormKind.ERRORS))
    (form,) = load_manifest(forms_dir).forms
    tab.goto((forms_dir / "r1" / f"{form.form_id}.html").resolve().as_uri())
    # The automatic guess is visible and labelled, and nothing is selected: saving is refused until the rater
    # picks a cause.
    assert "Automatic guess, not a rater's answer: Grounding" in tab.inner_text("fieldset[data-question=error_cause]")
    assert tab.locator("input[type=radio]:checked").count() == 0
    tab.click("#save")
    assert "Not saved: 1 question(s) unanswered" in tab.inner_text("#message")
    assert tab.locator("img[data-shot]").count() == 5  # every step of the failed episode is shown
    tab.locator("input[name='episode::error_cause'][value='action_selection']").check()  # not the guess
    with tab.expect_download() as info:
        tab.click("#save")
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert json.loads(path.read_text())["answers"] == {"episode": {"error_cause": "action_selection"}}
    scores_dir = tmp_path / "scores"
    import_answers([forms_dir, path], scores_dir)
    rated = load_scores_dir(scores_dir)
    (row,) = [c for c in score(rated).causes if c.benchmark == "sim"]
    assert (row.shares["action_selection"], row.guessed, row.guess_agreement) == (1.0, 1, 0.0)
    assert [(r.key, r.error_cause) for r in consensus(rated)] == [(ROAMING, "action_selection")]
