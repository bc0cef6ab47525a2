"""Chain of thought with self-consistency (``cot-sc-``, ``cot-sc+``).

Eight samples at temperature 0.5 are asked for in one request (the client runs them
at once); each sample's answer is everything after its last "Answer:" (whitespace folded),
or its last sentence when the marker is missing; the step is the majority answer. A sample cut at
the output cap votes only with a marked answer whose line it finished. The
prompt shows the three worked examples in the format of the real query, each followed by
"Let's think step by step.", the reasoning and "Answer:"; the real query ends with
"Let's think step by step.".
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from latent_agent.agent.answer_lines import whole_lines
from latent_agent.agent.calls import CUT, LLMCaller, PromptCall
from latent_agent.agent.latent_state.purposes import COT_SC_CAP
from latent_agent.agent.latent_state.selection import Selection, SelectionContext, selector_call
from latent_agent.agent.latent_state.shapes import COT_SC_SHAPE
from latent_agent.llm.types import CallOptions

SAMPLES = 8
TEMPERATURE = 0.5
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_VOTE_DROP = re.compile(r"[\"'`*“”‘’]")
# Sampled models also write "answer:", "**Answer:**" or "Final answer:"; all mark the answer.
_ANSWER = re.compile(r"\banswer\s*\**\s*:\**", re.IGNORECASE)


def extract_answer(sample: str) -> str:
    """The answer of one sample: everything after the last "Answer:", else its last sentence."""
    markers = list(_ANSWER.finditer(sample))
    if markers:
        return " ".join(sample[markers[-1].end():].split()).strip("`*_ ")
    sentences = [s.strip() for s in _SENTENCE_END.split(" ".join(sample.split())) if s.strip()]
    return sentences[-1] if sentences else ""


def extract_cut_answer(sample: str) -> str:
    """The answer of a sample cut at the output cap: only a marked answer whose line was finished.

    Without the marker the last sentence of a cut chain is reasoning broken off, not an answer.
    """
    kept = whole_lines(sample, cut=True)
    return extract_answer(kept) if _ANSWER.search(kept) else ""


def vote_key(answer: str) -> str:
    """What two answers must share to count as the same vote (case, quotes and final stop ignored)."""
    return " ".join(_VOTE_DROP.sub("", answer).casefold().rstrip(" .!").split())


def majority(answers: list[str]) -> str:
    """The most common answer; ties go to the one that came first. Empty answers do not vote."""
    keyed = [(vote_key(a), a) for a in answers if vote_key(a)]
    if not keyed:
        return ""
    counts = Counter(k for k, _ in keyed)
    best = max(counts.values())
    return next(a for k, a in keyed if counts[k] == best)


@dataclass(frozen=True, slots=True)
class CotScSelector:
    """Samples ``samples`` reasoning chains at ``temperature`` and takes the majority answer."""

    template: str
    plus: bool
    samples: int = SAMPLES
    temperature: float = TEMPERATURE

    def prompt(self, context: SelectionContext) -> str:
        return self.call(context).prompt

    def call(self, context: SelectionContext) -> PromptCall:
        """The select call for ``context``."""
        return selector_call("cot-sc", self.template, context, self.plus)

    async def select(self, caller: LLMCaller, context: SelectionContext) -> Selection:
        completion = await caller.send(self.call(context), CallOptions(
            temperature=self.temperature, n=self.samples, max_output_tokens=COT_SC_CAP, shape=COT_SC_SHAPE))
        cut = [i < len(completion.finish_reasons) and completion.finish_reasons[i] == CUT
               for i in range(len(completion.texts))]
        step = majority([extract_cut_answer(t) if c else extract_answer(t)
                         for t, c in zip(completion.texts, cut, strict=True)])
        if not step:
            caller.unparsable(completion, "no sample names a step")
        return Selection.of(step, completion.texts)
