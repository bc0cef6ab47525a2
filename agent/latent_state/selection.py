"""What every action selector reads and returns, and the stop rules of the ``-`` agents.

The six selector templates share their query (``prompts/templates/_selector.j2``): the goal as
"I asked you to use an Android phone to ..." (on a web page: "use a web page to"), the commanded history (``-``)
or progress and mistakes (``+``), the detailed description of the current screen, the question and the
reminders; ``-`` prompts add the stop instruction. CoT-SC and ReAct read the three worked
examples of the prompt's surface from :mod:`latent_agent.agent.latent_state.worked_examples`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from latent_agent.agent.calls import LLMCaller, PromptCall
from latent_agent.agent.goal import goal_clause
from latent_agent.agent.latent_state.purposes import SELECT
from latent_agent.agent.latent_state.state import LatentState
from latent_agent.agent.latent_state.worked_examples import examples_for
from latent_agent.agent.trajectory import StopRule
from latent_agent.surfaces import PHONE, Surface

#: The step a selector reports when its answer has no action.
UNKNOWN = "unknown"

_DONE_EXACT = re.compile(r"^\W*(?:you\s+should\s+)?(?:be\s+)?done\W*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ReactTurn:
    """One earlier ReAct turn.

    Attributes:
        observation: The screen description of that turn, or None once it is no longer kept.
        thought: What the model thought.
        action: The action it chose.
    """

    observation: str | None
    thought: str
    action: str


@dataclass(frozen=True, slots=True)
class SelectionContext:
    """Everything a selector may show the model at one step.

    Attributes:
        goal: The normalized goal.
        description: The current screen description.
        history: Every step commanded so far, oldest first, whether or not it could be executed
            (what ``-`` selectors see).
        latent: The latent-state estimates (``+`` selectors), else None.
        turns: Earlier ReAct turns, oldest first.
        surface: What the agent operates (the prompt is rendered for it).
    """

    goal: str
    description: str
    history: tuple[str, ...] = ()
    latent: LatentState | None = None
    turns: tuple[ReactTurn, ...] = ()
    surface: Surface = PHONE

    def plus_variables(self) -> dict[str, str]:
        """The latent-state variables of the ``+`` templates.

        Raises:
            ValueError: The context carries no latent state (a programming error).
        """
        if self.latent is None:
            raise ValueError("a '+' selector needs the latent-state estimates")
        return {"progression": self.latent.progression, "mistakes": self.latent.mistakes}


@dataclass(frozen=True, slots=True)
class Selection:
    """A selector's choice.

    Attributes:
        step: The next step in words ("done" possible; :data:`UNKNOWN`, the method's word, when the
            answer named no action).
        samples: The raw model outputs it was read from.
        thought: The ReAct thought, else empty.
        has_action: Whether the answer named an action at all (the flag the episode reads; the
            step's text is only what the method records and shows).
    """

    step: str
    samples: tuple[str, ...]
    thought: str = ""
    has_action: bool = True

    @classmethod
    def of(cls, step: str | None, samples: tuple[str, ...], thought: str = "") -> Selection:
        """The selection of ``step`` (None or empty: the answer named no action, recorded as :data:`UNKNOWN`)."""
        return cls(step or UNKNOWN, samples, thought, has_action=bool(step))


class Selector(Protocol):
    """An action selector: renders its prompt, asks the model, reads the next step."""

    @property
    def template(self) -> str:
        """Template file name under ``prompts/templates``."""
        ...

    @property
    def plus(self) -> bool:
        """Whether it reads the latent-state estimates (``+``) or the commanded history (``-``)."""
        ...

    def prompt(self, context: SelectionContext) -> str:
        """The prompt for ``context``."""
        ...

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        """Choose the next step."""
        ...


def says_done(step: str, rule: StopRule = StopRule.DONE_IN_ACTION) -> bool:
    """Whether a ``-`` agent's step stops the episode under ``rule``.

    The method's rule (:attr:`StopRule.DONE_IN_ACTION`) is a plain, case-insensitive substring
    test, so "You should be done." and "done." stop - and so does "Tap Done". The stricter
    :attr:`StopRule.DONE_EXACT` stops only when the step says nothing but that it is done.
    """
    if rule is StopRule.DONE_EXACT:
        return _DONE_EXACT.match(step) is not None
    return "done" in step.casefold()


# Markdown emphasis around words ("**Open the Settings app**:"), as chat models head their list items.
_EMPHASIS = re.compile(r"(\*\*|__)(?P<words>[^*_]+?)\1")


def first_line(text: str) -> str:
    """The first non-empty line, whitespace folded and Markdown bullets or emphasis removed.

    A line whose emphasised heading introduces sub-items (``**Open the Settings app**:``) is the heading
    alone: a person reads the words, not the markers or the colon.
    """
    for line in text.splitlines():
        folded = " ".join(line.split())
        plain = _EMPHASIS.sub(lambda m: m.group("words"), folded)
        if plain != folded:
            plain = plain.rstrip(":").rstrip()
        plain = plain.lstrip("-•* ").strip("`*")
        if plain:
            return plain
    return ""


def selector_call(selector: str, template: str, context: SelectionContext, plus: bool,
                  **more: object) -> PromptCall:
    """A selector's select call, rendered once with the fixed worked examples.

    Its variables are its kind (``zero-shot``, ``cot-sc``, ``react``: how its answer is read), whether it
    is a ``+`` selector, and what its prompt shows: the goal as a clause, the screen, the commanded history,
    for ``+`` the progression and mistakes, and ``more`` (a selector's own, as ReAct's turns).
    """
    variables: dict[str, object] = {"selector": selector, "plus": plus, "goal": goal_clause(context.goal),
                                    "description": context.description, "history": context.history, **more}
    if plus:
        variables.update(context.plus_variables())
    return PromptCall.rendered(SELECT, template, context.surface, variables,
                               fixed={"examples": examples_for(context.surface), "clause": goal_clause})
