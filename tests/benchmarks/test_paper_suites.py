"""The paper's suites: pixelhelp (on the sim, checked automatically), aitw-paper, a50, and paper (all three)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from latent_agent.benchmarks.paper_tasks import (
    PAPER_FILE,
    PROJECT_FILE,
    QUESTIONS_PAPER,
    QUESTIONS_PROJECT,
    load_paper_tasks,
    pixelhelp_sim_tasks,
)
from latent_agent.benchmarks.sim_tasks import Task as SimTask
from latent_agent.benchmarks.steps import replay
from latent_agent.benchmarks.suite import SUITES, load_named_suite
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import TaskSuiteError
from tests.benchmarks.fakes import ReplayRunner

SOURCES = PAPER_FILE.parents[2] / "SOURCES.md"
PAPER = json.loads(PAPER_FILE.read_text(encoding="utf-8"))["benchmarks"]
SUITE_OF = {"pixelhelp": "pixelhelp", "aitw": "aitw-paper", "a50": "a50"}
#: The sim task each PixelHelp goal is played by (the mapping the suite must keep).
SIM_OF = {
    "Change the clock display to digital": "clock_digital",
    "Turn notification dots on": "settings_notification_dots",
    "Turn off data roaming": "settings_roaming_off",
    "Open a new tab in the chrome app": "chrome_new_tab",
    "Change alarm snooze length": "clock_snooze_15",
    "Stop showing notifications on the lock screen": "settings_lockscreen_notifications_off",
    "Refresh tabs in the chrome app": "chrome_refresh",
    "Check data usage": "settings_data_usage",
    "Show emergency info": "settings_emergency_info",
    "Turn on private dns": "settings_private_dns_on",
}


def test_the_data_file_is_the_verbatim_copy_named_in_sources() -> None:
    digest = hashlib.sha256(PAPER_FILE.read_bytes()).hexdigest()
    row = next(line for line in SOURCES.read_text(encoding="utf-8").splitlines()
               if "latent_state_paper/appendix_g_tasks.json" in line)
    assert f"sha256 {digest}" in row


@pytest.mark.parametrize(("key", "name"), sorted(SUITE_OF.items()))
def test_each_suite_holds_the_papers_ten_goals_verbatim_in_order(key: str, name: str) -> None:
    suite = load_named_suite(name)
    assert [t.goal for t in suite.tasks] == [e["goal"] for e in PAPER[key]]
    assert len(suite.tasks) == 10
    assert [t.id for t in suite.tasks] == [f"{name}-{i:02d}" for i in range(1, 11)]
    assert all(t.source == f"latent_state_paper/appendix_g_tasks.json:{key}[{i}]" for i, t in enumerate(suite.tasks))
    assert all(t.benchmark is None and "paper" in t.tags and name in t.tags for t in suite.tasks)


def test_goals_keep_the_papers_typography() -> None:
    """Exact strings: the curly apostrophe and the stray space before a full stop are the paper's."""
    goals = {t.goal for t in load_named_suite("paper").tasks}
    assert 'Install app "McDonald’s"' in goals
    assert "In the Fresh to home app, add the product premium chicken skinless to the cart ." in goals
    assert "Turn on private dns" in goals


@pytest.mark.parametrize(("key", "name"), sorted(SUITE_OF.items()))
def test_printed_questions_are_the_papers_and_the_rest_are_marked_as_the_projects(key: str, name: str) -> None:
    for task, printed in zip(load_named_suite(name).tasks, PAPER[key], strict=True):
        assert task.partial_questions, task.id
        assert all(q.endswith("?") for q in task.partial_questions), task.id
        if printed["partial_questions"]:
            assert task.question_source == QUESTIONS_PAPER
            assert list(task.partial_questions) == printed["partial_questions"]
        else:
            assert task.question_source == QUESTIONS_PROJECT


def test_printed_question_counts() -> None:
    """Six goals have printed questions (App. I, Table 5); 24 carry the project's."""
    sources = [t.question_source for t in load_named_suite("paper").tasks]
    assert sources.count(QUESTIONS_PAPER) == 6 and sources.count(QUESTIONS_PROJECT) == 24


def test_pixelhelp_runs_on_the_sim_and_the_others_are_rated() -> None:
    pixelhelp = load_named_suite("pixelhelp")
    assert pixelhelp.needs_sim and all(t.automatic for t in pixelhelp.tasks)
    assert {t.goal: t.sim_task.id for t in pixelhelp.tasks if t.sim_task is not None} == SIM_OF
    assert all(t.sim_task is not None and t.sim_task.goal == t.goal for t in pixelhelp.tasks)
    for name in ("aitw-paper", "a50"):
        suite = load_named_suite(name)
        assert not suite.needs_sim and not any(t.automatic for t in suite.tasks)


def test_paper_is_all_three_each_counted_towards_its_own_benchmark() -> None:
    paper = load_named_suite("paper")
    assert len(paper.tasks) == 30
    assert {t.benchmark for t in paper.tasks} == {"pixelhelp", "aitw-paper", "a50"}
    assert all(t.benchmark in SUITES for t in paper.tasks)
    for task in paper.tasks:
        assert task.benchmark is not None
        own = load_named_suite(task.benchmark).task(task.id)
        assert (own.goal, own.partial_questions, own.question_source) == (
            task.goal, task.partial_questions, task.question_source)


@pytest.mark.parametrize("task", load_named_suite("pixelhelp").tasks, ids=lambda t: t.id)
def test_the_reference_solution_passes_every_check_and_a_fresh_phone_passes_none(task: object) -> None:
    from latent_agent.benchmarks.suite import BenchmarkTask

    assert isinstance(task, BenchmarkTask) and task.sim_task is not None
    fresh = SimDevice()
    assert not task.sim_task.succeeded(fresh.state)
    assert not any(c.holds(fresh.state) for c in task.sim_task.partial)
    device = SimDevice()
    replay(device, task.sim_task.solution)
    assert task.sim_task.succeeded(device.state)
    assert [c.describe() for c in task.sim_task.partial if not c.holds(device.state)] == []


def test_an_unchanged_snooze_length_is_not_a_change() -> None:
    """"Change alarm snooze length" succeeds on any new length, not only the sim task's 15 minutes."""
    task = load_named_suite("pixelhelp").task("pixelhelp-05")
    assert task.goal == "Change alarm snooze length" and task.sim_task is not None
    device = SimDevice()
    device.state.clock.snooze_minutes = 5
    assert task.sim_task.succeeded(device.state)
    device.state.clock.snooze_minutes = 10
    assert not task.sim_task.succeeded(device.state)


def test_the_demo_stand_in_plays_the_paper_goals_by_their_sim_tasks() -> None:
    from latent_agent.demo.oracle import DemoOracle

    oracle = DemoOracle()
    for goal, sim_id in SIM_OF.items():
        found = oracle.find_task(goal)
        assert found is not None and found.id == sim_id, goal
    assert len(pixelhelp_sim_tasks()) == 10


def test_annotation_reads_the_questions_of_the_new_suites() -> None:
    from latent_agent.annotation.sources import TaskIndex

    index = TaskIndex()
    for name in ("pixelhelp", "aitw-paper", "a50"):
        for task in load_named_suite(name).tasks:
            found = index.find(task.id, name)
            assert found is not None and found.benchmark == name and found.partial == task.partial_questions
    # An episode outside a sweep is found by its task id alone.
    alone = index.find("a50-06")
    assert alone is not None and alone.benchmark == "a50" and alone.partial[0] == "Was the Kitchen Stories app opened?"


# -- the loader refuses a project file that does not match the paper -----------------------------


def _project(tmp_path: Path, edit: object) -> Path:
    doc = json.loads(PROJECT_FILE.read_text(encoding="utf-8"))
    edit(doc)  # type: ignore[operator]
    path = tmp_path / "paper_tasks.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _entry(doc: dict[str, list[dict[str, object]]], key: str, goal: str) -> dict[str, object]:
    return next(e for e in doc[key] if e["goal"] == goal)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["a50"].pop(0), "the paper's goal 'Open the file manager app and create a folder named as My Pictures' "
                                "is missing"),
    (lambda d: d["aitw"].append({"goal": "Install app \"Spotify\"", "questions": ["Was it installed?"]}),
     "goals the paper does not list"),
    (lambda d: _entry(d, "a50", "Go to the Kitchen Stories app and save the recipe for spaghetti").update(
        questions=["Was it saved?"]), "the project adds none"),
    (lambda d: _entry(d, "a50", "Open my most recent message in Google Chat.").pop("questions"), "'questions'"),
    (lambda d: _entry(d, "pixelhelp", "Check data usage")["partial"].reverse(),  # type: ignore[attr-defined]
     "must be the paper's printed questions"),
    (lambda d: _entry(d, "pixelhelp", "Show emergency info").update(sim_task="no_such_task"), "'sim_task'"),
    (lambda d: _entry(d, "pixelhelp", "Show emergency info").update(
        partial=[{"path": "history.pages", "contains": "x"}]), "needs a label"),
    (lambda d: d.update(schema_version=2), "schema_version"),
])
def test_a_project_file_out_of_step_with_the_paper_is_refused(tmp_path: Path, edit: object, message: str) -> None:
    with pytest.raises(TaskSuiteError, match=re.escape(message)):
        load_paper_tasks(PAPER_FILE, _project(tmp_path, edit))


def test_an_unreadable_paper_file_is_one_error(tmp_path: Path) -> None:
    broken = tmp_path / "appendix_g_tasks.json"
    shutil.copy(PAPER_FILE, broken)
    broken.write_text(broken.read_text(encoding="utf-8")[:100], encoding="utf-8")
    with pytest.raises(TaskSuiteError, match="cannot read"):
        load_paper_tasks(broken, PROJECT_FILE)


# -- sweep --suite paper, then report and forms ---------------------------------------------------


class _PaperReplay(ReplayRunner):
    """The scripted agent of the sweep tests, taught the paper suites: PixelHelp goals by their sim
    task's solution; the rated goals (no phone here has their apps) with nothing done before stopping."""

    def __post_init__(self) -> None:
        super().__post_init__()
        for task in load_named_suite("paper").tasks:
            self.tasks[task.id] = task.sim_task or SimTask(task.id, "", task.goal, (), (), ())


#: ``latent-agent sweep --runner tests.benchmarks.test_paper_suites:paper_runner``.
paper_runner = _PaperReplay()


@pytest.fixture(scope="module")
def paper_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from latent_agent.cli import main

    out = tmp_path_factory.mktemp("paper") / "sweep"
    assert main(["sweep", "--suite", "paper", "--devices", "sim*2", "--llm", "scripted:echo", "--methods", "react+",
                 "--out", str(out), "--runner", "tests.benchmarks.test_paper_suites:paper_runner", "--no-progress",
                 "--no-screenshots"]) == 0
    return out


def test_sweep_paper_runs_all_three_and_records_each_episode_under_its_benchmark(paper_sweep: Path) -> None:
    from latent_agent.benchmarks.results import ResultsLog

    manifest = json.loads((paper_sweep / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["suite"] == "paper" and len(manifest["episodes"]) == 30
    records = ResultsLog(paper_sweep).load()
    by_suite: dict[str, list[object]] = {}
    for r in records:
        by_suite.setdefault(r.suite, []).append(r.success)
    assert {name: len(v) for name, v in by_suite.items()} == {"pixelhelp": 10, "aitw-paper": 10, "a50": 10}
    assert by_suite["pixelhelp"] == [True] * 10  # the sim's checks
    assert by_suite["aitw-paper"] == by_suite["a50"] == [None] * 10  # left to raters
    data_usage = next(r for r in records if r.task_id == "pixelhelp-08")
    assert [(p.question, p.answer) for p in data_usage.partial] == [
        ("Was the settings app opened?", True), ("Was the data usage page of settings reached?", True),
        ("Was data usage displayed?", True)]
    kitchen = next(r for r in records if r.task_id == "a50-06")
    assert [p.question for p in kitchen.partial] == ["Was the Kitchen Stories app opened?",
                                                     "Was the recipe for spaghetti reached?",
                                                     "Was the recipe for spaghetti saved?"]


def test_report_of_a_paper_sweep_has_a_table_per_benchmark(paper_sweep: Path) -> None:
    from latent_agent.cli import main

    assert main(["report", str(paper_sweep)]) == 0
    text = (paper_sweep / "report" / "report.md").read_text(encoding="utf-8")
    for name in ("pixelhelp", "aitw-paper", "a50"):
        assert f"Suite: {name}" in text


def test_forms_of_a_paper_sweep_ask_the_suites_questions(paper_sweep: Path, tmp_path: Path) -> None:
    from latent_agent.annotation.export import ExportOptions, export_forms
    from latent_agent.annotation.forms import load_manifest
    from latent_agent.annotation.questions import FormKind

    export_forms(paper_sweep, tmp_path / "forms", ExportOptions(FormKind.E2E))
    forms = {f.episode.task_id: f for f in load_manifest(tmp_path / "forms").forms}
    assert len(forms) == 30
    for task_id, benchmark in (("pixelhelp-06", "pixelhelp"), ("aitw-paper-07", "aitw-paper"), ("a50-08", "a50")):
        form = forms[task_id]
        assert form.episode.benchmark == benchmark
        task = load_named_suite(benchmark).task(task_id)
        (item,) = form.items
        texts = " ".join(q.text for q in item.questions)
        assert all(q in texts for q in task.partial_questions), task_id


def test_sim_tasks_lists_the_pixelhelp_goals_with_their_sim_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli import main

    assert main(["sim", "tasks", "--suite", "pixelhelp", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["sim_task"], r["goal"]) for r in rows] == [
        (f"pixelhelp-{i:02d}", SIM_OF[e["goal"]], e["goal"]) for i, e in enumerate(PAPER["pixelhelp"], 1)]
    assert main(["sim", "tasks", "--suite", "pixelhelp", "--app", "chrome"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("pixelhelp-04 (chrome_new_tab)")
    assert lines[0].endswith("Open a new tab in the chrome app")


def test_the_sim_tasks_tagged_pixelhelp_are_the_ones_the_paper_goals_map_to() -> None:
    sim = load_named_suite("sim")
    assert {t.id for t in sim.select(tags=["pixelhelp"]).tasks} == set(SIM_OF.values())


def test_sweep_pixelhelp_with_the_demo_stand_in_succeeds(tmp_path: Path) -> None:
    from latent_agent.benchmarks.results import ResultsLog
    from latent_agent.cli import main

    out = tmp_path / "sweep"
    assert main(["sweep", "--suite", "pixelhelp", "--tasks", "pixelhelp-05,pixelhelp-08", "--methods",
                 "react-,react+", "--devices", "sim", "--llm", "demo", "--out", str(out), "--no-progress",
                 "--no-screenshots"]) == 0
    records = ResultsLog(out).load()
    assert sorted((r.task_id, r.method, r.success) for r in records) == [
        ("pixelhelp-05", "react+", True), ("pixelhelp-05", "react-", True),
        ("pixelhelp-08", "react+", True), ("pixelhelp-08", "react-", True)]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["grounder"] == "paper"


def test_the_demo_stand_in_refuses_the_rated_suites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli import main

    assert main(["sweep", "--suite", "paper", "--devices", "sim", "--llm", "demo", "--out", str(tmp_path / "s"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot play 'paper'" in err[0]
