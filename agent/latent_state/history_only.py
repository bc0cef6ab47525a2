"""The paper's baseline flow (``-`` agents): the selector sees the commanded history; "done" stops.

The stop rule is read from the selected step itself (``EpisodeConfig.stop_rule``: the method's
rule, "done" anywhere in it, or the strict option), so a stopping step is never grounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.agent.latent_state.selection import SelectionContext, Selector, says_done
from latent_agent.agent.latent_state.selector_memory import SelectorMemory
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, Verdict
from latent_agent.agent.trajectory import StopReason, state_kind


@state_kind
@dataclass(frozen=True, slots=True)
class HistoryState:
    """What a history-only step records besides the selected step.

    Attributes:
        thought: The ReAct thought that came with the step (empty for the other selectors).
    """

    thought: str = ""

    KIND = "history"

    @property
    def kind(self) -> str:
        return self.KIND


@dataclass(frozen=True, slots=True)
class HistoryOnlyPolicy:
    """Drives ``selector`` (a ``-`` template) with the commanded history."""

    selector: Selector

    def begin(self, setup: EpisodeSetup) -> HistoryOnlyRun:
        return HistoryOnlyRun(self.selector, setup)


class HistoryOnlyRun:
    """One episode of :class:`HistoryOnlyPolicy`."""

    def __init__(self, selector: Selector, setup: EpisodeSetup) -> None:
        self.selector = selector
        self.setup = setup
        self.memory = SelectorMemory()

    async def decide(self, step: StepInput) -> Decision:
        context = SelectionContext(goal=self.setup.goal, description=step.observation.description,
                                   history=tuple(self.memory.history), turns=tuple(self.memory.turns),
                                   surface=self.setup.surface)
        selection = await step.phases.timed("select", self.selector.select(step.caller, context))
        text = selection.step
        state = HistoryState(selection.thought)
        stop = None
        if says_done(text, self.setup.stop_rule):
            stop = Verdict(StopReason.DONE, f"the selector answered {text!r}", self.setup.stop_rule)
        return Decision(text, selection.samples, selection.thought, state, stop=stop,
                        has_action=selection.has_action)

    def record(self, outcome: Outcome) -> None:
        self.memory.record(outcome)
