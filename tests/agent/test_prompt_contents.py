"""Each latent-state call and each selector, rendered from a recorded step: its inputs and its instructions.

The episodes are recorded with the demo stand-in (in process). For a step of each, the prompts the
agent sent are checked against what the step recorded (descriptions, estimates, the commanded step,
the goal): what each call must contain, and what it must not (the method's specification,
/work/shared/method/latent-state-method.md, lists both).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.goal import goal_clause
from latent_agent.agent.latent_state.chain import NO_MISTAKES, NOTHING_YET
from latent_agent.agent.latent_state.selection import ReactTurn, SelectionContext
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.latent_state.worked_examples import EXAMPLES_FILES, examples_for, load_examples
from latent_agent.agent.methods import METHODS, selector_methods
from latent_agent.agent.trajectory import LLMCall, StepRecord, Trajectory, read_trajectory
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.sim.device import SimDevice
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.surfaces import PHONE, WEB_PAGE

GOAL = "Turn off data roaming"
REMINDERS = ("you cannot interact with anything that is not visible on the screen",
             "You can open an app even if you do not see it", "just say to open it",
             "State the action succinctly, one step at a time.")
STOP_PHRASE = 'say exactly "You should be done."'
REACT_STOP = 'make the action just "done."'


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Trajectory]:
    out: dict[str, Trajectory] = {}
    for method in selector_methods():
        directory = tmp_path_factory.mktemp("rec") / method
        run_episode_sync(EpisodeConfig(GOAL, method, screenshots=False), SimDevice(),
                         ScriptedModel(responder=DemoOracle()), directory)
        out[method] = read_trajectory(directory)
    return out


def _call(step: StepRecord, purpose: str) -> LLMCall:
    (call,) = [c for c in step.calls if c.purpose == purpose]
    return call


def _in_order(text: str, *parts: str) -> bool:
    at = 0
    for part in parts:
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def _numbered(actions: tuple[str, ...]) -> str:
    return "\n".join(f"{i}. {a}" for i, a in enumerate(actions, 1))


@pytest.fixture(scope="module")
def plus(recorded: dict[str, Trajectory]) -> Trajectory:
    return recorded["zero-shot+"]


def test_previous_action_gets_the_commanded_step_and_both_screens(plus: Trajectory) -> None:
    goal = plus.header.normalized_goal
    assert not any(c.purpose == "previous_action" for c in plus.steps[0].calls)
    for before, step in zip(plus.steps, plus.steps[1:], strict=False):
        prompt = _call(step, "previous_action").prompt
        assert _in_order(prompt, before.selected_step, before.description, step.description)
        assert latent_of(step) is not None and latent_of(step).commanded == before.selected_step
        for phrase in ("I may be lying", "only if the evidence on the screens clearly contradicts it",
                       "possibly no action was performed", "past tense", "without describing its consequences"):
            assert phrase in prompt
        assert prompt.endswith("Real action:\n")
        assert goal_clause(goal) not in prompt and latent_of(step).screen_summary not in prompt


def test_screen_summary_gets_the_screen_and_the_action_just_inferred(plus: Trajectory) -> None:
    first = _call(plus.steps[0], "screen_summary").prompt
    assert plus.steps[0].description in first and "No action has been performed" in first
    for step in plus.steps[1:]:
        assert latent_of(step) is not None and latent_of(step).previous_action is not None
        prompt = _call(step, "screen_summary").prompt
        assert step.description in prompt and latent_of(step).previous_action in prompt
        for phrase in ("Which app", "what type of screen", "welcome screen", "advertisement",
                       "Do not describe past actions", "video", "switches", "on or off"):
            assert phrase in prompt
        assert goal_clause(plus.header.normalized_goal) not in prompt


def test_progression_gets_every_inferred_action_the_summary_and_the_description_but_not_the_goal(
    plus: Trajectory,
) -> None:
    goal = plus.header.normalized_goal
    for index, step in enumerate(plus.steps):
        latent = latent_of(step)
        assert latent is not None
        prompt = _call(step, "progression").prompt
        if index == 0:
            assert latent.inferred_actions == () and NOTHING_YET in prompt
        else:
            assert len(latent.inferred_actions) == index and _numbered(latent.inferred_actions) in prompt
        assert latent.screen_summary in prompt and step.description in prompt
        assert "not tell you the goal" in prompt and "should not try to guess it" in prompt
        assert "specific values" in prompt and "selections" in prompt
        assert prompt.endswith("You have\n") and latent.progression.startswith("You have ")
        # The goal is withheld, and the progression is not fed back into itself.
        assert goal.rstrip(".").casefold() not in prompt.casefold()
        if index:
            previous = latent_of(plus.steps[index - 1])
            assert previous is not None and previous.progression not in prompt


def test_mistakes_get_the_goal_the_progression_and_the_description_not_the_summary(plus: Trajectory) -> None:
    for step in plus.steps:
        latent = latent_of(step)
        assert latent is not None
        prompt = _call(step, "mistakes").prompt
        assert f"I asked you to use an Android phone to {goal_clause(plus.header.normalized_goal)}" in prompt
        assert latent.progression in prompt and step.description in prompt
        assert latent.screen_summary not in prompt and f'"{NO_MISTAKES}"' in prompt
        assert "what needs to be corrected to achieve the goal" in prompt
        # No list of commanded actions (the method gives only the progression).
        assert not re.search(r"^1[.)] ", prompt, re.MULTILINE)


def test_completion_gets_the_goal_the_inferred_actions_the_summary_and_the_proposed_action(
    plus: Trajectory,
) -> None:
    for step in plus.steps:
        latent = latent_of(step)
        assert latent is not None
        prompt = _call(step, "completion").prompt
        assert _in_order(prompt, goal_clause(plus.header.normalized_goal),
                         _numbered(latent.inferred_actions) or NOTHING_YET, latent.screen_summary,
                         step.selected_step)
        assert "minimum number of steps" in prompt and "nothing at all if the goal has already been achieved" in prompt
        assert "Yes or No" in prompt
        assert latent.progression not in prompt and step.description not in prompt
    assert plus.end is not None and latent_of(plus.steps[-1]) is not None
    assert latent_of(plus.steps[-1]).completion is not None and latent_of(plus.steps[-1]).completion.startswith("Yes")


@pytest.mark.parametrize("method", list(selector_methods()))
def test_every_selector_prompt_has_its_inputs_and_instructions(method: str, recorded: dict[str, Trajectory]) -> None:
    t = recorded[method]
    is_plus, react, cot = METHODS[method].plus, method.startswith("react"), method.startswith("cot")
    for index, step in enumerate(t.steps):
        prompt = _call(step, "select").prompt
        real = prompt.split("New request:", 1)[1] if cot else prompt
        assert f"I asked you to use an Android phone to {goal_clause(t.header.normalized_goal)}" in real
        assert step.description in real
        assert react or "What should the next action be?" in real
        for reminder in REMINDERS:
            assert reminder in real
        if is_plus:
            latent = latent_of(step)
            assert latent is not None
            assert f"Here is a summary of your progress so far: {latent.progression}" in real
            assert f"Here are mistakes that need to be corrected: {latent.mistakes}" in real
            # No screen summary, no stop instruction, no extra instruction.
            assert latent.screen_summary not in prompt
            assert STOP_PHRASE not in prompt and REACT_STOP not in prompt and "correct it first" not in prompt
        else:
            assert "progress so far" not in prompt and "mistakes that need" not in prompt
            if react:
                assert REACT_STOP in real
            else:
                assert STOP_PHRASE in real
                history = [s.selected_step for s in t.steps[:index]]
                block = "\n".join(f"{i}) {a}" for i, a in enumerate(history, 1)) if history else "1) None."
                assert f"The actions you have taken so far:\n{block}\n\n" in real
        if react:
            _check_react(prompt, t.steps[:index], step)
        elif cot:
            assert prompt.endswith("Let's think step by step.\n") and real.count("Let's think step by step.") == 1
        else:
            assert prompt.endswith("\n\nYou should\n")


def _check_react(prompt: str, earlier: tuple[StepRecord, ...], step: StepRecord) -> None:
    preamble, rest = prompt.split("I asked you to use an Android phone to", 1)
    # The preamble is thought/action pairs only: no goals, no screens.
    lines = [line for line in preamble.splitlines()[1:] if line.strip()]
    assert [line.split(":", 1)[0] for line in lines] == ["Thought", "Action"] * len(load_examples())
    for i, before in enumerate(earlier, 1):
        assert f"Action {i}: {before.selected_step}\n" in rest and f"Thought {i}: " in rest
        kept = i > len(earlier) - 2
        assert (f"Observation {i}:\n{before.description}\n" in rest) is kept
    assert _in_order(rest, "may have had unexpected results", "pay special attention to the current screen",
                     step.description, "Thought: <your thought> Action: <the action>",
                     "make sure that the action can be performed on it")
    assert prompt.endswith("\nThought:\n")


@pytest.mark.parametrize("kind", ["zero_shot", "cot_sc", "react"])
def test_a_plus_prompt_differs_from_its_minus_twin_only_by_the_latent_block_and_the_stop_instruction(
    kind: str, plus: Trajectory
) -> None:
    step = plus.steps[3]
    assert latent_of(step) is not None
    history = tuple(s.selected_step for s in plus.steps[:3])
    turns = tuple(ReactTurn(s.description, "I look at the screen.", s.selected_step) for s in plus.steps[:3])
    context = SelectionContext(goal=plus.header.normalized_goal, description=step.description, history=history,
                               latent=latent_of(step), turns=turns)
    name = kind.replace("_", "-")
    minus = METHODS[f"{name}-"].selector.prompt(context).splitlines()
    plus_prompt = METHODS[f"{name}+"].selector.prompt(context).splitlines()
    removed, added = [], []
    for line in difflib.ndiff(minus, plus_prompt):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    latent_lines = {f"Here is a summary of your progress so far: {latent_of(step).progression}",
                    f"Here are mistakes that need to be corrected: {latent_of(step).mistakes}"}
    examples = load_examples()
    allowed_added = latent_lines | {f"Here is a summary of your progress so far: {e.progress}" for e in examples} | {
        f"Here are mistakes that need to be corrected: {e.mistakes}" for e in examples} | {""}
    allowed_removed = {"The actions you have taken so far:", 'If the goal has been accomplished, say exactly '
                       '"You should be done."', 'If the goal has been accomplished, first think about why it is '
                       'accomplished, then make the action just "done."', ""}
    allowed_removed |= {f"{i}) {a}" for i, a in enumerate(history, 1)}
    allowed_removed |= {f"{i}) {a}" for e in examples for i, a in enumerate(e.history, 1)}
    assert set(added) <= allowed_added, set(added) - allowed_added
    assert set(removed) <= allowed_removed, set(removed) - allowed_removed
    assert latent_lines <= set(added) and any("say exactly" in r or "just \"done.\"" in r for r in removed)


def test_the_worked_examples_are_the_same_in_every_selector_and_none_shows_stopping(plus: Trajectory) -> None:
    examples = load_examples()
    assert [e.goal for e in examples] == [
        "Use color inversion", "Set an alarm for 3:30 PM with the alarm sound Argon",
        'In Simple Calendar Pro, create a task titled "Exercise" with the description "Run for 30 minutes" for today']
    # A step whose screen is not the Settings main list (the first example's screen is part of that one).
    step = plus.steps[2]
    context = SelectionContext(goal=plus.header.normalized_goal, description=step.description,
                               history=(plus.steps[1].selected_step,), latent=latent_of(step),
                               turns=(ReactTurn(step.description, "t", plus.steps[1].selected_step),))
    for method in ("cot-sc-", "cot-sc+", "react-", "react+"):
        prompt = METHODS[method].selector.prompt(context)
        for example in examples:
            assert f"{example.reasoning}\n" in prompt and f"{example.answer}\n" in prompt
            # CoT-SC shows each example's screen and goal; ReAct's preamble does not.
            assert (example.description in prompt) is method.startswith("cot")
    for example in examples:
        assert "done" not in example.answer.casefold() and "done" not in example.reasoning.casefold()
    minus = METHODS["cot-sc-"].selector.prompt(context)
    assert "1) open settings\n" in minus and "4) type Exercise in the Title text box\n" in minus


def test_the_example_screens_are_the_simulated_phones(tmp_path: Path) -> None:
    from latent_agent.demo.example_screens import regenerate

    stored = [e.description for e in load_examples()]
    assert regenerate() == stored, (
        "the simulated phone or the screen description changed: run "
        "`python -m latent_agent.demo.example_screens --write` and review the diff of "
        "agent/latent_state/examples/latent_examples.json")
    assert 'a clickable group with the text "Search settings"' in stored[0] and '"Accessibility"' not in stored[0]
    assert 'a group described as "Bedtime" that is selected' in stored[1]
    assert 'with the text "Exercise"' in stored[2] and 'hint "Add details"' in stored[2]


def test_the_web_examples_are_their_pages_as_described() -> None:
    from latent_agent.demo.example_screens import regenerate

    web = EXAMPLES_FILES["web_page"]
    examples = examples_for(WEB_PAGE)
    assert regenerate(web) == [e.description for e in examples], (
        "a web example's page or the screen description changed: run "
        "`python -m latent_agent.demo.example_screens --write` and review the diff of " + web.name)
    # The same three lessons as the phone's (search for what is not shown, a wrong tab corrected, a form half filled
    # in), on pages: the search box is there, the wrong tab is the selected one, the field to fill is empty.
    assert 'a text box with the hint "Search help articles"' in examples[0].description
    assert 'a clickable view that is selected\n    a clickable text "Addresses"' in examples[1].description
    assert 'a text box with the text "Late delivery" that is focused' in examples[2].description
    assert 'a text box with the hint "Your message"' in examples[2].description
    assert [e.answer for e in examples] == ["Click on the search box.", "Click the Orders tab.",
                                            "Type 'My parcel has not arrived' in the Message text box."]
    for example in examples:
        assert "done" not in example.answer.casefold() and "done" not in example.reasoning.casefold()
    assert examples_for(PHONE) == load_examples()
