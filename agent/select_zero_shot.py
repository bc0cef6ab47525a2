"""The zero-shot selectors (``zero-shot-``, ``zero-shot+``): one greedy answer, the next step in words."""

from __future__ import annotations

from dataclasses import dataclass

from agent.calls import LLMCaller
from agent.selection import Selection, SelectionContext, base_variables, first_line
from agent.templates import render


def parse_zero_shot(text: str) -> str:
    """The step: the answer's first line, without a repeated "Next action:" label."""
    line = first_line(text)
    if line.lower().startswith("next action:"):
        line = line[len("next action:"):].strip()
    return line


@dataclass(frozen=True, slots=True)
class ZeroShotSelector:
    """Asks once at temperature 0."""

    template: str
    plus: bool

    def prompt(self, context: SelectionContext) -> str:
        return render(self.template, **base_variables(context, self.plus))

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        completion = await caller.ask("select", self.prompt(context))
        return Selection(step=parse_zero_shot(completion.text), samples=completion.texts)
