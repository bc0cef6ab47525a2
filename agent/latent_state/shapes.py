"""The shapes of the latent-state method's answers that have a form (``--llm-structured on``).

* The completion estimate (E.5): ``Yes`` or ``No``, as the prompt asks, perhaps followed by a short reason on the
  same line (``No. Part of the task has not been done yet.``); the ``+`` agents stop on a ``Yes``
  (:func:`~latent_agent.agent.latent_state.chain.is_complete`).
* CoT-SC's sample: a few lines of reasoning, then ``Answer: <step>`` on a line of its own, what
  :func:`~latent_agent.agent.latent_state.cot_sc.extract_answer` reads. Passed by the selector itself
  (:data:`COT_SC_SHAPE`): its purpose is ``select``, like zero-shot's free step.
* ReAct's turn: ``Thought: <thought>``, then ``Action: <step>`` on the next line (the worked examples' form), what
  :func:`~latent_agent.agent.latent_state.react.parse_react` reads (:data:`REACT_SHAPE`, passed by the selector).

The other estimates (the previous action, the screen summary, the progression, the mistakes) and zero-shot's
step are free text and stay so. The bounds keep an answer within its call's output cap: CoT-SC's reasoning to
about 300 tokens of its 512, ReAct's thought and action to about 150 of its 256.
"""

from __future__ import annotations

from collections.abc import Mapping

from latent_agent.agent.latent_state.purposes import COMPLETION
from latent_agent.purposes import Purpose
from latent_agent.shapes import AnswerShape, Chars, Pattern, ShapeRule, alt, chars, lines, optional, repeat, seq
from latent_agent.surfaces import Surface

#: Any character of a line.
_LINE = chars("\n", negated=True)
#: What starts a line of reasoning: anything but a space or a line's end.
_START = chars(" \t\n", negated=True)
#: What starts a step: a letter or a digit (a step of quote marks or emphasis alone reads as none, and casts no
#: vote in CoT-SC's majority).
_STEP_START = chars("A-Za-z0-9")


def _text(high: int, start: Chars = _START) -> Pattern:
    """A line's text that starts with ``start``, at most ``high`` characters."""
    return seq(start, repeat(_LINE, 0, high - 1))


COMPLETION_SHAPE = AnswerShape.text("the completion estimate", seq(
    alt("Yes", "No"), optional(seq(alt(".", ",", ":"), optional(seq(" ", _text(160)))))))
COT_SC_SHAPE = AnswerShape.text("a CoT-SC chain and its answer",
                                seq(lines(_text(240), 1, 4), "\nAnswer: ", _text(150, _STEP_START)))
REACT_SHAPE = AnswerShape.text("a ReAct thought and action",
                               seq("Thought: ", _text(300), "\nAction: ", _text(150, _STEP_START)))


def completion_shape(surface: Surface) -> AnswerShape:
    """The completion estimate's shape (the same on every surface)."""
    return COMPLETION_SHAPE


#: The method's call kinds with a shape of their own (the selectors' ``select`` calls pass theirs).
SHAPES: Mapping[Purpose, ShapeRule] = {COMPLETION: completion_shape}
