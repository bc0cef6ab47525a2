"""The sim task suite: every reference solution succeeds, and no check passes vacuously."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.benchmarks.sim_tasks import SUITE, Task, load_suite
from latent_agent.benchmarks.steps import ScrollToStep, find_element, perform
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ElementNotFoundError, TaskSuiteError
from tests.device.sim_helpers import assert_description_invariants

TASKS = load_suite()
HEAD = {"id": "a", "app": "X", "goal": "g"}
PIXELHELP_GOALS = (
    "Change the clock display to digital",
    "Turn on notification dots",
    "Turn off data roaming",
    "Open a new tab in the chrome app",
    "Set the alarm snooze length to 15 minutes",
    "Turn off notifications on the lock screen",
    "Refresh the page in Chrome",
    "Check how much mobile data I have used",
    "Show my emergency information",
    "Turn on private DNS",
)


def test_suite_size_and_coverage() -> None:
    assert len(TASKS) >= 40
    assert {t.app for t in TASKS} >= {"Settings", "Clock", "Chrome", "Play Store", "Files", "Calendar"}
    goals = {t.goal for t in TASKS}
    assert set(PIXELHELP_GOALS) <= goals
    assert {"Set an alarm for 3:30 PM with the sound Argon", "Install Spotify"} <= goals
    assert any("Exercise" in g for g in goals) and any("check out" in g for g in goals)
    assert all(t.partial for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_reference_solution_passes_and_checks_are_not_vacuous(task: Task) -> None:
    device = SimDevice(seed=11)
    for check in (*task.success, *task.partial):
        assert not check.holds(device.state), f"{check.describe()} holds on the untouched phone"
    assert task.progress(device.state) == 0.0
    for action in task.solution:
        perform(device, action)
        device.wait_for_idle()
        assert_description_invariants(device.hierarchy().tree)
    failing = [c.describe() for c in (*task.success, *task.partial) if not c.holds(device.state)]
    assert not failing
    assert task.succeeded(device.state) and task.progress(device.state) == 1.0


def test_partial_progress_counts_partial_checks() -> None:
    task = next(t for t in TASKS if t.id == "settings_roaming_off")
    device = SimDevice()
    for action in task.solution[:3]:  # open Settings, Network & internet, SIMs; roaming still on
        perform(device, action)
    assert not task.succeeded(device.state)
    assert task.progress(device.state) == 1.0 == len([c for c in task.partial if c.holds(device.state)]) / 3


def test_missing_elements_fail_clearly() -> None:
    device = SimDevice()
    with pytest.raises(ElementNotFoundError, match="Teleport"):
        find_element(device, "Teleport")
    with pytest.raises(ElementNotFoundError, match="scrolled"):
        perform(device, ScrollToStep("Nowhere to be found"))


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"schema_version": 2, "tasks": []}, "schema_version"),
        (
            {"schema_version": 1, "tasks": [{"id": "a", "app": "X", "goal": "g", "success": []}]},
            "success check",
        ),
        (
            {
                "schema_version": 1,
                "tasks": [
                    {"id": "a", "app": "X", "goal": "g", "success": [{"path": "settings.nope", "equals": 1}]}
                ],
            },
            "nope",
        ),
        (
            {
                "schema_version": 1,
                "tasks": [
                    {
                        "id": "a",
                        "app": "X",
                        "goal": "g",
                        "success": [{"path": "clock.style", "equals": "x", "any": {"a": 1}}],
                    }
                ],
            },
            "exactly one",
        ),
        (
            {
                "schema_version": 1,
                "tasks": [
                    {
                        "id": "a",
                        "app": "X",
                        "goal": "g",
                        "success": [{"path": "clock.style", "equals": "x"}],
                        "solution": [{"fly": "away"}],
                    }
                ],
            },
            "unknown action",
        ),
        (
            {
                "schema_version": 1,
                "tasks": [
                    {
                        "id": "a",
                        "app": "X",
                        "goal": "g",
                        "success": [{"path": "clock.style", "equals": "x"}],
                        "solution": [{"key": "power"}],
                    }
                ],
            },
            "unknown key",
        ),
    ],
)
def test_malformed_suites_are_rejected(tmp_path: Path, doc: object, message: str) -> None:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(TaskSuiteError, match=message):
        load_suite(path)


def test_suite_file_is_the_default_and_valid_json() -> None:
    doc = json.loads(SUITE.read_text(encoding="utf-8"))
    assert doc["schema_version"] == 1 and len(doc["tasks"]) == len(TASKS)
