"""The zero-shot selectors (``zero-shot-``, ``zero-shot+``): one greedy answer continuing "You should".

The step is what a person reads as the answer's step: its first line, unless that line only leads up
to the step. Real models (Qwen2.5-Coder-0.5B, recorded in ``tests/data/real_model_runs/``) open with a
preamble ("To turn off data roaming, you should follow these steps:" and a numbered list) or a purpose
clause ("To read reviews ..., you should open the Google Play Store ..."). An answer cut at the output
cap loses its unfinished last line; an answer with no step left is unparsable (recorded on the call).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from latent_agent.agent.answer_lines import whole_lines
from latent_agent.agent.calls import LLMCaller, PromptCall, truncated
from latent_agent.agent.latent_state.selection import (
    Selection,
    SelectionContext,
    first_line,
    selector_call,
)

#: The answer prefix the prompts end with; the model continues it with the action.
ANSWER_PREFIX = "You should"
#: The parse error of an answer in which no step can be read.
NO_STEP = "no step can be read from the answer"

# "Answer: <step>", as chat models label their answer.
_ANSWER = re.compile(r"^\W*answer\W*:\W*(?P<step>.*)$", re.IGNORECASE)
# "To <purpose>, you should <step>": the step is what follows the modal.
_PURPOSE = re.compile(r"^to\b[^,]*,\s*you (?:should|need to|must|can|have to)\s+(?P<step>\S.*)$", re.IGNORECASE)
# A numbered or bulleted line of a list ("1. Open Settings", "- Open Settings").
_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(?P<step>\S.*)$")


def _capitalized(step: str) -> str:
    return step[:1].upper() + step[1:]


def parse_zero_shot(text: str) -> str:
    """The step a person reads in the answer, first letter capitalized; empty when there is none.

    ``" tap the Wi-Fi switch."`` -> ``"Tap the Wi-Fi switch."``; ``"You should be done."`` -> ``"Be done."``;
    a line labelled "Answer:" -> what follows the label; a first line that introduces a list (it ends
    with a colon) -> the list's first item (a preamble with nothing after it: empty); "To <purpose>, you
    should <step>" -> the step.
    """
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        labelled = _ANSWER.match(line)
        if labelled is not None:
            rest = labelled.group("step").strip() or (lines[i + 1] if i + 1 < len(lines) else "")
            return _capitalized(first_line(rest))
    if not lines:
        return ""
    line = first_line(lines[0])
    if line.casefold().startswith(ANSWER_PREFIX.casefold()):
        line = line[len(ANSWER_PREFIX):].strip()
    if line.endswith(":"):
        items = [m.group("step") for m in map(_ITEM.match, lines[1:]) if m is not None]
        following = items[0] if items else (lines[1] if len(lines) > 1 else "")
        return _capitalized(first_line(following))
    purpose = _PURPOSE.match(line)
    if purpose is not None:
        line = purpose.group("step")
    return _capitalized(line)


@dataclass(frozen=True, slots=True)
class ZeroShotSelector:
    """Asks once at temperature 0."""

    template: str
    plus: bool

    def prompt(self, context: SelectionContext) -> str:
        return self.call(context).prompt

    def call(self, context: SelectionContext) -> PromptCall:
        """The select call for ``context``."""
        return selector_call("zero-shot", self.template, context, self.plus)

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        completion = await caller.send(self.call(context))
        cut = truncated(completion)
        step = parse_zero_shot(whole_lines(completion.text, cut))
        if not step:
            caller.unparsable(completion, NO_STEP + (" (it was cut at the output cap)" if cut else ""))
        return Selection.of(step, completion.texts)
