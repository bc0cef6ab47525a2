"""Golden tests: every rendered prompt (goal normalization, each latent-state aspect, each selector, the
grounder) for one fixed input equals its reviewed file in tests/agent/golden/.

Regenerate after a deliberate template change with ``UPDATE_GOLDEN=1 pytest tests/agent`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from accessibility.elements import Element, elements_json
from accessibility.tree import ScreenSize
from agent.goal import normalize_goal_prompt
from agent.latent import (
    completion_prompt,
    mistakes_prompt,
    previous_action_prompt,
    progression_prompt,
    screen_summary_prompt,
)
from agent.methods import METHODS
from agent.selection import ReactTurn, SelectionContext
from agent.trajectory import LatentState
from grounder.base import GroundingScreen
from grounder.llm import Feedback, ground_prompt

GOLDEN = Path(__file__).parent / "golden"

GOAL = "Turn off data roaming."
BEFORE = """a group
  an image button described as "Navigate up"
  a text "Network & internet"
a list that is scrollable
  a group
    a text "Internet"
    a text "AndroidWifi"
  a group
    a text "SIMs"
    a text "T-Mobile"
  a switch with the text "Airplane mode" that is off"""
AFTER = """a group
  an image button described as "Navigate up"
  a text "T-Mobile"
a list that is scrollable
  a group
    a text "Mobile data"
    a switch with the text "ON" that is on
  a group
    a text "Roaming"
    a switch with the text "ON" that is on"""
LATENT = LatentState(
    previous_action='Tapped "SIMs", which opened the T-Mobile SIM settings.',
    screen_summary="This is the T-Mobile SIM page of the Settings app. No media is playing. Mobile data is on; "
    "Roaming is on.",
    progression='1. Opened the Settings app.\n2. Tapped "Network & internet".\n3. Tapped "SIMs".',
    mistakes="No mistakes have been made.",
)
HISTORY = ("Open the Settings app", 'Tap "Network & internet"', 'Tap "SIMs"')
TURNS = (
    ReactTurn("a text \"Clock\"\na text \"Settings\"", "I need the Settings app.", "Open the Settings app"),
    ReactTurn("a text \"Network & internet\"", "Roaming is under Network & internet.", 'Tap "Network & internet"'),
    ReactTurn(BEFORE, "The SIM settings hold the roaming switch.", 'Tap "SIMs"'),
)
SCREEN = GroundingScreen(
    elements=(
        Element("Navigate up", "image button", (77, 216), (154, 176)),
        Element("Mobile data", "text", (349, 575), (302, 59)),
        Element("ON", "switch", (972, 604), (128, 74), checked=True),
        Element("Roaming", "text", (297, 775), (198, 59)),
        Element("ON", "switch", (972, 804), (128, 74), checked=True),
    ),
    elements_json="",
    size=ScreenSize(1080, 2400),
    apps={"Settings": "com.android.settings"},
)
SCREEN = GroundingScreen(SCREEN.elements, elements_json(list(SCREEN.elements)), SCREEN.size, SCREEN.apps)


def _context(plus: bool) -> SelectionContext:
    return SelectionContext(goal=GOAL, description=AFTER, history=HISTORY, latent=LATENT if plus else None,
                            turns=TURNS)


PROMPTS = {
    "normalize_goal": lambda: normalize_goal_prompt("turn data roaming off"),
    "latent_previous_action": lambda: previous_action_prompt(BEFORE, AFTER, 'Tap "SIMs"'),
    "latent_screen_summary": lambda: screen_summary_prompt(AFTER),
    "latent_progression": lambda: progression_prompt(
        GOAL, '1. Opened the Settings app.\n2. Tapped "Network & internet".',
        'Tapped "SIMs", which opened the T-Mobile SIM settings.', LATENT.screen_summary),
    "latent_progression_start": lambda: progression_prompt(
        GOAL, "Nothing. You are just starting.", "Opened the Settings app.", "This is the Settings app."),
    "latent_mistakes": lambda: mistakes_prompt(GOAL, HISTORY, LATENT.progression, LATENT.screen_summary),
    "latent_completion": lambda: completion_prompt(GOAL, LATENT.progression, LATENT.screen_summary,
                                                   'Tap "Roaming"'),
    "ground": lambda: ground_prompt('Tap "Roaming"', SCREEN),
    "ground_retry": lambda: ground_prompt(
        'Tap "Roaming"', SCREEN, (Feedback('{"action_type": "click", "x": 1200, "y": 775}',
                                           "the point (1200, 775) is outside the 1080x2400 screen"),)),
    **{f"select_{name}": (lambda m=m: m.selector.prompt(_context(m.plus))) for name, m in METHODS.items()},
}


def slug(name: str) -> str:
    """File name of a prompt's golden file: ``select_cot-sc+`` -> ``select_cot_sc_plus``."""
    sign = {"+": "_plus", "-": "_minus"}.get(name[-1], "")
    return (name[:-1] if sign else name).replace("-", "_") + sign


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_rendered_prompt_matches_golden(name: str) -> None:
    rendered = PROMPTS[name]()
    path = GOLDEN / f"{slug(name)}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(rendered, encoding="utf-8")
    assert path.is_file(), f"missing golden file {path.name}; run with UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text(encoding="utf-8")


def test_every_selector_and_aspect_has_a_golden_file() -> None:
    names = {p.stem for p in GOLDEN.glob("*.txt")}
    for method in METHODS:
        assert slug(f"select_{method}") in names
    for aspect in ("previous_action", "screen_summary", "progression", "mistakes", "completion"):
        assert f"latent_{aspect}" in names


def test_prompts_carry_the_methods_fixed_phrases() -> None:
    assert "I may be lying" in PROMPTS["latent_previous_action"]()
    assert "past tense" in PROMPTS["latent_previous_action"]()
    assert "Nothing. You are just starting." in PROMPTS["latent_progression_start"]()
    assert "No mistakes have been made." in PROMPTS["latent_mistakes"]()
    for name in ("select_cot-sc-", "select_cot-sc+", "select_react-", "select_react+"):
        text = PROMPTS[name]()
        assert "Turn on color inversion." in text and "Argon" in text and "\"Exercise\"" in text
    assert "Answer:" in PROMPTS["select_cot-sc+"]()
    react = PROMPTS["select_react-"]()
    # Only the last two observations are kept: the current screen and the one before.
    real = react.split("Now the real task.", 1)[1]
    assert real.count("(screen description omitted)") == 2
    assert BEFORE in real and AFTER in real
