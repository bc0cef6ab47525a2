"""What the paper's two flows remember between steps, whichever selector they drive."""

from __future__ import annotations

from dataclasses import dataclass, field

from latent_agent.agent.latent_state.selection import ReactTurn
from latent_agent.agent.observe import Observation
from latent_agent.agent.policy import Outcome


@dataclass(slots=True)
class SelectorMemory:
    """The commanded history and ReAct turns, and what the previous step commanded.

    Attributes:
        previous: The screen the previous step was decided on.
        previous_step: The step commanded there, executed or not.
        previous_error: Why it was not executed, if it was not.
        history: Every commanded step, oldest first.
        turns: Every earlier ReAct turn, oldest first.
    """

    previous: Observation | None = None
    previous_step: str | None = None
    previous_error: str | None = None
    history: list[str] = field(default_factory=list)
    turns: list[ReactTurn] = field(default_factory=list)

    def record(self, outcome: Outcome) -> None:
        """Remember ``outcome``'s step, whether or not it was executed."""
        step = outcome.decision.step
        self.previous, self.previous_step = outcome.observation, step
        self.previous_error = None if outcome.executed else outcome.error
        self.turns.append(ReactTurn(outcome.observation.description, outcome.decision.thought, step))
        self.history.append(step)
