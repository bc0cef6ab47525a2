"""ReAct (``react-``, ``react+``): Thought / Action turns over the screen observations.

Only the last two observations stay in the prompt (the current screen and the one
before); earlier turns keep their thought and action. The action is read after
"Action:"; without that pattern it is :data:`~agent.selection.UNKNOWN`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.calls import LLMCaller
from agent.selection import UNKNOWN, ReactTurn, Selection, SelectionContext, first_line
from agent.templates import render

#: Observations kept in the prompt, the current one included.
KEPT_OBSERVATIONS = 2


def parse_react(text: str) -> tuple[str, str]:
    """``(thought, action)`` of a ReAct answer (the text after the prompt's final "Thought:")."""
    body = text.split("\nObservation:", 1)[0]
    marker = body.find("Action:")
    if marker < 0:
        return " ".join(body.removeprefix("Thought:").split()), UNKNOWN
    thought = " ".join(body[:marker].strip().removeprefix("Thought:").split())
    return thought, first_line(body[marker + len("Action:"):]) or UNKNOWN


def kept_turns(turns: tuple[ReactTurn, ...]) -> tuple[ReactTurn, ...]:
    """``turns`` with the observations dropped that the prompt no longer keeps."""
    keep_from = len(turns) - (KEPT_OBSERVATIONS - 1)
    return tuple(t if i >= keep_from else replace(t, observation=None) for i, t in enumerate(turns))


@dataclass(frozen=True, slots=True)
class ReactSelector:
    """Asks once at temperature 0, stopping before the model invents the next observation."""

    template: str
    plus: bool

    def prompt(self, context: SelectionContext) -> str:
        variables: dict[str, object] = {"goal": context.goal, "turns": kept_turns(context.turns),
                                        "observation": context.description}
        if self.plus:
            variables.update(context.plus_variables())
        return render(self.template, **variables)

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        completion = await caller.ask("select", self.prompt(context), stop=("\nObservation:",))
        thought, action = parse_react(completion.text)
        return Selection(step=action, samples=completion.texts, thought=thought)
