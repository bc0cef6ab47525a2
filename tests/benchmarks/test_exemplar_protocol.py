"""The exemplar protocol: families and splits of the sim suite, sweeping a split, and end to end with the demo:
harvest a memory from a training sweep, run an evaluation task with it, report the split section."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.exemplars.policy import ExemplarState
from latent_agent.agent.methods import METHODS
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.report_exemplars import NONE, OTHER, OWN, exemplar_rows, retrieval_outcome
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.benchmarks.sim_tasks import SPLITS, load_suite
from latent_agent.benchmarks.suite import load_named_suite
from latent_agent.cli import main
from latent_agent.errors import ConfigError, TaskSuiteError

TASK = {"id": "a", "app": "X", "goal": "g", "success": [{"path": "clock.style", "equals": "x"}]}


@pytest.fixture(autouse=True)
def registry_restored() -> Iterator[None]:
    """``--memory`` points the registered exemplar method at a memory for the process: undo it after each test."""
    saved = dict(METHODS)
    yield
    METHODS.clear()
    METHODS.update(saved)


def test_every_shipped_task_has_a_family_and_a_split() -> None:
    tasks = load_suite()
    assert all(t.family and t.split in SPLITS for t in tasks)
    families: dict[str, set[str]] = {}
    for t in tasks:
        families.setdefault(str(t.family), set()).add(str(t.split))
    assert {s for found in families.values() for s in found} == set(SPLITS)
    for family, found in families.items():
        assert found == {"heldout"} or "heldout" not in found, family
        assert "eval" not in found or "train" in found, family
    # A train task's paraphrases are extra retrieval keys.
    assert all(t.goal_variants for t in tasks if t.split == "train")


def _suite(tmp_path: Path, *tasks: dict[str, object]) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"schema_version": 1, "tasks": list(tasks)}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("tasks", "message"), [
    (({**TASK, "family": "f", "split": "test"},), "'split' must be one of"),
    (({**TASK, "split": "train"},), "needs a family"),
    (({**TASK, "family": " "},), "'family' must be a non-empty string"),
    (({**TASK, "family": "f", "goal_variants": ["ok", ""]},), "goal_variants"),
    (({**TASK, "family": "f", "split": "train"}, {**TASK, "id": "b", "family": "f", "split": "heldout"}),
     "mixes heldout with train"),
    (({**TASK, "family": "f", "split": "eval"},), "no train task"),
])
def test_the_loader_refuses_a_bad_protocol(tmp_path: Path, tasks: tuple[dict[str, object], ...],
                                           message: str) -> None:
    with pytest.raises(TaskSuiteError, match=message):
        load_suite(_suite(tmp_path, *tasks))


def test_a_suite_file_without_the_protocol_still_loads(tmp_path: Path) -> None:
    (task,) = load_suite(_suite(tmp_path, TASK))
    assert task.family is None and task.split is None and task.goal_variants == ()


def test_a_split_selects_its_tasks() -> None:
    suite = load_named_suite("sim")
    test = suite.split(["eval", "heldout"])
    assert test.tasks and all(t.sim_task is not None and t.sim_task.split in ("eval", "heldout") for t in test.tasks)
    train = suite.split(["train"])
    assert not {t.id for t in train.tasks} & {t.id for t in test.tasks}
    assert len(train.tasks) + len(test.tasks) == len(suite.tasks)
    with pytest.raises(ConfigError, match="unknown split nope"):
        suite.split(["nope"])
    with pytest.raises(ConfigError, match="only the sim suite"):
        load_named_suite("aitw-general").split(["train"])


def test_retrieval_outcomes() -> None:
    state = ExemplarState(0, "piece", family="settings-network")
    assert retrieval_outcome(state, "settings-network") == OWN
    assert retrieval_outcome(state, "clock-tools") == OTHER
    assert retrieval_outcome(ExemplarState(0, "piece"), "clock-tools") == NONE


def _sweep(out: Path, *args: str) -> None:
    code = main(["sweep", "--suite", "sim", "--devices", "sim", "--llm", "demo", "--out", str(out),
                 "--no-screenshots", "--no-progress", *args])
    assert code == 0


def test_harvest_a_training_sweep_then_run_and_report_the_evaluation_split(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    train, memory, test = tmp_path / "train", tmp_path / "memory", tmp_path / "test"
    # The training split only: an eval task named beside it is not planned.
    _sweep(train, "--split", "train", "--tasks", "settings_roaming_off,settings_airplane_on,settings_mobile_data_off",
           "--methods", "exemplars")
    assert {r.task_id for r in ResultsLog(train).load()} == {"settings_roaming_off", "settings_airplane_on"}
    assert main(["memory", "build", str(train), "--out", str(memory), "--embedder", "hash"]) == 0

    # One episode with the memory: the right family is retrieved and its exemplars are in the chat.
    episode = tmp_path / "ep"
    assert main(["run", "Turn off mobile data", "--device", "sim", "--llm", "demo", "--method", "exemplars",
                 "--memory", str(memory), "--no-screenshots", "--out", str(episode)]) == 0
    t = read_trajectory(episode)
    first = t.steps[0].state
    assert isinstance(first, ExemplarState) and first.family == "settings-network" and len(first.exemplars) == 2
    assert first.memory == str(memory) and first.cap is not None and first.neighbours
    act = next(c for c in t.steps[0].calls if c.purpose == "exemplar_act")
    assert any("Turn off data roaming" in m.text for m in act.messages)
    assert t.end is not None and t.end.stop_reason is StopReason.DONE

    # The evaluation split with the memory, beside zero-shot+; the report's section splits them.
    _sweep(test, "--split", "eval,heldout", "--tasks", "settings_mobile_data_off,settings_color_inversion",
           "--methods", "exemplars,zero-shot+", "--memory", str(memory))
    records = ResultsLog(test).load()
    assert all(r.success for r in records)
    rows = {(r.method, r.split): r for r in exemplar_rows(test, records)}
    assert set(rows) == {(m, s) for m in ("exemplars", "zero-shot+") for s in ("eval", "heldout")}
    assert rows["exemplars", "eval"].retrieval == {OWN: 1}
    assert sum(rows["exemplars", "heldout"].retrieval.values()) == 1
    assert rows["zero-shot+", "eval"].retrieval == {}
    # Exemplar episodes answer a whole piece per call, and DONE with the last steps.
    assert rows["exemplars", "eval"].calls < rows["zero-shot+", "eval"].calls
    assert main(["report", str(test)]) == 0
    report = (test / "report" / "report.md").read_text(encoding="utf-8")
    assert "Exemplar memory by split" in report and "Retrieved: own family" in report
    capsys.readouterr()

    # A memory is only queried with the embedder that built it: refused in one line before any episode.
    code = main(["run", "Turn off mobile data", "--device", "sim", "--llm", "demo", "--method", "exemplars",
                 "--memory", str(memory), "--embedder", "hash:128", "--out", str(tmp_path / "refused")])
    err = capsys.readouterr().err
    assert code == 2 and "hash:256" in err and "hash:128" in err and not (tmp_path / "refused").exists()


def test_memory_options_are_refused_where_they_do_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", "zero-shot+",
                 "--memory", str(tmp_path), "--out", str(tmp_path / "ep")])
    assert code == 2 and "--memory is for the method(s) exemplars" in capsys.readouterr().err
    code = main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", "exemplars",
                 "--memory", str(tmp_path / "none"), "--out", str(tmp_path / "ep")])
    err = capsys.readouterr().err
    assert code == 2 and "none" in err and len(err.strip().splitlines()) == 1
