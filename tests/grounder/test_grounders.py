"""The grounders: validation against the screen, the LLM grounder's retry, the hybrid grounder's rules."""

from __future__ import annotations

import asyncio

import pytest

from latent_agent.accessibility.elements import Element, elements_json
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.agent.calls import LLMCaller
from latent_agent.errors import ConfigError, GroundingError
from latent_agent.grounder.actions import (
    Click,
    InputText,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    OpenApp,
    Scroll,
    parse_action,
)
from latent_agent.grounder.base import GroundingScreen
from latent_agent.grounder.hybrid import HybridGrounder, resolve
from latent_agent.grounder.llm import LLMGrounder
from latent_agent.grounder.registry import make_grounder
from latent_agent.grounder.validate import validate
from latent_agent.llm.scripted import ScriptedModel

ELEMENTS = (
    Element("Alarm", "text", (135, 2250), (200, 80)),
    Element("Clock", "text", (405, 2250), (200, 80)),
    Element("ON", "switch", (972, 604), (128, 74), checked=True),
    Element("ON", "switch", (972, 804), (128, 74), checked=True),
    Element("Search or type URL", "edit text", (474, 216), (600, 90)),
)
SCREEN = GroundingScreen(ELEMENTS, elements_json(list(ELEMENTS)), ScreenSize(1080, 2400),
                         {"Clock": "com.google.android.deskclock", "Settings": "com.android.settings"})


def _caller(*replies: str) -> tuple[LLMCaller, ScriptedModel]:
    model = ScriptedModel(replies)
    return LLMCaller(model, episode_id="t"), model


def test_validate_accepts_element_centres_and_refuses_guesses() -> None:
    validate(Click(135, 2250), SCREEN)
    validate(LongPress(230, 2285), SCREEN)  # inside the box, near its corner
    validate(InputText("hi"), SCREEN)
    validate(OpenApp("clock"), SCREEN)
    with pytest.raises(GroundingError, match="outside the 1080x2400 screen"):
        validate(Click(1200, 100), SCREEN)
    with pytest.raises(GroundingError, match="not on any element"):
        validate(Click(600, 1200), SCREEN)
    with pytest.raises(GroundingError, match="not on any element"):
        validate(InputText("hi", 10, 10), SCREEN)
    with pytest.raises(GroundingError, match="both x and y"):
        validate(Scroll("down", x=5), SCREEN)
    with pytest.raises(GroundingError, match="no installed app"):
        validate(OpenApp("Spotify"), SCREEN)


def test_long_press_parses() -> None:
    assert parse_action('{"action_type": "long_press", "x": 10, "y": 20}') == LongPress(10, 20)


@pytest.mark.parametrize("answer", [
    '{"action_type": "click", "x": 1e999, "y": 20}',
    '{"action_type": "click", "x": "inf", "y": 20}',
    '{"action_type": "long_press", "x": 10, "y": "-Infinity"}',
    '{"action_type": "click", "x": NaN, "y": 20}',
])
def test_coordinates_that_are_not_finite_are_a_grounding_error(answer: str) -> None:
    with pytest.raises(GroundingError, match=r"must be a (finite )?number"):
        parse_action(answer)


def test_llm_grounder_sends_the_reason_back_and_recovers() -> None:
    caller, model = _caller('{"action_type": "click", "x": 600, "y": 1200}',
                            '```json\n{"action_type": "click", "x": 135, "y": 2250}\n```')
    result = asyncio.run(LLMGrounder().ground('Tap "Alarm"', SCREEN, caller))
    assert result.action == Click(135, 2250) and result.error is None and result.attempts == 2
    retry_prompt = model.prompts[1]
    assert "cannot be used: the point (600, 1200) is not on any element" in retry_prompt
    assert [c.purpose for c in caller.calls] == ["ground", "ground"]


def test_llm_grounder_never_taps_blindly() -> None:
    caller, _ = _caller('{"action_type": "click", "x": 5000, "y": 1}', "I would tap the alarm tab")
    result = asyncio.run(LLMGrounder().ground('Tap "Alarm"', SCREEN, caller))
    assert result.action is None
    assert result.error is not None and "outside" in result.error and "no JSON object" in result.error


@pytest.mark.parametrize(("step", "action"), [
    ("Open the Clock app", OpenApp("Clock")),
    ("open settings", OpenApp("Settings")),
    ("Launch the clock", OpenApp("Clock")),
    ('Tap "Alarm"', Click(135, 2250)),
    ("tap the Clock tab", Click(405, 2250)),
    ("Long press Alarm", LongPress(135, 2250)),
    ("Tap on the search or type url field", Click(474, 216)),
    ("Scroll down", Scroll("down")),
    ("Go back.", NavigateBack()),
    ("Press enter", KeyboardEnter()),
    ("Open quick settings", LaunchAdbActivity("quick_settings")),
])
def test_hybrid_rules_resolve_unambiguous_steps(step: str, action: object) -> None:
    assert resolve(step, SCREEN) == action


@pytest.mark.parametrize("step", [
    'Tap "ON"',  # two switches carry that label
    'Type "hello"',
    "Open Spotify",  # not installed
    "Open the Wi-Fi settings",  # a page inside Settings, not the Settings app
    "Open Chrome and search for cats",  # more than opening the app
    "open the clock app to set an alarm",
    'Tap "Alarm" and then "Clock"',
    "Turn the roaming switch off",
])
def test_hybrid_leaves_the_rest_to_the_model(step: str) -> None:
    assert resolve(step, SCREEN) is None


def test_hybrid_grounder_calls_the_model_only_when_it_must() -> None:
    caller, model = _caller('{"action_type": "click", "x": 972, "y": 804}')
    rule = asyncio.run(HybridGrounder().ground("Open the Clock app", SCREEN, caller))
    assert rule.source == "rule" and rule.action == OpenApp("Clock") and model.requests == ()
    fallback = asyncio.run(HybridGrounder().ground('Tap "ON"', SCREEN, caller))
    assert fallback.source == "llm" and fallback.action == Click(972, 804) and len(model.requests) == 1


def test_registry() -> None:
    assert make_grounder("llm").name == "llm" and make_grounder("hybrid").name == "hybrid"
    with pytest.raises(ConfigError, match="llm, hybrid"):
        make_grounder("magic")


def test_hybrid_matches_an_element_by_its_description() -> None:
    """A switch reads "OFF" but is described as "Roaming": a step naming "Roaming" resolves to it."""
    elements = (
        Element("Roaming", "text", (300, 600), (400, 80)),
        Element("OFF", "switch", (970, 340), (140, 80), checked=False, description="Mobile data"),
    )
    screen = GroundingScreen(elements, elements_json(list(elements)), ScreenSize(1080, 2400), {})
    assert resolve('Tap "Mobile data"', screen) == Click(970, 340)
    # Text and description naming the same label on two elements is ambiguous: left to the model.
    twice = (*elements, Element("Mobile data", "text", (300, 340), (400, 80)))
    assert resolve('Tap "Mobile data"', GroundingScreen(twice, elements_json(list(twice)),
                                                         ScreenSize(1080, 2400), {})) is None
