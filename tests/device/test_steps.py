"""The scripted-step vocabulary: JSON form, resolution to the grounder's actions, the one dispatch, words."""

from __future__ import annotations

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.agent.execute import execute
from latent_agent.benchmarks.steps import (
    STEP_KINDS,
    KeyStep,
    LaunchStep,
    LongPressStep,
    OpenAppStep,
    ScrollStep,
    ScrollToStep,
    Step,
    TapStep,
    TypeStep,
    WaitStep,
    find_node,
    past_tense,
    perform,
    resolve,
    step_from_json,
    step_words,
)
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ElementNotFoundError, TaskSuiteError
from latent_agent.grounder.actions import (
    Click,
    InputText,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    NavigateHome,
    OpenApp,
    Scroll,
    Wait,
)

EVERY_KIND: dict[str, tuple[object, Step]] = {
    "tap": ("Wi-Fi", TapStep("Wi-Fi")),
    "long_press": ("Download", LongPressStep("Download")),
    "scroll": ("up", ScrollStep("up")),
    "scroll_to": ("Private DNS", ScrollToStep("Private DNS")),
    "type": ("Exercise", TypeStep("Exercise")),
    "key": ("enter", KeyStep("enter")),
    "open_app": ("Clock", OpenAppStep("Clock")),
    "launch": ("app_drawer", LaunchStep("app_drawer")),
    "wait": ("", WaitStep()),
}


def _settings() -> SimDevice:
    device = SimDevice(seed=2)
    perform(device, OpenAppStep("Settings"))
    return device


def test_every_kind_reads_from_its_json_form() -> None:
    assert set(EVERY_KIND) == set(STEP_KINDS)
    for kind, (arg, step) in EVERY_KIND.items():
        assert step_from_json({kind: arg}, "t") == step and step.kind == kind


@pytest.mark.parametrize(("raw", "message"), [
    ({"key": "del"}, "unknown key 'del'; use one of back, home, enter"),
    ({"scroll": "sideways"}, "scroll direction must be one of up, down, left, right"),
    ({"launch": "settings"}, "launch takes one of app_drawer, quick_settings"),
    ({"tap": 3}, "needs a string argument"),
    ({"fly": "away"}, "unknown action 'fly'"),
    ({"tap": "a", "type": "b"}, "one key"),
])
def test_malformed_steps_are_one_clear_error(raw: object, message: str) -> None:
    with pytest.raises(TaskSuiteError, match=f"^where: .*{message}"):
        step_from_json(raw, "where")


def test_label_steps_resolve_to_the_grounders_actions_at_the_elements_centre() -> None:
    device = _settings()
    tree = clean_tree(device.hierarchy().tree)
    row = find_node(tree, "Network & internet")
    assert row.bounds is not None
    assert resolve(TapStep("Network & internet"), tree) == Click(*row.bounds.center)
    assert resolve(LongPressStep("network & INTERNET"), tree) == LongPress(*row.bounds.center)  # case ignored
    with pytest.raises(ElementNotFoundError, match="Teleport"):
        resolve(TapStep("Teleport"), tree)


def test_the_other_steps_resolve_without_looking_at_the_screen() -> None:
    nothing = clean_tree(SimDevice().hierarchy().tree)
    assert [resolve(s, nothing) for s in (
        ScrollStep("left"), ScrollToStep("anything"), TypeStep("hi"), KeyStep("back"), KeyStep("home"),
        KeyStep("enter"), OpenAppStep("Clock"), LaunchStep("quick_settings"), WaitStep(),
    )] == [Scroll("left"), Scroll("down"), InputText("hi"), NavigateBack(), NavigateHome(), KeyboardEnter(),
           OpenApp("Clock"), LaunchAdbActivity("quick_settings"), Wait()]


def test_perform_is_resolve_then_the_agents_dispatch() -> None:
    by_hand, scripted = _settings(), _settings()
    tree = clean_tree(by_hand.hierarchy().tree)
    execute(resolve(TapStep("Network & internet"), tree), by_hand, tree)
    assert perform(scripted, TapStep("Network & internet")) == (resolve(TapStep("Network & internet"), tree),)
    assert scripted.hierarchy().raw == by_hand.hierarchy().raw
    assert scripted.state.history.pages == by_hand.state.history.pages


def test_scroll_to_scrolls_only_while_its_element_is_not_shown() -> None:
    device = _settings()
    assert perform(device, ScrollToStep("Network & internet")) == ()
    sent = perform(device, ScrollToStep("About phone"))
    assert sent and set(sent) == {Scroll("down")}
    assert perform(device, ScrollToStep("About phone")) == ()


def test_steps_in_words_and_in_the_past_tense() -> None:
    said = {kind: step_words(step) for kind, (_, step) in EVERY_KIND.items()}
    assert said == {
        "tap": 'Tap "Wi-Fi"', "long_press": 'Long press "Download"', "scroll": "Scroll up",
        "scroll_to": 'Scroll down to "Private DNS"', "type": 'Type "Exercise"', "key": "Press enter",
        "open_app": "Open the Clock app", "launch": "Open the app drawer", "wait": "Wait",
    }
    assert [past_tense(w) for w in said.values()] == [
        'Tapped "Wi-Fi".', 'Long pressed "Download".', "Scrolled up.", 'Scrolled down to "Private DNS".',
        'Typed "Exercise".', "Pressed enter.", "Opened the Clock app.", "Opened the app drawer.", "Waited.",
    ]
    assert [step_words(KeyStep(k)) for k in ("back", "home")] == ["Go back", "Go to the home screen"]
    assert past_tense("Go back.") == "Went back."
    assert past_tense("Do a barrel roll") == "Performed: Do a barrel roll."

