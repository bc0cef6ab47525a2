"""What the latent-state method records at each step: its estimates, the policy state of its ``+`` agents.

The step record keeps a method's state as a registered policy state (:func:`~latent_agent.agent.trajectory.state_kind`);
trajectories older than schema version 3 kept these estimates as the step's ``latent``, and are read as this state.
Importing this module registers the state, so whoever names it reads it back from a trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.agent.trajectory import LATENT_KIND, StepRecord, state_kind


@state_kind
@dataclass(frozen=True, slots=True)
class LatentState:
    """The latent-state estimates made at one step (all free text, as the LLM wrote them).

    Attributes:
        previous_action: The action inferred to have really been performed
            between the previous screen and this one; ``None`` on the first step.
        screen_summary: What the screen shows.
        progression: What has been done so far, as prose beginning "You have".
        mistakes: Uncorrected mistakes, or "No mistakes have been made."
        completion: The completion estimate (starts with Yes/No); ``None`` if not made.
        inferred_actions: The numbered list of inferred previous actions up to this step (every
            step's ``previous_action``, oldest first): what the progression and completion read.
        commanded: The step commanded at the previous screen, which ``previous_action`` judges.
        previous_step_error: Why that commanded step was not executed (no action could be grounded,
            or executing it failed), if it was not; the chain still estimated what happened.
    """

    previous_action: str | None
    screen_summary: str
    progression: str
    mistakes: str
    completion: str | None = None
    inferred_actions: tuple[str, ...] = ()
    commanded: str | None = None
    previous_step_error: str | None = None

    KIND = LATENT_KIND

    @property
    def kind(self) -> str:
        return self.KIND


def latent_of(step: StepRecord) -> LatentState | None:
    """The latent-state estimates of ``step``, when its method made them (its state is a :class:`LatentState`)."""
    return step.state if isinstance(step.state, LatentState) else None
