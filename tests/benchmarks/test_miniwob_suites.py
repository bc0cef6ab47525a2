"""The MiniWoB++ suites: the shipped tasks less the excluded ones, the three papers' tasks, groups and seeds."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.miniwob_tasks import (
    NAMES_FILE,
    PROJECT_FILE,
    PUBLISHED_FILE,
    load_miniwob_data,
)
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.benchmarks.suite import hosted_goal, load_named_suite
from latent_agent.errors import ConfigError

SOURCES = PROJECT_FILE.parent / "SOURCES.md"
PUBLISHED = json.loads(PUBLISHED_FILE.read_text(encoding="utf-8"))["papers"]
SHIPPED = [line for line in NAMES_FILE.read_text(encoding="utf-8").splitlines() if line]
MINIWOB_SUITES = ("miniwob", "miniwob-reflection", "miniwob-synapse", "miniwob-caap", "miniwob-papers")
TEN_STEPS = EpisodeSettings(max_steps=10)


@pytest.mark.parametrize("path", [PUBLISHED_FILE, NAMES_FILE])
def test_each_data_file_is_the_verbatim_copy_named_in_sources(path: Path) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    rows = [line for line in SOURCES.read_text(encoding="utf-8").splitlines() if f"sha256 {digest}" in line]
    assert len(rows) == 1 and path.name in rows[0]


def test_the_wheel_ships_130_tasks_and_the_miniwob_suite_holds_all_it_can_perform() -> None:
    data = load_miniwob_data()
    assert len(SHIPPED) == 130 and data.names == tuple(SHIPPED)
    suite = load_named_suite("miniwob")
    assert [t.id for t in suite.tasks] == [n for n in SHIPPED if n not in data.excluded]
    assert len(suite.tasks) == 130 - len(data.excluded) == 124
    assert sorted(data.excluded) == ["chase-circle", "draw-circle", "hot-cold", "hover-shape", "moving-items",
                                     "simon-says"]
    assert all(len(why) > 40 for why in data.excluded.values())  # a reason, not a label
    assert all(t.source == f"miniwob/task_names.txt:{SHIPPED.index(t.id) + 1}" for t in suite.tasks)


def test_the_excluded_tasks_are_in_no_suite_and_no_paper_evaluated_them() -> None:
    excluded = set(load_miniwob_data().excluded)
    for name in MINIWOB_SUITES:
        assert not excluded & {t.id for t in load_named_suite(name).tasks}
    for paper in PUBLISHED.values():
        assert not excluded & {t for tasks in paper["task_groups"].values() for t in tasks}


def test_the_reflection_suite_is_the_papers_43_tasks_in_its_three_groups_on_seeds_1000_to_1024() -> None:
    suite = load_named_suite("miniwob-reflection")
    groups = PUBLISHED["structured_reflection"]["task_groups"]
    assert [t.id for t in suite.tasks] == [t for tasks in groups.values() for t in tasks]
    assert len(suite.tasks) == 43
    assert {g: sum(1 for t in suite.tasks if t.tags == (g,)) for g in groups} == {
        "1-screen-1-step": 10, "1-screen-n-step": 20, "n-screen-n-step": 13}
    assert all(t.seeds == tuple(range(1000, 1025)) for t in suite.tasks)


@pytest.mark.parametrize(("name", "key", "count", "heldout"), [
    ("miniwob-synapse", "synapse", 63, "unseen_in_multitask_memory"),
    # CAAP's six unseen tasks were unseen by its visual observer's training only; the prompts had their demos.
    ("miniwob-caap", "caap", 73, None),
])
def test_the_synapse_and_caap_suites_hold_their_papers_tasks_on_50_seeds(name: str, key: str, count: int,
                                                                         heldout: str | None) -> None:
    suite = load_named_suite(name)
    groups = PUBLISHED[key]["task_groups"]
    held = set(groups[heldout]) if heldout else set()
    assert sorted(t.id for t in suite.tasks) == sorted(groups["evaluated_by_paper"])
    assert len(suite.tasks) == count
    assert all(t.seeds == tuple(range(50)) for t in suite.tasks)
    assert {t.id for t in suite.tasks if t.split == "heldout"} == held
    assert all(t.split == "eval" for t in suite.tasks if t.id not in held)


def test_caaps_six_unseen_tasks_are_reported_apart_but_have_train_seeds_for_demonstrations() -> None:
    six = set(PUBLISHED["caap"]["task_groups"]["unseen_tasks"])
    assert six == {"drag-circle", "drag-single-shape", "find-greatest", "generate-number", "odd-or-even",
                   "sign-agreement"}
    paper = load_miniwob_data().papers["caap"]
    assert paper.heldout == frozenset() and set(dict(paper.groups)["unseen by the observer"]) == six
    train = load_named_suite("miniwob-caap").split(["train"])
    assert six <= {t.id for t in train.tasks}
    assert all(t.seeds == tuple(range(3000, 4000)) for t in train.tasks if t.id in six)


def test_the_union_holds_each_papers_task_once_on_every_holding_papers_seeds() -> None:
    union = load_named_suite("miniwob-papers")
    parts = {n: {t.id: t for t in load_named_suite(n).tasks}
             for n in ("miniwob-reflection", "miniwob-synapse", "miniwob-caap")}
    ids = [t.id for t in union.tasks]
    assert len(ids) == len(set(ids)) == len(set().union(*parts.values())) == 91
    for task in union.tasks:
        holding = [p for p in parts.values() if task.id in p]
        assert task.seeds == tuple(sorted({s for p in holding for s in p[task.id].seeds}))
    click = union.task("click-button")
    assert click.seeds == (*range(50), *range(1000, 1025))
    assert {"miniwob-reflection", "miniwob-synapse", "miniwob-caap", "1-screen-1-step"} <= set(click.tags)


@pytest.mark.parametrize("name", MINIWOB_SUITES)
def test_every_task_is_a_hosted_page_judged_by_its_reward_with_no_check_of_ours(name: str) -> None:
    for task in load_named_suite(name).tasks:
        assert task.hosted == task.id and task.sim_task is None and task.automatic
        assert task.goal == hosted_goal(task.id) and task.partial_questions == ()


@pytest.mark.parametrize("name", MINIWOB_SUITES)
def test_train_seeds_never_overlap_the_evaluation_seeds(name: str) -> None:
    suite = load_named_suite(name)
    for task in suite.tasks:
        assert task.train_seeds == tuple(range(3000, 4000))
        assert not set(task.train_seeds) & set(task.seeds)
    train = suite.split(["train"])
    assert all(t.seeds == tuple(range(3000, 4000)) and t.split != "heldout" for t in train.tasks)
    assert {t.id for t in train.tasks} == {t.id for t in suite.tasks if t.split != "heldout"}
    assert suite.split(["eval"]).tasks == tuple(t for t in suite.tasks if t.split == "eval")
    with pytest.raises(ConfigError, match="separate sweeps"):
        suite.split(["train", "eval"])


def test_a_train_range_that_overlaps_a_suites_seeds_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    from latent_agent.benchmarks import miniwob_tasks
    from latent_agent.errors import TaskSuiteError

    project = json.loads(PROJECT_FILE.read_text(encoding="utf-8"))
    project["seeds"]["train"] = [1020, 1100]
    bad = tmp_path / "miniwob_tasks.json"
    bad.write_text(json.dumps(project), encoding="utf-8")
    monkeypatch.setattr(miniwob_tasks, "PROJECT_FILE", bad)
    miniwob_tasks.load_miniwob_data.cache_clear()
    try:
        with pytest.raises(TaskSuiteError, match="overlap the evaluation seeds of miniwob-reflection"):
            miniwob_tasks.load_miniwob_data()
    finally:
        miniwob_tasks.load_miniwob_data.cache_clear()


def test_published_values_are_read_as_fractions_and_an_unreadable_cell_stays_unreadable() -> None:
    papers = load_miniwob_data().papers
    reflection, synapse, caap = papers["structured_reflection"], papers["synapse"], papers["caap"]
    raw = PUBLISHED["structured_reflection"]["tasks"]
    for task in reflection.tasks:
        for column in ("T=1", "T=3", "T=5"):
            assert reflection.value(task, column) == pytest.approx(raw[task][column] / 100)
    assert synapse.value("book-flight", "Ours") == 0.76
    assert synapse.value("bisect-angle", "Ours") is None  # Synapse did not run it: no number is made up
    assert caap.value("drag-circle", "CAAP") == 0.98
    assert caap.value("count-shape", "CAAP") is None
    assert synapse.printed_average == {"Ours": 0.985, "Ours (multi-task)": 0.983}
    assert caap.printed_average == {"CAAP": 0.945}
    assert set(caap.repaired) >= {"click-widget", "copy-paste-2", "drag-box", "drag-circle"}
    assert reflection.model == "FLAN-PaLM2 L" and synapse.model == "gpt-3.5-turbo"
    assert "gpt-4-0125" in caap.model


def test_a_plan_runs_each_task_on_its_own_seeds_the_first_n_with_fewer() -> None:
    suite = load_named_suite("miniwob-reflection").select(["click-button", "enter-text"])
    tasks = [(t.id, t.goal) for t in suite.tasks]
    own = {t.id: t.seeds for t in suite.tasks}
    full = SweepPlan.build(suite.name, tasks, ["reflection"], 25, "scripted", TEN_STEPS, task_seeds=own)
    assert sorted({e.seed for e in full.episodes}) == list(range(1000, 1025))
    assert len(full.episodes) == 2 * 25
    two = SweepPlan.build(suite.name, tasks, ["reflection"], 2, "scripted", TEN_STEPS, task_seeds=own)
    assert [(e.task_id, e.seed) for e in two.episodes] == [
        ("click-button", 1000), ("enter-text", 1000), ("click-button", 1001), ("enter-text", 1001)]
    assert re.fullmatch(r"click-button__reflection__s1000", two.episodes[0].key)
    plain = SweepPlan.build("sim", tasks, ["reflection"], 2, "scripted", TEN_STEPS)
    assert [e.seed for e in plain.episodes] == [0, 0, 1, 1]


def test_a_sweep_of_hosted_tasks_on_devices_that_host_none_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli.main import main

    code = main(["sweep", "--suite", "miniwob-reflection", "--tasks", "click-button", "--devices", "sim*2",
                 "--methods", "reflection", "--llm", "scripted:echo", "--out", str(tmp_path / "s"), "--no-progress",
                 "--no-preflight"])
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "s").exists()
    assert "suite miniwob-reflection's tasks are pages that a device hosting judged tasks loads" in err
    assert "--devices miniwob*4" in err and len(err.strip().splitlines()) == 1


def test_more_seeds_than_a_task_has_says_how_many_it_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli.main import main

    main(["sweep", "--suite", "miniwob-reflection", "--tasks", "click-button", "--seeds", "30", "--devices", "sim",
          "--methods", "reflection", "--llm", "scripted:echo", "--out", str(tmp_path / "s"), "--no-progress",
          "--no-preflight"])
    err = capsys.readouterr().err
    assert "--seeds 30: 1 task(s) of miniwob-reflection have fewer seeds of their own (25); each runs on all of " \
           "its own" in err
