"""What MiniWoB++ tasks need and what each method's actions can do on a web page: data, read without names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.agent.methods import METHODS, ActionSpace
from latent_agent.benchmarks import miniwob_tasks
from latent_agent.benchmarks.miniwob_tasks import load_miniwob_data, solved
from latent_agent.errors import ConfigError, TaskSuiteError


def test_no_paper_task_is_out_of_reach_of_the_papers_own_method() -> None:
    # Each paper ran its method on its tasks: a need its own action table lacks would be a wrong entry.
    data = load_miniwob_data()
    for paper in data.papers.values():
        for method in (m for m in METHODS.values() if m.family.name == paper.layout.family):
            assert [t for t in paper.tasks if data.unmet(t, method.web_actions)] == [], (paper.key, method.name)


def test_nine_of_caaps_73_tasks_need_a_drag_that_reflection_and_synapse_lack() -> None:
    data = load_miniwob_data()
    caap = data.papers["caap"]
    drags = [t for t in caap.tasks if [n.need for n in data.unmet(t, METHODS["reflection"].web_actions)] == ["drag"]]
    assert len(caap.tasks) == 73 and len(drags) == 9
    assert {"drag-items", "drag-sort-numbers", "highlight-text", "resize-textarea"} <= set(drags)
    assert [n.need for n in data.unmet("drag-items", METHODS["exemplars-task"].web_actions)] == ["drag"]
    assert data.unmet("drag-items", METHODS["zero-shot+"].web_actions) == ()  # the grounder drags
    # A multiple list: CTRL held (reflection, CAAP) or an option chosen (Synapse) does it; the grounder cannot.
    assert [n.need for n in data.unmet("click-scroll-list", METHODS["zero-shot+"].web_actions)] == [
        "choosing several items of a list"]
    assert not any(data.unmet("click-scroll-list", METHODS[m].web_actions) for m in ("reflection", "exemplars", "caap"))
    assert data.unmet("click-button", ActionSpace(frozenset({"click"}), "clicks only")) == ()


def test_every_paper_counted_a_positive_reward_as_solved() -> None:
    papers = load_miniwob_data().papers
    assert {key: p.counted for key, p in papers.items()} == {
        "structured_reflection": "positive", "synapse": "positive", "caap": "positive"}
    assert all("reward > 0" in p.counted_source for p in papers.values())
    assert (solved(1.0, "raw_one"), solved(0.6, "raw_one"), solved(0.6, "positive"), solved(0.0, "positive"),
            solved(-1.0, "positive")) == (True, False, True, False, False)


def test_an_action_space_names_only_known_actions() -> None:
    with pytest.raises(ConfigError, match=r"unknown web action.*'teleport'"):
        ActionSpace(frozenset({"click", "teleport"}), "a typo")  # type: ignore[arg-type]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["needs"][0]["any_of"].append("teleport"), r"needs\[0\] \(drag\) names 'teleport', which is no web"),
    (lambda d: d["needs"][1]["tasks"].append("draw-square"), r"needs\[1\] .* names 'draw-square', which miniwob"),
    (lambda d: d["needs"][2].update(tasks=[]), r"needs\[2\] must have a need, a why, and non-empty"),
    (lambda d: d["criteria"].pop("caap"), r"criteria.caap must say what the paper counted"),
    (lambda d: d["criteria"]["synapse"].update(counted="reward>=0"), r"criteria.synapse must say"),
])
def test_a_wrong_need_or_criterion_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        change: object, message: str) -> None:
    doc = json.loads(miniwob_tasks.PROJECT_FILE.read_text(encoding="utf-8"))
    change(doc)  # type: ignore[operator]
    project = tmp_path / "miniwob_tasks.json"
    project.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(miniwob_tasks, "PROJECT_FILE", project)
    load_miniwob_data.cache_clear()
    try:
        with pytest.raises(TaskSuiteError, match=message):
            load_miniwob_data()
    finally:
        load_miniwob_data.cache_clear()
