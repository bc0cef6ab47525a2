"""ReAct (``react-``, ``react+``): a thought, then an action, over the history of earlier turns.

The prompt opens with the worked examples' thought/action pairs, then shows every earlier
turn's thought and action but only the last :data:`KEPT_OBSERVATIONS` earlier observations
(the current screen is shown on its own, after a warning that the earlier actions may have
had unexpected results), and ends with "Thought:". The answer is read with a regular
expression for "<thought> Action: <action>"; without a match the action is
:data:`~latent_agent.agent.latent_state.selection.UNKNOWN`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from latent_agent.agent.answer_lines import whole_lines
from latent_agent.agent.calls import LLMCaller, PromptCall, truncated
from latent_agent.agent.latent_state.purposes import REACT_CAP
from latent_agent.agent.latent_state.selection import (
    ReactTurn,
    Selection,
    SelectionContext,
    first_line,
    selector_call,
)
from latent_agent.agent.latent_state.shapes import REACT_SHAPE
from latent_agent.llm.types import CallOptions

#: Earlier observations kept in the prompt (the current screen comes on top of these).
KEPT_OBSERVATIONS = 2

# "Action:" or "Action 4:", as models number them after the numbered history.
_ACTION = re.compile(r"^(?P<thought>.*?)\bAction(?:\s*\d+)?\s*:(?P<action>.*)$", re.DOTALL)
_THOUGHT_LABEL = re.compile(r"^\s*Thought(?:\s*\d+)?\s*:", re.IGNORECASE)


def parse_react(text: str) -> tuple[str, str | None]:
    """``(thought, action)`` of a ReAct answer (the text after the prompt's final "Thought:").

    The action is None when the answer has no "Action:" or nothing after it (the method then
    records :data:`~latent_agent.agent.latent_state.selection.UNKNOWN`).
    """
    body = re.split(r"\n\s*Observation\b", text, maxsplit=1)[0]
    match = _ACTION.match(body)
    if match is None:
        return " ".join(_THOUGHT_LABEL.sub("", body).split()), None
    thought = " ".join(_THOUGHT_LABEL.sub("", match.group("thought")).split())
    return thought, first_line(match.group("action")) or None


def kept_turns(turns: tuple[ReactTurn, ...]) -> tuple[ReactTurn, ...]:
    """``turns`` with the observations dropped that the prompt no longer keeps."""
    keep_from = len(turns) - KEPT_OBSERVATIONS
    return tuple(t if i >= keep_from else replace(t, observation=None) for i, t in enumerate(turns))


@dataclass(frozen=True, slots=True)
class ReactSelector:
    """Asks once at temperature 0, stopping before the model invents the next observation."""

    template: str
    plus: bool

    def prompt(self, context: SelectionContext) -> str:
        return self.call(context).prompt

    def call(self, context: SelectionContext) -> PromptCall:
        """The select call for ``context``: the turns it keeps, each an observation (or None), thought and action."""
        turns = [{"observation": t.observation, "thought": t.thought, "action": t.action}
                 for t in kept_turns(context.turns)]
        return selector_call("react", self.template, context, self.plus, turns=turns)

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        completion = await caller.send(self.call(context), CallOptions(
            stop=("\nObservation",), max_output_tokens=REACT_CAP, shape=REACT_SHAPE))
        cut = truncated(completion)
        # A cut answer keeps its finished lines: an action line cut short is no action.
        thought, action = parse_react(whole_lines(completion.text, cut))
        if action is None:
            caller.unparsable(completion, "the answer has no 'Action:' line" + (" (it was cut at the output cap)"
                                                                                 if cut else ""))
        return Selection.of(action, completion.texts, thought)
