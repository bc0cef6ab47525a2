"""How many tokens one sample of each kind of answer may take: the output cap of every call kind.

Without a cap a small model that runs away (echoing its plan, the element list or the few-shot
examples; recorded with Qwen2.5-Coder-0.5B) generates until the request times out, and the identical
request is sent again. Each cap is the longest answer the method's prompt asks for, with room to spare:
at least twice the longest answer the scripted stand-in (``--llm demo``, which plays a competent model)
gave over the first six tasks of the simulated phone's suite with every method family (in tokens, about
a quarter of its characters: CAAP 420, state abstraction 145, CoT-SC chain 55, summary 45, progression 45,
the rest under 20), rounded up, and never below what the prompt's own format can need (a long goal, a
ten-step plan, twenty steps of progress).
An answer cut at its cap is recorded with the finish reason ``length`` (``LLMCall.finish_reasons``) and
each method treats it as unreadable where a cut answer could mislead it (a plan, a lesson, an element
list); see ``docs/architecture.md``.

:meth:`~latent_agent.agent.calls.LLMCaller.ask` looks the cap up by the call's purpose; a caller whose
answer is longer than its purpose's usual one passes ``max_output_tokens`` (CoT-SC's reasoning chains
and ReAct's thoughts use the ``select.*`` rows below, as their purpose is ``select`` like zero-shot's).
A cap bounds the answer: a model that thinks out of the same cap (Gemini 2.5, OpenAI's reasoning models)
is sent its thinking room on top (``thinking_tokens`` in ``llm/models.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Output cap (tokens per sample) by call kind. Each row says what the longest expected answer is.
OUTPUT_CAPS: Mapping[str, int] = MappingProxyType({
    # One imperative sentence; a goal is at most 2,000 characters (MAX_GOAL_CHARS, ~500 tokens).
    "normalize_goal": 640,
    # E.1: one past-tense action, no consequence clause.
    "previous_action": 128,
    # E.2: a few sentences (app, screen type, media, switch states).
    "screen_summary": 256,
    # E.3: prose over every inferred action so far; 20 steps of about 15 tokens each, and more.
    "progression": 512,
    # E.4: "No mistakes have been made." or what to correct, a few sentences.
    "mistakes": 256,
    # E.5: Yes or No, perhaps with a short reason; only the first word is read.
    "completion": 64,
    # Zero-shot: one step in words, continuing "You should".
    "select": 128,
    # CoT-SC: one reasoning chain and "Answer: <step>" (the worked examples' reasoning is ~45 tokens;
    # sampled models reason longer, and a chain cut before its answer does not vote).
    "select.cot-sc": 512,
    # ReAct: one thought and one action.
    "select.react": 256,
    # The grounder: one JSON action in a code block (the llm grounder's answer also names the element).
    "ground": 256,
    # Structured reflection: a plan of at most ten steps (STAGE_CAP), one short line each.
    "plan": 320,
    # Structured reflection: "For action index=A, you should B."
    "reflect": 160,
    # Exemplars: a short task-relevant observation of the screen.
    "exemplar_abstract": 320,
    # Exemplars: the actions up to the next needed observation, one a line.
    "exemplar_act": 320,
    # CAAP: the four-part answer (screen, progress, next actions with rationales, action lines); the
    # stand-in's longest is ~420 tokens.
    "caap": 1024,
    # CAAP demonstrations: one rationale sentence per demonstrated action.
    "caap_rationale": 256,
    # Icon naming: one short name per numbered icon of a screenshot.
    "name_icons": 384,
})

#: The cap of a call kind missing from the table (a method registered from outside this package).
DEFAULT_OUTPUT_CAP = 512


def output_cap(purpose: str) -> int:
    """The output cap of calls made for ``purpose`` (:data:`DEFAULT_OUTPUT_CAP` for one not in the table)."""
    return OUTPUT_CAPS.get(purpose, DEFAULT_OUTPUT_CAP)
