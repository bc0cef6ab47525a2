"""The demo stand-in reads the new prompts as a competent model would and never calls a correct step a mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent import completion_prompt, mistakes_prompt, no_mistakes, previous_action_prompt
from latent_agent.agent.methods import METHODS
from latent_agent.agent.selection import SelectionContext
from latent_agent.agent.trajectory import LatentState, StopReason, read_trajectory
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.demo.oracle import NO_ACTION, WENT_BACK, DemoOracle
from latent_agent.device.sim.device import SimDevice
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

ROAMING = """a group
  a text "T-Mobile"
a list that is scrollable
  a group
    a text "Mobile data"
    a switch with the text "{data}" that is {data_state}
  a group
    a text "Roaming"
    a switch with the text "{roaming}" that is {roaming_state}"""


def _screen(data: bool, roaming: bool, extra: str = "") -> str:
    text = ROAMING.format(data="ON" if data else "OFF", data_state="on" if data else "off",
                          roaming="ON" if roaming else "OFF", roaming_state="on" if roaming else "off")
    return text + extra


def _ask(prompt: str) -> str:
    answer = DemoOracle()(GenerationRequest(prompt=prompt))
    assert isinstance(answer, str)
    return answer


def test_previous_action_reports_what_the_screens_show() -> None:
    before = _screen(True, True)
    assert _ask(previous_action_prompt(before, _screen(True, False), 'Tap "Roaming"')) == 'Tapped "Roaming".'
    # The tap landed on the neighbouring switch: the real action, in the commands' words.
    assert _ask(previous_action_prompt(before, _screen(False, True), 'Tap "Roaming"')) == 'Tapped "Mobile data".'
    assert _ask(previous_action_prompt(before, before, 'Tap "Roaming"')) == NO_ACTION
    # A notification arrived but the commanded switch did not move: nothing was done.
    notified = _screen(True, True, '\na text "Backup complete: 12 new items"')
    assert _ask(previous_action_prompt(before, notified, 'Tap "Roaming"')) == NO_ACTION


STYLE = """a group
  a text "Settings"
a list that is scrollable
  a clickable group
    a text "Style"
    a text "Analog"""
STYLE_DIALOG = STYLE + """
a group
  a text "Style"
  a list
    a checked text view with the text "Analog" that is checked
    a checked text view with the text "Digital" that is not checked
  a button with the text "Cancel"
"""


def test_a_choice_that_closed_its_dialog_without_being_made_went_back_and_is_done_again() -> None:
    assert _ask(previous_action_prompt(STYLE_DIALOG, STYLE, 'Tap "Digital"')) == WENT_BACK
    progress = ('You have opened the Clock app; then tapped "More options"; then tapped "Settings"; '
                'then tapped "Style"; then went back.')
    latent = LatentState(previous_action=WENT_BACK, screen_summary="s", progression=progress,
                         mistakes="No mistakes have been made.")
    context = SelectionContext(goal="Change the clock display to digital", description=STYLE, latent=latent)
    assert _ask(METHODS["zero-shot+"].selector.prompt(context)) == ' tap "Style"'


def test_mistakes_and_completion_follow_the_deviations_from_the_solution() -> None:
    goal = "Turn off data roaming."
    done = 'You have opened the Settings app; then tapped "Network & internet"; then tapped "SIMs"'
    wrong = _ask(mistakes_prompt(goal, done + '; then tapped "Mobile data".', _screen(False, True)))
    assert not no_mistakes(wrong) and wrong.endswith('To correct it: Tap "Mobile data"')
    undone = done + '; then tapped "Mobile data"; then tapped "Mobile data"; then tapped "Roaming".'
    assert no_mistakes(_ask(mistakes_prompt(goal, undone, _screen(True, False))))
    actions = ("Opened the Settings app.", 'Tapped "Network & internet".', 'Tapped "SIMs".', 'Tapped "Mobile data".')
    assert _ask(completion_prompt(goal, actions, "s", "x")).startswith("No")
    assert _ask(completion_prompt(goal, (*actions, 'Tapped "Mobile data".', 'Tapped "Roaming".'), "s",
                                  "x")).startswith("Yes")


@pytest.mark.parametrize("method", ["zero-shot+", "cot-sc+", "react+"])
def test_a_correct_tap_on_a_switch_is_never_reported_as_a_mistake(method: str, tmp_path: Path) -> None:
    # clock_alarm_enable taps the alarm's switch by its text "OFF" while the switch is described by its alarm.
    task = next(t for t in load_suite() if t.id == "clock_alarm_enable")
    device = SimDevice()
    result = run_episode_sync(EpisodeConfig(task.goal, method, screenshots=False), device,
                              ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    assert result.stop_reason is StopReason.COMPLETED and task.succeeded(device.state)
    steps = read_trajectory(result.directory).steps
    assert all(s.latent is not None and no_mistakes(s.latent.mistakes) for s in steps)
    assert steps[-1].latent is not None and steps[-1].latent.previous_action == 'Tapped "OFF".'
