"""A report that claims only what it can (issue 28 item 8): each point from a results fixture, and a MiniWoB++
``--llm demo`` sweep on real pages for the pages' banners and the zero-exemplar marks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from latent_agent.agent.caap.policy import CaapPolicy
from latent_agent.agent.methods import CAAP, METHODS, ActionSpace, Method, Variant, register, unregister
from latent_agent.agent.pages.banner import NOT_A_MODEL, model_banner
from latent_agent.agent.trajectory import StopReason
from latent_agent.benchmarks.metrics import compute_metrics
from latent_agent.benchmarks.miniwob_tasks import load_miniwob_data
from latent_agent.benchmarks.report import UNRECORDED, build_report, run_banner
from latent_agent.benchmarks.report_action_spaces import action_space_table
from latent_agent.benchmarks.report_charts import (
    BANNER_COLOUR,
    PUBLISHED_COLOUR,
    PaperBar,
    paper_chart,
    success_bars,
)
from latent_agent.benchmarks.report_main import episodes_table, stops_table
from latent_agent.benchmarks.report_papers import Arm, Exemplars, Outcome, arms, paper_bars, paper_table
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, StopJudgement
from latent_agent.benchmarks.trials import KINDS, TrialEpisode
from latent_agent.cli.main import main
from latent_agent.demo.client import register as register_demo

#: A CAAP-family method whose actions only click and type: it cannot drag.
CLICKS_ONLY = "caap-clicks-only"


def _record(task: str, method: str, seed: int, raw: float, *, stop: StopReason = StopReason.TASK_ENDED,
            judgement: StopJudgement | None = StopJudgement.RIGHT_TIME) -> EpisodeRecord:
    return EpisodeRecord(
        key=f"{task}__{method}__s{seed}", suite="miniwob-papers", task_id=task, goal=f"the {task} page's instruction",
        method=method, seed=seed, device="miniwob#1", attempt=1, status=EpisodeStatus.FINISHED, success=raw == 1.0,
        stop_reason=stop, stop_judgement=judgement, steps=2, raw_reward=raw, time_scaled_reward=raw * 0.8)


def _cells(markdown: str, title_start: str) -> list[list[str]]:
    block = markdown.split(f"### {title_start}", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in block.splitlines() if line.startswith("| ")]
    return [[re.sub(r"\\(.)", r"\1", c.strip()) for c in row.strip("|").split(" | ")] for row in rows]


@pytest.fixture
def clicks_only() -> Iterator[str]:
    register(Method(CLICKS_ONLY, CaapPolicy(), "CAAP with clicks and typing only", CAAP, Variant("clicks", "(clicks)"),
                    web_actions=ActionSpace(frozenset({"click", "type"}), "clicks and typing")))
    try:
        yield CLICKS_ONLY
    finally:
        unregister(CLICKS_ONLY)


@pytest.fixture
def sweep(tmp_path: Path, clicks_only: str) -> Path:
    directory = tmp_path / "sweep"
    directory.mkdir()
    log = ResultsLog(directory)
    for seed, raw in enumerate((1.0, 1.0)):
        log.append(_record("drag-box", clicks_only, seed, raw))  # solved here, yet out of its actions
    for seed, raw in enumerate((1.0, -1.0)):
        log.append(_record("click-button", clicks_only, seed, raw))
    log.append(_record("click-checkboxes", "caap", 0, 0.6))  # 3 of 5 boxes right: a partial reward
    log.append(_record("click-scroll-list", "zero-shot+", 0, 1.0))
    log.append(_record("click-button", "zero-shot+", 0, 1.0))
    return directory


def test_a_task_out_of_a_methods_actions_is_marked_and_never_averaged_beside_the_papers(sweep: Path) -> None:
    markdown = build_report(sweep, n_resamples=100, render_episodes=False).markdown.read_text(encoding="utf-8")
    _, *rows = _cells(markdown, f"MiniWoB++ beside the paper: {CLICKS_ONLY} against Cho et al., CAAP")
    by_task = {row[1]: row for row in rows}
    assert by_task["drag-box"][3] == "out of its actions: needs drag"
    assert by_task["drag-box"][4] == "100.0% [34.2, 100.0] (2/2)"
    assert by_task["click-button"][3] == ""
    # Beside the paper's average: only click-button (ours 50%, the paper's 98%), never drag-box's 100%.
    total = by_task["Average over the 1 tasks we ran that its actions can do (of the paper's 73)"]
    assert total[2:] == ["2", "", "50.0% (mean of 1 task)", "50.0% (mean of 1 task)", "98.0%"]
    assert all("100.0%" not in cell for row in rows if row[1].startswith("Average") for cell in row[4:])
    # Averaged apart, with no published number beside it.
    apart = by_task["Apart: the 1 tasks out of its actions"]
    assert apart[4:] == ["100.0% (mean of 1 task)", "100.0% (mean of 1 task)", "not compared"]
    assert f"need drag, which {CLICKS_ONLY}'s actions (clicks and typing) cannot do" in markdown
    # The full method's actions drag: nothing marked (a CAAP sweep's drag tasks are compared).
    assert load_miniwob_data().unmet("drag-box", METHODS["caap"].web_actions) == ()


def test_every_method_gets_its_action_space_row_with_both_criteria_apart(sweep: Path) -> None:
    table = action_space_table(ResultsLog(sweep).load())
    assert table is not None
    rows = {row[0]: row for row in table.rows}
    assert table.headers[4:] == ("Tasks it can do: raw reward = 1.0", "Tasks it can do: reward > 0",
                                 "Tasks out of its actions: raw reward = 1.0", "Tasks out of its actions: reward > 0")
    zero_shot = rows["Zero-shot + latent state"]
    assert zero_shot[2:] == ("2", "click-scroll-list (needs choosing several items of a list)",
                             "100.0% (mean of 1 task)", "100.0% (mean of 1 task)", "100.0% (mean of 1 task)",
                             "100.0% (mean of 1 task)")
    # CAAP's partial reward: a failure as this project counts, a success as the paper's code did.
    assert rows["CAAP (full)"][3:6] == ("none", "0.0% (mean of 1 task)", "100.0% (mean of 1 task)")
    assert rows["CAAP (clicks)"][3] == "drag-box (needs drag)"


def test_both_criteria_are_shown_and_the_published_one_is_named(sweep: Path) -> None:
    markdown = build_report(sweep, n_resamples=100, render_episodes=False).markdown.read_text(encoding="utf-8")
    header, first, *_ = _cells(markdown, "MiniWoB++ beside the paper: caap against Cho et al., CAAP")
    assert header[4:] == ["Measured caap, model not recorded, raw reward = 1.0 (95% interval)",
                          "Measured reward > 0 (95% interval)",
                          'Published GPT-4 (gpt-4-0125), Table 7, column "CAAP", counted reward > 0']
    assert first[1] == "click-checkboxes" and first[4:6] == ["0.0% [0.0, 79.3] (0/1)", "100.0% [20.7, 100.0] (1/1)"]
    assert "the published numbers counted reward > 0 (the authors' code reads the done flag" in re.sub(
        r"\\(.)", r"\1", markdown)


def _trials(used: int, raw: float, *, stops: tuple[StopReason, ...], budget: int = 5,
            checked: tuple[bool | None, ...] = ()) -> TrialEpisode:
    return TrialEpisode("reflection-check-t5", "check", budget, used, raw == 1.0, checked or (False,) * len(stops),
                        dict.fromkeys(KINDS, 0), raw, stops)


def test_a_multi_trial_episodes_reward_above_0_is_counted_where_its_trials_tell() -> None:
    # One trial, a partial reward: no success at raw 1.0, one as the paper's code counted.
    partial = _trials(1, 0.5, stops=())
    assert (partial.success_at(1), partial.positive_at(1)) == (False, True)
    # A first trial the agent gave up on (the page had not ended: reward 0), then solved.
    gave_up = _trials(2, 1.0, stops=(StopReason.GAVE_UP,))
    assert [gave_up.positive_at(t) for t in (1, 3, 5)] == [False, True, True]
    # A first trial the page ended without raw 1.0: -1 or a partial reward, which no trial record keeps.
    ended = _trials(2, 1.0, stops=(StopReason.TASK_ENDED,))
    assert [ended.positive_at(t) for t in (1, 3)] == [None, True]
    assert _trials(2, -1.0, stops=(StopReason.TASK_ENDED,)).positive_at(3) is None
    # A failure that used the whole budget says nothing about a larger one, under either criterion.
    spent = _trials(3, -1.0, stops=(StopReason.GAVE_UP, StopReason.GAVE_UP), budget=3)
    assert (spent.positive_at(3), spent.positive_at(5), spent.success_at(5)) == (False, None, None)


def test_zero_exemplar_and_other_task_episodes_are_marked() -> None:
    paper = load_miniwob_data().papers["synapse"]
    none, own = Exemplars(0, None), Exemplars(2, "click-button", "own task")
    other = Exemplars(3, "click-link", "nearest task (none of its own)")
    arm = Arm("exemplars-task", "", "a11y", (1,), {
        "click-button": [Outcome((True,), (True,), none), Outcome((True,), (True,), other),
                         Outcome((False,), (False,), own)],
        "enter-text": [Outcome((True,), (True,), Exemplars(1, "enter-text"))]})
    rows = {row[1]: row for row in paper_table(paper, arm, "demo").rows}
    assert rows["click-button"][3] == ("no exemplars in 1 of 3 episodes; exemplars of another task (click-link: "
                                       "nearest task (none of its own)) in 1 of 3 episodes")
    assert rows["enter-text"][3] == ""
    assert [b.mark for b in paper_bars(paper, arm)[1]] == ["no exemplars", ""]


def test_the_banner_is_decided_by_the_provider_registry_from_what_the_run_recorded(tmp_path: Path) -> None:
    register_demo()
    for recorded in ("demo", "demo:openai@0.2", "demo demo-oracle", "scripted:echo", "scripted play"):
        banner = model_banner(recorded)
        assert banner is not None and NOT_A_MODEL in banner.text and NOT_A_MODEL in banner.short, recorded
    for recorded in ("gemini:gemini-2.5-flash", "openai gpt-4o-mini", "llamacpp:qwen2.5-coder-0.5b", "replay:x"):
        assert model_banner(recorded) is None, recorded
    unknown = model_banner("mystery:model")
    assert unknown is not None and "does not know" in unknown.text
    # No manifest: the first readable trajectory's header decides; with neither, that cannot be told.
    assert run_banner(tmp_path, None, []) is UNRECORDED


def test_the_chart_draws_ours_beside_the_published_and_the_banner_across_it(tmp_path: Path) -> None:
    bars = [PaperBar("click-button", 0.5, (0.1, 0.9), 1.0, 0.98),
            PaperBar("drag-box", 1.0, (0.34, 1.0), 1.0, 1.0, comparable=False, mark="needs drag")]

    def pixels(path: Path, colour: str) -> int:
        want = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
        return int((_rgb(path) == want).all(axis=2).sum())

    plain = paper_chart("caap beside CAAP", bars, tmp_path / "plain.png", published="published, GPT-4")
    marked = paper_chart("caap beside CAAP", bars, tmp_path / "marked.png", published="published, GPT-4",
                         banner=f"a scripted stand-in, {NOT_A_MODEL}")
    assert pixels(plain, BANNER_COLOUR) == 0 and pixels(marked, BANNER_COLOUR) > 100
    assert _reddish(plain) == 0 and _reddish(marked) > 300
    # One published bar (click-button's); drag-box, out of the method's actions, has none beside ours.
    alone = paper_chart("x", bars[1:], tmp_path / "alone.png", published="published")
    assert pixels(plain, PUBLISHED_COLOUR) > 500 and pixels(alone, PUBLISHED_COLOUR) < 100  # the legend's patch


def test_the_success_chart_names_each_bar_by_its_method() -> None:
    metrics = compute_metrics([_record("click-button", "zero-shot+", 0, 1.0), _record("click-button", "caap", 0, 1.0),
                               _record("click-button", "caap-no-cot", 0, -1.0)], n_resamples=10)
    layout = success_bars(metrics, "miniwob-papers")
    assert layout is not None and layout.labels == ("zero-shot+", "caap", "caap-no-cot")
    # CAAP's two bars are headed by their family; zero-shot+ alone gets no "Zero-shot" heading.
    assert [heading for _, heading, _ in layout.headings] == ["CAAP"]


def test_the_stop_analysis_and_the_episode_list_say_who_ended_a_miniwob_episode() -> None:
    records = [_record("click-button", "zero-shot+", 0, 1.0), _record("click-button", "zero-shot+", 1, -1.0)]
    (row,) = stops_table(compute_metrics(records, n_resamples=10)).rows
    assert row[2:] == ("2", "2", "0", "–", "– (none stopped)")  # not "Stopped 0" beside a 0.0% rate
    stops = [r[4] for r in episodes_table(records, {}).rows]
    assert stops == ["at the right time (the task's page ended it)"] * 2
    stopped = _record("click-button", "zero-shot+", 2, -1.0, stop=StopReason.COMPLETED,
                      judgement=StopJudgement.PREMATURE)
    assert episodes_table([stopped], {}).rows[0][4] == "premature"


def test_arms_are_read_only_for_the_papers_tasks(sweep: Path) -> None:
    found = {(paper.key, arm.method): sorted(arm.outcomes) for paper, arm in arms(sweep, ResultsLog(sweep).load())}
    assert found == {("caap", "caap"): ["click-checkboxes"], ("caap", CLICKS_ONLY): ["click-button", "drag-box"]}


# A MiniWoB++ sweep with the demo, on real pages: every page of it says it is no language model's.

def _miniwob_ready() -> bool:
    try:
        import miniwob  # noqa: F401
        import playwright.sync_api  # noqa: F401

        from latent_agent.device.miniwob.browser import CHROMIUM
    except ImportError:
        return False
    return CHROMIUM.exists()


@pytest.fixture(scope="module")
def demo_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not _miniwob_ready():
        pytest.skip("MiniWoB++ needs the miniwob wheel, Playwright and Chromium")
    out = tmp_path_factory.mktemp("claims") / "sweep"
    assert main(["sweep", "--suite", "miniwob-papers", "--tasks", "click-button,enter-text", "--seeds", "1",
                 "--methods", "zero-shot+,exemplars-task,caap", "--devices", "miniwob", "--llm", "demo",
                 "--out", str(out), "--no-progress"]) == 0
    assert main(["report", str(out)]) == 0
    return out / "report"


def test_every_page_of_a_demo_run_carries_the_banner(demo_sweep: Path) -> None:
    pages = [demo_sweep / name for name in ("report.md", "report.html", "papers.md", "papers.html")]
    pages += sorted((demo_sweep / "episodes").glob("*.html"))
    assert len(pages) == 4 + 6
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "scripted stand-in (demo" in text and NOT_A_MODEL in text, page.name
    report = (demo_sweep / "report.md").read_text(encoding="utf-8")
    # Each table beside a paper carries it in its title, so its 100% is never beside a published number without it.
    titles = [line for line in report.splitlines() if line.startswith("### MiniWoB++ beside the paper")]
    assert len(titles) == 2 and all(f"(a scripted stand-in, {NOT_A_MODEL})" in t for t in titles)
    for chart in sorted((demo_sweep / "charts").glob("*.png")):
        assert _reddish(chart) > 300, chart.name  # the banner's words, in red across the chart


def _rgb(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=int)


def _reddish(path: Path) -> int:
    """Pixels of the banner's red, or of its faded copy across the plot."""
    r, g, b = np.moveaxis(_rgb(path), 2, 0)
    return int(((r > 180) & (g < 150) & (b < 150) & (r - g > 60)).sum())


def test_a_demo_runs_exemplar_episodes_without_a_memory_are_marked(demo_sweep: Path) -> None:
    papers = (demo_sweep / "papers.md").read_text(encoding="utf-8")
    _, *rows = _cells(papers, "MiniWoB++ beside the paper: exemplars-task against Zheng et al., Synapse")
    assert [(r[1], r[3]) for r in rows[:2]] == [("click-button", "no exemplars in 1 of 1 episodes"),
                                                ("enter-text", "no exemplars in 1 of 1 episodes")]
    assert (demo_sweep / "charts" / "paper_synapse_exemplars-task.png").is_file()
    assert "![caap beside Cho et al., CAAP, per task](charts/paper_caap_caap.png)" in papers


def test_a_cell_whose_episodes_cannot_be_told_under_a_criterion_says_how_many() -> None:
    paper = load_miniwob_data().papers["structured_reflection"]
    unknown = Outcome((False, True, True), (None, True, True))
    arm = Arm("reflection-check-t5", "check", "a11y", (1, 3, 5), {"click-button": [unknown, unknown]})
    rows = {row[1]: row for row in paper_table(paper, arm, "demo").rows}
    assert rows["click-button"][4:7] == ("0.0% [0.0, 65.8] (0/2)", "– (2 unknown)", "100.0%")
    assert rows["click-button"][8] == "100.0% [34.2, 100.0] (2/2)"
