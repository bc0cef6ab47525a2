"""What every action selector reads and returns, and the stop word of the ``-`` selectors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from agent.calls import LLMCaller
from agent.trajectory import LatentState

#: The step a ReAct selector reports when its answer has no "Action:".
UNKNOWN = "unknown"

_DONE = re.compile(r"^\W*done\b", re.IGNORECASE)


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
        history: The commanded steps so far, oldest first (what ``-`` selectors see).
        latent: The latent-state estimates (``+`` selectors), else None.
        turns: Earlier ReAct turns, oldest first.
    """

    goal: str
    description: str
    history: tuple[str, ...] = ()
    latent: LatentState | None = None
    turns: tuple[ReactTurn, ...] = ()

    def plus_variables(self) -> dict[str, str]:
        """The latent-state variables of the ``+`` templates.

        Raises:
            ValueError: The context carries no latent state (a programming error).
        """
        if self.latent is None:
            raise ValueError("a '+' selector needs the latent-state estimates")
        return {
            "progression": self.latent.progression,
            "mistakes": self.latent.mistakes,
            "screen_summary": self.latent.screen_summary,
        }


@dataclass(frozen=True, slots=True)
class Selection:
    """A selector's choice.

    Attributes:
        step: The next step in words ("done" or :data:`UNKNOWN` possible).
        samples: The raw model outputs it was read from.
        thought: The ReAct thought, else empty.
    """

    step: str
    samples: tuple[str, ...]
    thought: str = ""


class Selector(Protocol):
    """An action selector: renders its prompt, asks the model, reads the next step."""

    @property
    def template(self) -> str:
        """Template file name under ``agent/prompts``."""
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


def is_done(step: str) -> bool:
    """Whether a ``-`` selector's step says the task is done."""
    return _DONE.match(step) is not None


def first_line(text: str) -> str:
    """The first non-empty line, whitespace folded and Markdown bullets or emphasis removed."""
    for line in text.splitlines():
        line = " ".join(line.split()).lstrip("-*• ").strip("`*")
        if line:
            return line
    return ""


def base_variables(context: SelectionContext, plus: bool) -> dict[str, object]:
    """The variables a selector template renders with."""
    out: dict[str, object] = {"goal": context.goal, "description": context.description,
                              "history": context.history}
    if plus:
        out.update(context.plus_variables())
    return out
