"""The zero-shot selectors (``zero-shot-``, ``zero-shot+``): one greedy answer continuing "You should"."""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.selection import Selection, SelectionContext, base_variables, first_line, selector_inputs
from latent_agent.prompts.render import render

#: The answer prefix the prompts end with; the model continues it with the action.
ANSWER_PREFIX = "You should"


def parse_zero_shot(text: str) -> str:
    """The step: the answer's first line, without a repeated "You should", first letter capitalized.

    ``" tap the Wi-Fi switch."`` -> ``"Tap the Wi-Fi switch."``; ``"You should be done."`` -> ``"Be done."``.
    """
    line = first_line(text)
    if line.casefold().startswith(ANSWER_PREFIX.casefold()):
        line = line[len(ANSWER_PREFIX):].strip()
    return line[:1].upper() + line[1:]


@dataclass(frozen=True, slots=True)
class ZeroShotSelector:
    """Asks once at temperature 0."""

    template: str
    plus: bool

    def prompt(self, context: SelectionContext) -> str:
        return render(self.template, **base_variables(context, self.plus))

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        completion = await caller.ask("select", self.prompt(context),
                                      inputs=selector_inputs("zero-shot", context, self.plus))
        return Selection.of(parse_zero_shot(completion.text), completion.texts)
