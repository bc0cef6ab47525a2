"""The demo stand-in reads a MiniWoB++ task's steps from its utterance, and knows which planned tasks it plays."""

from __future__ import annotations

import pytest

from latent_agent.benchmarks.steps import Step, TapStep, TypeStep
from latent_agent.benchmarks.suite import hosted_goal
from latent_agent.demo.client import demo_client
from latent_agent.demo.oracle import DemoOracle
from latent_agent.demo.oracle_miniwob import PLAYED_TASKS, miniwob_task
from latent_agent.errors import ConfigError, LLMRequestError
from latent_agent.llm.types import GenerationRequest


@pytest.mark.parametrize(("utterance", "solution"), [
    ('Click on the "no" button.', (TapStep("no"),)),
    # Some calls carry the goal in lower case; the finders match labels without case.
    ('click on the "Ok" button.', (TapStep("Ok"),)),
    ("Select 91YPF, i6Vdpn2, nd7Qt and click Submit.",
     (TapStep("91YPF"), TapStep("i6Vdpn2"), TapStep("nd7Qt"), TapStep("Submit"))),
    ("Select EiTE and click Submit.", (TapStep("EiTE"), TapStep("Submit"))),
    ("Select nothing and click Submit.", (TapStep("Submit"),)),
    ('Enter "Myron" into the text field and press Submit.',
     (TapStep("text box"), TypeStep("Myron"), TapStep("Submit"))),
])
def test_the_steps_come_from_the_utterance(utterance: str, solution: tuple[Step, ...]) -> None:
    task = miniwob_task(utterance)
    assert task is not None and task.solution == solution and task.id.startswith("miniwob:")
    assert task.success == () and task.partial == ()  # the page's reward judges, no check of ours
    assert DemoOracle().find_task(utterance) == task


@pytest.mark.parametrize("utterance", ["Select 10/23/2016 as the date and hit submit.", 'Click on the "no" link.'])
def test_other_tasks_are_refused(utterance: str) -> None:
    assert miniwob_task(utterance) is None
    with pytest.raises(LLMRequestError, match=r"MiniWoB\+\+ tasks click-button, click-checkboxes, enter-text"):
        DemoOracle()(GenerationRequest(prompt="(unread)", purpose="select",
                                       inputs={"goal": utterance, "selector": "zero-shot", "description": "",
                                               "history": []}))


def test_a_tap_on_the_named_button_is_the_step() -> None:
    answer = DemoOracle()(GenerationRequest(prompt="(unread)", purpose="select", inputs={
        "goal": 'Click on the "no" button.', "selector": "zero-shot", "history": [],
        "description": 'a button with the text "yes"\na button with the text "no"'}))
    assert answer == ' tap "no"'


ENTER_TEXT = 'Enter "Myron" into the text field and press Submit.'


def _select(description: str, history: list[str]) -> object:
    return DemoOracle()(GenerationRequest(prompt="(unread)", purpose="select", inputs={
        "goal": ENTER_TEXT, "selector": "zero-shot", "history": history, "description": description}))


def test_the_text_field_is_tapped_by_the_name_its_screen_gives_it_then_typed_into() -> None:
    # The utterance names the field by what it is; the screen description names it by its id.
    screen = 'a text box described as "tt"\na button with the text "Submit"'
    assert _select(screen, []) == ' tap "tt"'
    assert _select('a text box described as "tt" that is focused\na button with the text "Submit"',
                   ['Tap "tt"']) == ' type "Myron"'
    # Typed into, it goes by its text: the tap before still counts as the tap on the field.
    typed = 'a text box with the text "Myron" that is focused\na button with the text "Submit"'
    assert _select(typed, ['Tap "tt"', 'Type "Myron"']) == ' tap "Submit"'
    # A tap on Submit is no tap on the field.
    assert _select(screen, ['Tap "Submit"']) == ' tap "tt"'


def test_caap_types_into_the_listed_input_field() -> None:
    elements = [{"id": "element_1", "type": "input_field", "text": ""},
                {"id": "element_2", "type": "button", "text": "Submit"}]
    answer = DemoOracle()(GenerationRequest(prompt="(unread)", purpose="caap", inputs={
        "goal": ENTER_TEXT, "elements": elements, "history_actions": [{"name": "start"}], "next_index": 2,
        "cot": False, "demos": [], "last_error": ""}))
    assert answer == "\n".join([
        "Action_2=(Action: functions.click_element, Argument: {element_id: element_1})",
        'Action_3=(Action: functions.type_text, Argument: {element_id: element_1, text: "Myron"})',
        "Action_4=(Action: functions.click_element, Argument: {element_id: element_2})"])


def test_a_sweep_of_a_played_task_is_checked_before_its_pages_load() -> None:
    with demo_client() as client:
        client.check_goals([hosted_goal(task) for task in PLAYED_TASKS], what="suite 'miniwob'")
        with pytest.raises(ConfigError, match=r'"MiniWoB\+\+ choose-date: .*" is not one of them'):
            client.check_goals([hosted_goal("click-button"), hosted_goal("choose-date")], what="suite 'miniwob'")
