"""The paper's flow with latent state (``+`` agents).

Each step estimates previous action, screen summary, progression and mistakes
(:mod:`latent_agent.agent.latent_state.chain`); the selector sees progression and mistakes instead of the
commanded history; the completion estimate for the chosen step is the stop check, run beside its
grounding, and "Yes" stops. The previous action is estimated for the step commanded last time even
when it could not be grounded or executed (the model has to notice that nothing happened; the
error is recorded beside the estimate). The list of inferred previous actions is the memory the
progression and completion read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from latent_agent.agent.latent_state.chain import LatentInputs, estimate_completion, estimate_latent, is_complete
from latent_agent.agent.latent_state.selection import SelectionContext, Selector
from latent_agent.agent.latent_state.selector_memory import SelectorMemory
from latent_agent.agent.latent_state.state import LatentState
from latent_agent.agent.policy import Checked, Decision, EpisodeSetup, Outcome, StepInput, Verdict
from latent_agent.agent.trajectory import StopReason, StopRule

#: The phase the completion estimate is timed in (it overlaps grounding).
COMPLETION_PHASE = "complete"


@dataclass(frozen=True, slots=True)
class LatentStatePolicy:
    """Drives ``selector`` (a ``+`` template) with the latent-state estimates."""

    selector: Selector

    def begin(self, setup: EpisodeSetup) -> LatentStateRun:
        return LatentStateRun(self.selector, setup)


@dataclass(slots=True)
class _Memory(SelectorMemory):
    inferred: list[str] = field(default_factory=list)


class LatentStateRun:
    """One episode of :class:`LatentStatePolicy`."""

    def __init__(self, selector: Selector, setup: EpisodeSetup) -> None:
        self.selector = selector
        self.setup = setup
        self.memory = _Memory()

    async def decide(self, step: StepInput) -> Decision:
        memory, caller, goal = self.memory, step.caller, self.setup.goal
        inputs = LatentInputs(
            goal=goal, description=step.observation.description,
            previous_description=memory.previous.description if memory.previous is not None else None,
            commanded=memory.previous_step, inferred=tuple(memory.inferred), previous_error=memory.previous_error,
            surface=self.setup.surface,
        )
        latent = await step.phases.timed("latent", estimate_latent(caller, inputs))
        context = SelectionContext(goal=goal, description=step.observation.description,
                                   history=tuple(memory.history), latent=latent, turns=tuple(memory.turns),
                                   surface=self.setup.surface)
        selection = await step.phases.timed("select", self.selector.select(caller, context))
        text = selection.step

        async def completion() -> Checked:
            estimate = await estimate_completion(caller, goal, latent, text, self.setup.surface)
            stop = (Verdict(StopReason.COMPLETED, f"completion estimate: {estimate}", StopRule.COMPLETION_YES)
                    if is_complete(estimate) else None)
            return Checked(replace(latent, completion=estimate), stop)

        return Decision(text, selection.samples, selection.thought, latent, check=completion,
                        check_phase=COMPLETION_PHASE,
                        has_action=selection.has_action)

    def record(self, outcome: Outcome) -> None:
        self.memory.record(outcome)
        if isinstance(outcome.state, LatentState) and outcome.state.previous_action is not None:
            self.memory.inferred.append(outcome.state.previous_action)
