"""The seam between the episode loop and an agent method: what a policy implements.

The loop (:mod:`latent_agent.agent.episode`) owns everything every method shares: observing the
screen, grounding the chosen step, executing it, the repeat and step limits, recording. A method
is a :class:`Policy`: at the start of an episode it is given the goal (:meth:`Policy.begin`) and
returns a :class:`PolicyRun` that keeps the method's memory; each step the run decides the next
step in words from the observation (:meth:`PolicyRun.decide`) and is then told what became of it
(:meth:`PolicyRun.record`).

A decision may stop the episode at once (the history-only agents' "done"), or carry a stop check
that the loop runs beside grounding (the latent-state agents' completion estimate: both depend
only on the chosen step). A method that plans several steps keeps the plan in its run and is told,
with every observation, whether the screen changed since the last one (:attr:`StepInput.screen_changed`),
so it can replan. A run that wants elements kept out of a step's screen (structured reflection's
disabled taps) implements :class:`HidesElements`: before each decision the loop asks it for their
signatures (:class:`~latent_agent.agent.hidden_elements.ElementSignature`) and removes them from the
observation the run decides on and the grounder grounds on; the outcome of a tap or long press names
the element it landed on (:attr:`Outcome.target`). Every decision carries the method's own state for the step record
(a dataclass registered with :func:`latent_agent.agent.trajectory.state_kind`). A method that
tries the goal again once an attempt has ended (reflecting on it first) also implements
:class:`Retrying`: the loop asks it, resets the phone to the episode's start state, and runs the
next trial with the same run (its memory kept), up to :data:`~latent_agent.agent.episode.MAX_TRIALS`.

Adding a method: a module with the policy (and its templates), and one entry in
:mod:`latent_agent.agent.methods`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.hidden_elements import ElementSignature
from latent_agent.agent.observe import Observation
from latent_agent.agent.trajectory import PolicyState, StopReason, StopRule
from latent_agent.device.task_env import TaskReward
from latent_agent.grounder.base import Grounding
from latent_agent.surfaces import PHONE, Surface

T = TypeVar("T")


#: The ``-`` agents' stop rules (``EpisodeConfig.stop_rule``): ``paper`` is the method's, the default.
STOP_RULES: dict[str, StopRule] = {"paper": StopRule.DONE_IN_ACTION, "strict": StopRule.DONE_EXACT}


@dataclass(slots=True)
class Phases:
    """Seconds spent per named phase of one step (what :class:`~latent_agent.agent.trajectory.StepTiming` keeps)."""

    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, seconds: float) -> None:
        """Count ``seconds`` more in ``phase``."""
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    async def timed(self, phase: str, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` and count its wall time in ``phase`` (also when it fails)."""
        start = time.perf_counter()
        try:
            return await awaitable
        finally:
            self.add(phase, time.perf_counter() - start)


@dataclass(frozen=True, slots=True)
class EpisodeSetup:
    """What a policy learns when an episode begins.

    Attributes:
        goal: The goal as the agent rephrased it.
        stop_rule: How history-only agents read "done" (``EpisodeConfig.stop_rule``).
        max_steps: The step limit.
        task_id: The benchmark task the episode runs, when it is one (a method that learns from other
            tasks' demonstrations leaves this task's own out).
        given_goal: The goal as the task (or the user) gave it, before any rephrasing; None when it is
            ``goal`` itself. A method whose paper prompts with the task's own words reads :attr:`task_goal`.
        surface: What the agent operates (the device's declared surface); every prompt is rendered for it.
    """

    goal: str
    stop_rule: StopRule
    max_steps: int
    task_id: str | None = None
    given_goal: str | None = None
    surface: Surface = PHONE

    @property
    def task_goal(self) -> str:
        """The goal in the task's own words (``given_goal``, else ``goal``)."""
        return self.given_goal if self.given_goal is not None else self.goal


@dataclass(frozen=True, slots=True)
class StepInput:
    """What a policy decides a step from.

    Attributes:
        index: 0-based step number.
        observation: The screen, as observed this step.
        screen_changed: Whether the screen description differs from the previous step's (True on
            the first step): a planning method's cue to replan.
        caller: Asks the model; every call is recorded with the step.
        phases: Where the policy times its own phases.
    """

    index: int
    observation: Observation
    screen_changed: bool
    caller: LLMCaller
    phases: Phases


@dataclass(frozen=True, slots=True)
class Verdict:
    """A decision to end the episode.

    Attributes:
        reason: Why it ends.
        detail: What showed it, in words (recorded in the end record).
        rule: The stop rule that fired.
    """

    reason: StopReason
    detail: str
    rule: StopRule | None = None


@dataclass(frozen=True, slots=True)
class Checked:
    """What a stop check found: the step's state updated with the check, and whether to stop."""

    state: PolicyState | None
    stop: Verdict | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """A policy's choice for one step.

    Attributes:
        step: The next step in words, as the method records it.
        samples: The raw model outputs it was read from (recorded).
        thought: The reasoning shown beside the step, if any.
        state: The method's state for the step record.
        stop: End the episode now, without grounding the step.
        check: A stop check run beside grounding (not called when ``stop`` is set).
        check_phase: The phase its time is counted in.
        has_action: Whether ``step`` names an action to ground (False: the model's answer named none,
            and the step is recorded with a grounding error instead of being grounded).
        grounding: The step already grounded by the policy (a method whose answer names an element of
            this screen by its id needs no grounder call): the loop executes its action, or records its
            error, instead of calling the grounder.
    """

    step: str
    samples: tuple[str, ...] = ()
    thought: str = ""
    state: PolicyState | None = None
    stop: Verdict | None = None
    check: Callable[[], Awaitable[Checked]] | None = None
    check_phase: str = "check"
    has_action: bool = True
    grounding: Grounding | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a decided step, told to the policy before the next one.

    Attributes:
        observation: The screen the step was decided on.
        decision: The decision (its step, thought and samples).
        state: The step's final state (after the stop check, if there was one).
        executed: Whether an action was sent to the device.
        error: Why the step was not executed (nothing grounded, or the device refused), if it was not.
        target: The element the grounded tap or long press landed on (its signature, found under the
            action's point in the observed tree); None for other actions or when nothing was grounded.
    """

    observation: Observation
    decision: Decision
    state: PolicyState | None
    executed: bool
    error: str | None
    target: ElementSignature | None = None


class PolicyRun(Protocol):
    """One episode of a policy: holds the method's memory from step to step."""

    async def decide(self, step: StepInput) -> Decision:
        """Choose the next step.

        Raises:
            LLMError: A model call failed (the loop records the failure and ends the episode).
        """
        ...

    def record(self, outcome: Outcome) -> None:
        """Remember what became of the step just decided."""
        ...


@dataclass(frozen=True, slots=True)
class TrialEnd:
    """How one trial of the goal ended.

    Attributes:
        trial: Which trial (0-based).
        verdict: Why it ended (the method's own stop, the step limit or repeated actions).
        steps: Steps of that trial.
        checked: What the task's automatic check said of the phone when the trial ended, when the
            episode was given one (``EpisodeConfig.trial_check``: the oracle feedback of a benchmark
            task); None otherwise.
        reward: The judged task's own reward when the trial ended, on a device that hosts one (a MiniWoB++
            page: whether its task ended, and with what reward); None elsewhere. The papers on such pages
            read the done flag and the reward after every action to tell a correct trial from a failed one.
    """

    trial: int
    verdict: Verdict
    steps: int
    checked: bool | None = None
    reward: TaskReward | None = None


@runtime_checkable
class HidesElements(Protocol):
    """A :class:`PolicyRun` that keeps some elements out of the next step's observation."""

    def hidden_elements(self) -> frozenset[ElementSignature]:
        """Signatures of the elements to remove, for the step about to be decided: the loop prunes them (and
        what they hold) from the description the run decides on and from the grounder's element list
        (:func:`~latent_agent.agent.hidden_elements.hide_elements`); the raw dump is recorded as observed."""
        ...


@runtime_checkable
class Retrying(Protocol):
    """A :class:`PolicyRun` that may try the goal again after a trial ends."""

    async def again(self, ended: TrialEnd, caller: LLMCaller) -> bool:
        """Whether to try again; the run keeps its memory into the next trial.

        Raises:
            LLMError: A model call failed (the episode ends with it).
        """
        ...


@runtime_checkable
class TaskChecked(Protocol):
    """A :class:`Policy` that may be configured to need the task's automatic check when each trial ends."""

    @property
    def needs_task_check(self) -> bool:
        """Whether its episodes must be given ``EpisodeConfig.trial_check`` (the front ends refuse it
        where the check cannot run, rather than let the method judge itself)."""
        ...


class Policy(Protocol):
    """An agent method."""

    def begin(self, setup: EpisodeSetup) -> PolicyRun:
        """Start an episode."""
        ...
