"""Golden tests: every rendered prompt (goal normalization, each latent-state aspect, each selector, the
grounder) for one fixed input equals its reviewed file in tests/agent/golden/.

Regenerate after a deliberate template change with ``UPDATE_GOLDEN=1 pytest tests/agent`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from latent_agent.accessibility.elements import Element, elements_json
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.agent.goal import normalize_goal_call
from latent_agent.agent.latent_state.chain import (
    completion_call,
    mistakes_call,
    previous_action_call,
    progression_call,
    screen_summary_call,
)
from latent_agent.agent.latent_state.selection import ReactTurn, SelectionContext
from latent_agent.agent.latent_state.state import LatentState
from latent_agent.agent.methods import selector_methods
from latent_agent.agent.reflection.policy import INCOMPLETE, PLAN_TEMPLATE, REFLECT_TEMPLATE, STATUS_SENTENCES
from latent_agent.grounder.base import GroundingScreen
from latent_agent.grounder.llm import Feedback, ground_prompt
from latent_agent.grounder.paper import LeafElement, PastAction, paper_prompt
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE

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
INFERRED = ("Opened the Settings app.", 'Clicked on "Network & internet".', 'Clicked on "SIMs".')
LATENT = LatentState(
    previous_action=INFERRED[-1],
    screen_summary="This is the T-Mobile SIM page of the Settings app. No media is playing. Mobile data is on; "
    "Roaming is on.",
    progression='You have opened the Settings app, clicked on "Network & internet" and then on "SIMs".',
    mistakes="No mistakes have been made.",
    inferred_actions=INFERRED,
    commanded='Click on "SIMs"',
)
HISTORY = ("Open the Settings app", 'Click on "Network & internet"', 'Click on "SIMs"')
TURNS = (
    ReactTurn("a text \"Clock\"\na text \"Settings\"", "I need the Settings app.", "Open the Settings app"),
    ReactTurn("a text \"Network & internet\"", "Roaming is under Network & internet.", 'Click on "Network & internet"'),
    ReactTurn(BEFORE, "The SIM settings hold the roaming switch.", 'Click on "SIMs"'),
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
LEAVES = tuple(LeafElement(e.text, e.center, e.size) for e in SCREEN.elements)


def _context(plus: bool) -> SelectionContext:
    return SelectionContext(goal=GOAL, description=AFTER, history=HISTORY, latent=LATENT if plus else None,
                            turns=TURNS)


PROMPTS = {
    "normalize_goal": lambda: normalize_goal_call("turn data roaming off").prompt,
    "latent_previous_action": lambda: previous_action_call(BEFORE, AFTER, 'Click on "SIMs"').prompt,
    "latent_screen_summary": lambda: screen_summary_call(AFTER, INFERRED[-1]).prompt,
    "latent_screen_summary_start": lambda: screen_summary_call(BEFORE, None).prompt,
    "latent_progression": lambda: progression_call(INFERRED, LATENT.screen_summary, AFTER).prompt,
    "latent_progression_start": lambda: progression_call((), "This is the Settings app.", BEFORE).prompt,
    "latent_mistakes": lambda: mistakes_call(GOAL, LATENT.progression, AFTER).prompt,
    "latent_completion": lambda: completion_call(GOAL, INFERRED, LATENT.screen_summary,
                                                 'Tap the Roaming switch.').prompt,
    "reflection_plan_start": lambda: render(PLAN_TEMPLATE, PHONE, goal=GOAL, task_name=None, description=BEFORE,
                                            actions=[], lessons=[], disabled=[]),
    "reflection_plan": lambda: render(PLAN_TEMPLATE, PHONE, goal=GOAL, task_name="settings_roaming_off",
                                      description=AFTER, actions=list(INFERRED),
                                      lessons=["At this step, instead of 'Tap \"Mobile data\"', you should tap "
                                               "\"Roaming\"."], disabled=["Mobile data"]),
    "reflection_reflect": lambda: render(REFLECT_TEMPLATE, PHONE, goal=GOAL, task_name="settings_roaming_off",
                                         status=STATUS_SENTENCES[INCOMPLETE],
                                         blocks=[{"screen": BEFORE, "action": 'Tap "SIMs"'},
                                                 {"screen": AFTER, "action": 'Tap "Mobile data"'}]),
    "ground": lambda: ground_prompt('Tap "Roaming"', SCREEN),
    "ground_retry": lambda: ground_prompt(
        'Tap "Roaming"', SCREEN, (Feedback('{"action_type": "click", "x": 1200, "y": 775}',
                                           "the point (1200, 775) is outside the 1080x2400 screen"),)),
    "ground_paper": lambda: paper_prompt('Tap "Roaming"', LEAVES, SCREEN.size),
    "ground_paper_history": lambda: paper_prompt('Tap "Roaming"', LEAVES, SCREEN.size, (
        PastAction('Tap "SIMs"', '{"action_type": "click", "x": 258, "y": 775}'),)),
    **{f"select_{name}": (lambda m=m: m.selector.prompt(_context(m.plus))) for name, m in selector_methods().items()},
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
    for method in selector_methods():
        assert slug(f"select_{method}") in names
    for aspect in ("previous_action", "screen_summary", "screen_summary_start", "progression", "progression_start",
                   "mistakes", "completion"):
        assert f"latent_{aspect}" in names


def test_prompts_carry_the_methods_fixed_phrases() -> None:
    assert "I may be lying" in PROMPTS["latent_previous_action"]()
    assert "past tense" in PROMPTS["latent_previous_action"]()
    assert PROMPTS["latent_previous_action"]().endswith("Real action:\n")
    assert "Nothing. You are just starting." in PROMPTS["latent_progression_start"]()
    assert PROMPTS["latent_progression"]().endswith("You have\n")
    assert "No mistakes have been made." in PROMPTS["latent_mistakes"]()
    for name in ("select_cot-sc-", "select_cot-sc+", "select_react-", "select_react+"):
        text = PROMPTS[name]()
        assert "Click on the search box." in text and "Tap the Alarm tab." in text and "Run for 30 minutes" in text
    assert PROMPTS["select_cot-sc+"]().endswith("Let's think step by step.\n")
    react = PROMPTS["select_react-"]()
    # Every earlier thought and action, but only the last two earlier observations.
    assert "Observation 1:" not in react and "Observation 2:" in react and "Observation 3:" in react
    assert "Thought 1: I need the Settings app." in react and "Action 1: Open the Settings app" in react
    assert BEFORE in react and AFTER in react
