"""CAAP on real MiniWoB++ pages as published: the demo stand-in answers in the paper's function table (ids and
positions of the element list the screen observer reads from the screenshot), each function is executed as the
web page's own action with no grounding call, and the page's reward ends the episode. An element id that is not
on the screen is a recorded error and the model is asked again. Demonstrations of such episodes are written in
the same functions, their element lists read by the screen observer whatever the episode observed."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.load import parse_any
from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.agent.caap.elements import build_elements
from latent_agent.agent.caap.policy import CaapState
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.trajectory import StopReason, Trajectory, read_trajectory
from latent_agent.benchmarks.demos_episodes import record_episode
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest
from latent_agent.surfaces import WEB_PAGE


def _play(miniwob: MiniWobDevice, task: str, seed: int, out: Path, client: ScriptedModel,
          observation: str = "screen") -> Trajectory:
    goal = miniwob.load_task(task, seed)
    try:
        result = run_episode_sync(EpisodeConfig(goal, "caap", observation=observation, task_id=task, seed=seed,
                                                max_steps=12), miniwob, client, out)
    finally:
        client.close()
    assert result.stop_reason is StopReason.TASK_ENDED, result.detail
    assert result.reward is not None and result.reward.raw == 1.0
    return read_trajectory(out)


@pytest.mark.parametrize(("task", "seed", "functions"), [
    ("drag-items", 1, ["drag_mouse_hold_down", "drag_mouse_move", "drag_mouse_release"]),
    # -37 is dragged to the top, then Submit.
    ("drag-sort-numbers", 7, ["drag_mouse_hold_down", "drag_mouse_move", "drag_mouse_release", "click_element"]),
    ("click-checkboxes", 2, ["click_element"] * 3),
    ("enter-text", 3, ["click_element", "type_text", "click_element"]),
    ("choose-list", 2, ["click_element"] * 3),  # the list, its option, Submit
    ("use-spinner", 18, ["click_element"] * 2),  # the down arrow (-1), Submit
])
def test_the_stand_in_solves_the_task_in_caaps_functions_with_no_grounding_call(
        miniwob: MiniWobDevice, tmp_path: Path, task: str, seed: int, functions: list[str]) -> None:
    t = _play(miniwob, task, seed, tmp_path / "ep", ScriptedModel(responder=DemoOracle(), model="demo"))
    assert t.header.observation == "screen"  # the screenshot alone, as CAAP saw it
    states = [s.state for s in t.steps]
    assert all(isinstance(s, CaapState) for s in states)
    assert [s.selected_step.split()[0].split("(")[0] for s in t.steps] == functions
    # Every call is CAAP's own; every step is grounded by the policy (the function's element or position).
    assert {c.purpose for s in t.steps for c in s.calls} == {"caap"}
    assert all(s.grounder == "caap" and s.executed and s.grounding_error is None for s in t.steps)
    if task.startswith("drag"):
        assert [s.executed_detail.split("(")[0] for s in t.steps[:3]] == ["pointer_down", "pointer_move",
                                                                          "pointer_up"]
        # The demonstration of the episode is the same functions, ready for the rationale prompt of a web page.
        demo = record_episode(t, task, task, WEB_PAGE)
        assert [a.action.name for a in demo.actions] == functions and demo.surface == "web_page"
        assert demo.actions[0].action.params["x"] == int(t.steps[0].executed_detail.split("(")[1].split(",")[0])


def test_an_element_id_not_on_the_screen_is_an_error_and_the_model_is_asked_again(
        miniwob: MiniWobDevice, tmp_path: Path) -> None:
    asked: list[dict[str, object]] = []

    def answer(request: GenerationRequest) -> str:
        if request.purpose == "normalize_goal":  # the loop's rephrasing, which CAAP does not show
            return str(request.inputs["goal"])
        assert request.purpose == "caap", request.purpose
        asked.append(dict(request.inputs))
        if len(asked) == 1:
            return "Action_2=(Action: functions.click_element, Argument: {element_id: element_99})"
        elements = asked[-1]["elements"]
        assert isinstance(elements, list)
        no = next(e for e in elements if e.get("text") == "no")
        return f"Action_3=(Action: functions.click_element, Argument: {{element_id: {no['id']}}})"

    # Seen through the page's tree (--observation a11y, still an option): fast, and the ids are stable.
    t = _play(miniwob, "click-button", 3, tmp_path / "ep", ScriptedModel(responder=answer), observation="a11y")
    first, second = t.steps
    assert not first.executed and first.grounder == "caap"
    assert first.grounding_error == "element_99 is not in the element list of the current screen"
    state = second.state
    assert isinstance(state, CaapState) and state.query_reason == "error" and len(asked) == 2
    assert asked[1]["last_error"] == "element_99 is not in the element list of the current screen"
    # A demonstration of this episode reads the screenshots with the screen observer, not the saved tree.
    demo = record_episode(t, "click-button", "click-button", WEB_PAGE)
    assert second.screenshot_file is not None
    shot = (t.directory / second.screenshot_file).read_bytes()
    assert demo.actions[0].before == build_elements(clean_tree(ScreenObserver().read(shot).tree))
    saved = parse_any((t.directory / second.screen_file).read_bytes(), source="the page's saved tree")
    assert demo.actions[0].before != build_elements(clean_tree(saved))
