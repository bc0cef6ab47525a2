"""The demo stand-in answers each call from its purpose and inputs as a competent model would, and never calls a
correct step a mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.chain import no_mistakes
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.demo.oracle import NO_ACTION, WENT_BACK, DemoOracle
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import LLMRequestError
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


def _ask(purpose: str | None, **inputs: object) -> str:
    # The prompt is irrelevant: the oracle answers from the purpose and the inputs.
    answer = DemoOracle()(GenerationRequest(prompt="(unread)", purpose=purpose, inputs=inputs))
    assert isinstance(answer, str)
    return answer


def _previous(before: str, after: str, commanded: str) -> str:
    return _ask("previous_action", before=before, after=after, commanded=commanded)


def test_previous_action_reports_what_the_screens_show() -> None:
    before = _screen(True, True)
    assert _previous(before, _screen(True, False), 'Tap "Roaming"') == 'Tapped "Roaming".'
    # The tap landed on the neighbouring switch: the real action, in the commands' words.
    assert _previous(before, _screen(False, True), 'Tap "Roaming"') == 'Tapped "Mobile data".'
    assert _previous(before, before, 'Tap "Roaming"') == NO_ACTION
    # A notification arrived but the commanded switch did not move: nothing was done.
    notified = _screen(True, True, '\na text "Backup complete: 12 new items"')
    assert _previous(before, notified, 'Tap "Roaming"') == NO_ACTION


def test_calls_without_a_known_purpose_or_with_missing_inputs_are_refused() -> None:
    with pytest.raises(LLMRequestError, match="declares none"):
        _ask(None)
    with pytest.raises(LLMRequestError, match="does not play calls for 'poem'"):
        _ask("poem")
    with pytest.raises(LLMRequestError, match="needs the input 'after'"):
        _ask("previous_action", before="a", commanded="Go back")
    with pytest.raises(LLMRequestError, match="knows only the sim suite's goals"):
        _ask("mistakes", goal="order a pizza.", progression="You have", description="")


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
    assert _previous(STYLE_DIALOG, STYLE, 'Tap "Digital"') == WENT_BACK
    progress = ('You have opened the Clock app; then tapped "More options"; then tapped "Settings"; '
                'then tapped "Style"; then went back.')
    assert _ask("select", selector="zero-shot", plus=True, goal="change the clock display to digital.",
                description=STYLE, history=[], progression=progress,
                mistakes="No mistakes have been made.") == ' tap "Style"'


@pytest.mark.parametrize(("selector", "answer"), [
    ("zero-shot", ' tap "SIMs"'), ("react", '\nAction: Tap "SIMs"'), ("cot-sc", '\nAnswer: Tap "SIMs"')])
def test_selectors_get_the_answer_format_their_parsers_read(selector: str, answer: str) -> None:
    history = ["Open the Settings app", 'Tap "Network & internet"']
    turns = [{"observation": None, "thought": "t", "action": a} for a in history]
    got = _ask("select", selector=selector, plus=False, goal="turn off data roaming.", description="",
               history=history, turns=turns)
    assert got.endswith(answer)


def test_mistakes_and_completion_follow_the_deviations_from_the_solution() -> None:
    goal = "Turn off data roaming."
    done = 'You have opened the Settings app; then tapped "Network & internet"; then tapped "SIMs"'
    wrong = _ask("mistakes", goal=goal, progression=done + '; then tapped "Mobile data".',
                 description=_screen(False, True))
    assert not no_mistakes(wrong) and wrong.endswith('To correct it: Tap "Mobile data"')
    undone = done + '; then tapped "Mobile data"; then tapped "Mobile data"; then tapped "Roaming".'
    assert no_mistakes(_ask("mistakes", goal=goal, progression=undone, description=_screen(True, False)))
    actions = ["Opened the Settings app.", 'Tapped "Network & internet".', 'Tapped "SIMs".', 'Tapped "Mobile data".']
    assert _ask("completion", goal=goal, actions=actions, summary="s", next_action="x").startswith("No")
    assert _ask("completion", goal=goal, actions=[*actions, 'Tapped "Mobile data".', 'Tapped "Roaming".'],
                summary="s", next_action="x").startswith("Yes")


@pytest.mark.parametrize("method", ["zero-shot+", "cot-sc+", "react+"])
def test_a_correct_tap_on_a_switch_is_never_reported_as_a_mistake(method: str, tmp_path: Path) -> None:
    # clock_alarm_enable taps the alarm's switch by its text "OFF" while the switch is described by its alarm.
    task = next(t for t in load_suite() if t.id == "clock_alarm_enable")
    device = SimDevice()
    result = run_episode_sync(EpisodeConfig(task.goal, method, screenshots=False), device,
                              ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    assert result.stop_reason is StopReason.COMPLETED and task.succeeded(device.state)
    steps = read_trajectory(result.directory).steps
    assert all(latent_of(s) is not None and no_mistakes(latent_of(s).mistakes) for s in steps)
    assert latent_of(steps[-1]) is not None and latent_of(steps[-1]).previous_action == 'Tapped "OFF".'


SETTINGS_ROWS = """a list that is scrollable
  a clickable group with the texts "Network & internet", "Mobile, Wi-Fi, hotspot"
  a clickable group with the texts "Connected devices", "Bluetooth, pairing\""""
CONNECTED_DEVICES = """a toolbar
  an image button described as "Navigate up"
  a text "Connected devices"
a list that is scrollable
  a clickable group with the text "Pair new device\""""


def test_rows_named_on_one_line_are_read_as_their_texts() -> None:
    """A settings row is one line naming it by its texts (the screen description's tap targets)."""
    assert _previous(SETTINGS_ROWS, CONNECTED_DEVICES, 'Tap "Network & internet"') == 'Tapped "Connected devices".'
    assert _previous(SETTINGS_ROWS, CONNECTED_DEVICES, 'Tap "Connected devices"') == 'Tapped "Connected devices".'
    summary = _ask("screen_summary", description=SETTINGS_ROWS, previous_action="")
    assert summary.startswith('The screen shows "Network & internet", "Mobile, Wi-Fi, hotspot", "Connected devices"')
