"""The episode loop on a web page that scores itself (MiniWoB++), with toy methods registered here.

Three rules of the loop differ on such a page, each tried on a real page:

* a stop check's "complete" still carries out the step's own action (the page scores only what is done
  on it: "Click Submit" is the step judged complete), where on a phone the check stops before it;
* a trial whose task ended solved is never tried again, whatever the method asks;
* identical actions count as repeats only on an unchanged page (a spinner's arrow is clicked several
  times in a row by design).

The toys ask no model: their decisions carry the action already grounded on the observed tree
(``Decision.grounding``) and the stand-in only rephrases the goal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from latent_agent.accessibility.tree import UITree
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.episode import EpisodeConfig, EpisodeResult, run_episode_sync
from latent_agent.agent.methods import Family, Method, Variant, register, unregister
from latent_agent.agent.policy import Checked, Decision, EpisodeSetup, Outcome, StepInput, TrialEnd, Verdict
from latent_agent.agent.trajectory import StopReason, StopRule, read_trajectory
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.device.sim.device import SimDevice
from latent_agent.grounder.actions import Click, InputText
from latent_agent.grounder.base import Grounding
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

QUOTED = re.compile(r'"([^"]+)"')



def _rephrase(request: GenerationRequest) -> str:
    assert request.purpose == "normalize_goal", request.purpose
    return str(dict(request.inputs)["goal"])


def _tap(tree: UITree, text: str) -> Grounding:
    """A click on the centre of the first node showing ``text`` (or None grounded when there is none)."""
    for node in tree.iter():
        if node.text == text and node.bounds is not None:
            x, y = node.bounds.center
            return Grounding(Click(x, y), None, "rule")
    return Grounding(None, f"no {text!r} on the screen", "rule")


Chooser = Callable[[StepInput, int], tuple[str, Grounding, bool]]
#: Registers a toy policy (with a repeat limit, or None) under a fresh name; returns the name.
AddToy = Callable[..., str]


@dataclass
class ToyRun:
    """Clicks what ``choose`` says; a ``complete`` flag makes the step's stop check say complete."""

    choose: Chooser
    retry: bool
    steps: int = 0
    trials_seen: list[TrialEnd] = field(default_factory=list)

    async def decide(self, step: StepInput) -> Decision:
        words, grounding, complete = self.choose(step, self.steps)

        async def check() -> Checked:
            stop = Verdict(StopReason.COMPLETED, "the toy judged it complete", StopRule.COMPLETION_YES)
            return Checked(None, stop if complete else None)

        return Decision(words, grounding=grounding, check=check)

    def record(self, outcome: Outcome) -> None:
        self.steps += 1

    async def again(self, ended: TrialEnd, caller: LLMCaller) -> bool:
        self.trials_seen.append(ended)
        self.steps = 0
        return self.retry


@dataclass
class ToyPolicy:
    choose: Chooser
    retry: bool = False
    runs: list[ToyRun] = field(default_factory=list)

    def begin(self, setup: EpisodeSetup) -> ToyRun:
        run = ToyRun(self.choose, self.retry)
        self.runs.append(run)
        return run


@pytest.fixture
def toy() -> Iterator[AddToy]:
    names: list[str] = []

    def add(policy: ToyPolicy, repeat_limit: int | None = None) -> str:
        name = f"test-web-toy-{len(names)}"
        register(Method(name, policy, "a toy on a web page", Family("toy-web", "Toy"), Variant("toy", "(toy)"),
                        repeat_limit=repeat_limit))
        names.append(name)
        return name

    try:
        yield add
    finally:
        for name in names:
            unregister(name)


def _run(device: MiniWobDevice | SimDevice, goal: str, method: str, tmp: Path, max_steps: int = 5) -> EpisodeResult:
    client = ScriptedModel(responder=_rephrase)
    try:
        return run_episode_sync(EpisodeConfig(goal, method, max_steps=max_steps, screenshots=False), device, client,
                                tmp / "ep")
    finally:
        client.close()


def _the_button(goal: str) -> Chooser:
    wanted = QUOTED.search(goal)
    assert wanted is not None, goal

    def choose(step: StepInput, index: int) -> tuple[str, Grounding, bool]:
        return f'Click "{wanted.group(1)}"', _tap(step.observation.tree, wanted.group(1)), True

    return choose


def test_a_completion_stop_still_carries_out_the_final_click_on_a_page(page: MiniWobDevice, toy: AddToy,
        tmp_path: Path) -> None:
    goal = page.load_task("click-button", 1000)
    result = _run(page, goal, toy(ToyPolicy(_the_button(goal))), tmp_path)
    # The check said "complete" at the first step; the click was carried out, and the page scored it.
    assert result.stop_reason is StopReason.TASK_ENDED, result.detail
    assert result.reward is not None and result.reward.success
    [step] = read_trajectory(result.directory).steps
    assert step.executed and isinstance(step.action, Click)


def test_on_a_phone_the_completion_stop_comes_before_the_action(toy: AddToy,
        tmp_path: Path) -> None:
    def choose(step: StepInput, index: int) -> tuple[str, Grounding, bool]:
        return 'Tap "Settings"', Grounding(Click(10, 10), None, "rule"), True

    result = _run(SimDevice(), "Open the Settings app", toy(ToyPolicy(choose)), tmp_path)
    assert result.stop_reason is StopReason.COMPLETED
    [step] = read_trajectory(result.directory).steps
    assert not step.executed


def test_a_solved_task_is_never_tried_again(page: MiniWobDevice, toy: AddToy,
        tmp_path: Path) -> None:
    goal = page.load_task("click-button", 1001)
    policy = ToyPolicy(_the_button(goal), retry=True)
    result = _run(page, goal, toy(policy), tmp_path)
    assert result.stop_reason is StopReason.TASK_ENDED and result.reward is not None and result.reward.success
    # The method would have tried again: it was not even asked.
    assert policy.runs[0].trials_seen == []
    assert read_trajectory(result.directory).trials == ()


def test_a_failed_trial_is_handed_its_reward(page: MiniWobDevice, toy: AddToy,
        tmp_path: Path) -> None:
    for seed in range(1002, 1030):  # a seed whose page shows another button than the one asked for
        goal = page.load_task("click-button", seed)
        wanted = QUOTED.search(goal)
        assert wanted is not None
        others = [n.text for n in page.hierarchy().tree.iter()
                  if n.class_name.endswith("Button") and n.text and n.text != wanted[1]]
        if others:
            break
    other = others[0]

    def choose(step: StepInput, index: int) -> tuple[str, Grounding, bool]:
        return f'Click "{other}"', _tap(step.observation.tree, other), False

    policy = ToyPolicy(choose, retry=False)
    result = _run(page, goal, toy(policy), tmp_path)
    assert result.stop_reason is StopReason.TASK_ENDED
    [ended] = policy.runs[0].trials_seen
    assert ended.reward is not None and ended.reward.done and ended.reward.raw == -1.0


def _spinner_up(step: StepInput, index: int) -> tuple[str, Grounding, bool]:
    # jQuery UI draws the spinner's two arrows as unnamed buttons, the up arrow first.
    arrows = [n for n in step.observation.tree.iter() if n.class_name.endswith("Button") and not n.text]
    assert arrows and arrows[0].bounds is not None, "use-spinner shows no arrow"
    x, y = arrows[0].bounds.center
    return "Click the up arrow", Grounding(Click(x, y), None, "rule"), False


def test_clicks_that_change_the_page_are_not_repeats(page: MiniWobDevice, toy: AddToy,
        tmp_path: Path) -> None:
    page.load_task("use-spinner", 1000)
    result = _run(page, "Select 5 with the spinner and hit Submit.", toy(ToyPolicy(_spinner_up), repeat_limit=3),
                  tmp_path, max_steps=4)
    # Each click raised the spinner's value: four clicks, no repeat stop.
    assert result.stop_reason is StopReason.MAX_STEPS, result.detail
    assert result.steps == 4


def test_the_same_click_on_an_unchanged_page_is_a_repeat(page: MiniWobDevice, toy: AddToy,
        tmp_path: Path) -> None:
    page.load_task("click-button", 1003)

    def nowhere(step: StepInput, index: int) -> tuple[str, Grounding, bool]:
        return "Click the corner", Grounding(Click(2, 2), None, "rule"), False

    result = _run(page, "Click the corner.", toy(ToyPolicy(nowhere), repeat_limit=3), tmp_path, max_steps=6)
    assert result.stop_reason is StopReason.REPEATED_ACTIONS
    assert result.steps == 3 and "on an unchanged page" in result.detail


def test_an_action_that_does_not_fit_the_page_is_recorded_and_the_episode_goes_on(
        page: MiniWobDevice, toy: AddToy, tmp_path: Path) -> None:
    page.load_task("enter-text", 1000)

    def type_unfocused(step: StepInput, index: int) -> tuple[str, Grounding, bool]:
        # Typing with no field focused: the page refuses it (DeviceActionError), as a wrong tap would do nothing.
        return 'Type "hello"', Grounding(InputText("hello"), None, "rule"), False

    result = _run(page, "Type hello.", toy(ToyPolicy(type_unfocused)), tmp_path, max_steps=2)
    assert result.stop_reason is StopReason.MAX_STEPS, result.detail
    steps = read_trajectory(result.directory).steps
    assert len(steps) == 2 and not steps[0].executed
    assert steps[0].execution_error is not None and "no text field has focus" in steps[0].execution_error
