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
and ReAct's thoughts use :data:`COT_SC_CAP` and :data:`REACT_CAP`, as their purpose is ``select`` like
zero-shot's).
A cap bounds the answer: a model that thinks out of the same cap (Gemini 2.5, OpenAI's reasoning models)
is sent its thinking room on top (``thinking_tokens`` in ``llm/models.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from latent_agent.purposes import Purpose

#: Output cap (tokens per sample) by call kind. Each row says what the longest expected answer is (a ping
#: asks for its own few tokens).
OUTPUT_CAPS: Mapping[Purpose, int] = MappingProxyType({
    # One imperative sentence; a goal is at most 2,000 characters (MAX_GOAL_CHARS, ~500 tokens).
    Purpose.NORMALIZE_GOAL: 640,
    # E.1: one past-tense action, no consequence clause.
    Purpose.PREVIOUS_ACTION: 128,
    # E.2: a few sentences (app, screen type, media, switch states).
    Purpose.SCREEN_SUMMARY: 256,
    # E.3: prose over every inferred action so far; 20 steps of about 15 tokens each, and more.
    Purpose.PROGRESSION: 512,
    # E.4: "No mistakes have been made." or what to correct, a few sentences.
    Purpose.MISTAKES: 256,
    # E.5: Yes or No, perhaps with a short reason; only the first word is read.
    Purpose.COMPLETION: 64,
    # Zero-shot: one step in words, continuing "You should".
    Purpose.SELECT: 128,
    # The grounder: one JSON action in a code block (the llm grounder's answer also names the element).
    Purpose.GROUND: 256,
    # Structured reflection: a plan of at most ten steps (STAGE_CAP), one short line each.
    Purpose.PLAN: 320,
    # Structured reflection: "For action index=A, you should B."
    Purpose.REFLECT: 160,
    # Structured reflection on a web page: one sentence saying what an action did and what for.
    Purpose.PARAPHRASE: 128,
    # Exemplars: a short task-relevant observation of the screen.
    Purpose.EXEMPLAR_ABSTRACT: 320,
    # Exemplars: the actions up to the next needed observation, one a line.
    Purpose.EXEMPLAR_ACT: 320,
    # Exemplars on a web page: the task restated explicitly, with what it settles (which options are synonyms).
    Purpose.EXEMPLAR_REFORMULATE: 256,
    # CAAP: the four-part answer (screen, progress, next actions with rationales, action lines); the
    # stand-in's longest is ~420 tokens.
    Purpose.CAAP: 1024,
    # CAAP demonstrations: one rationale sentence per demonstrated action.
    Purpose.CAAP_RATIONALE: 256,
    # Icon naming: one short name per numbered icon of a screenshot.
    Purpose.NAME_ICONS: 384,
})

#: CoT-SC's select calls: one reasoning chain and "Answer: <step>" (the worked examples' reasoning is ~45 tokens;
#: sampled models reason longer, and a chain cut before its answer does not vote).
COT_SC_CAP = 512
#: ReAct's select calls: one thought and one action.
REACT_CAP = 256

#: Synapse's output caps on a web page, for every call of an episode (its paper's section 4): 512 tokens on the
#: simple tasks and 2,048 on the complex ones (those it filters or reformulates), whose plans and observations
#: are long (book-flight, the e-mail tasks).
SYNAPSE_SIMPLE_CAP = 512
SYNAPSE_COMPLEX_CAP = 2048

#: The cap of a call kind missing from the table.
DEFAULT_OUTPUT_CAP = 512


def output_cap(purpose: Purpose) -> int:
    """The output cap of calls made for ``purpose`` (:data:`DEFAULT_OUTPUT_CAP` for one not in the table)."""
    return OUTPUT_CAPS.get(purpose, DEFAULT_OUTPUT_CAP)
