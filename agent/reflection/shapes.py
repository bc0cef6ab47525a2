"""The shapes of structured reflection's answers (``--llm-structured on``): the plan and the reflection.

The paper's answers are text, so their shapes are patterns:

* the plan: on a phone, one step of the planner's vocabulary a line (``Tap "label"``, ``Open the NAME app``...,
  each placeholder filled in, never copied), at most :data:`~latent_agent.agent.reflection.policy.STAGE_CAP` of
  them, or ``DONE`` alone (:func:`~latent_agent.agent.reflection.policy.parse_plan`); on a web page, one of the paper's
  commands a line (``click id=N``, ``enter "TEXT" to id=N``, ``hold CTRL``, ``release CTRL``, ``press KEY x N``;
  :mod:`~latent_agent.agent.reflection.syntax`), none when the page needs nothing more;
* the reflection: ``For action index=A, you should B.`` with B such a step or command
  (:func:`~latent_agent.agent.reflection.policy.parse_reflection`).

The paraphrase of an executed action on a web page is a free sentence and stays so.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from latent_agent.agent.reflection.policy import DONE_WORD, PLAN_TEMPLATE, REFLECT_TEMPLATE, STAGE_CAP
from latent_agent.agent.reflection.purposes import PLAN, REFLECT
from latent_agent.agent.reflection.syntax import MODIFIER_NAMES
from latent_agent.agent.step_shapes import quoted, vocabulary_step
from latent_agent.device.web_page import WEB_KEYS
from latent_agent.purposes import Purpose
from latent_agent.shapes import AnswerShape, Pattern, ShapeRule, alt, chars, lines, optional, repeat, seq
from latent_agent.surfaces import Surface

#: An element's compact id.
_ID = seq(chars("0-9"), repeat(chars("0-9"), 0, 3))
#: A press count: 1 to 99, within the parser's 1 to :data:`~latent_agent.grounder.actions.MAX_PRESSES`.
_TIMES = seq(chars("1-9"), optional(chars("0-9")))


def web_command() -> Pattern:
    """One of the paper's commands on a web page, its text never the prompt's ``"TEXT"``."""
    keys = sorted(key.upper() for key in WEB_KEYS)
    held = sorted(name for name in MODIFIER_NAMES if name != "CONTROL")
    return alt(
        seq("click id=", _ID),
        seq("enter ", quoted(exclude=frozenset({"TEXT"})), " to id=", _ID),
        seq(alt("hold ", "release "), alt(*held)),
        seq("press ", alt(*keys), optional(seq(" x ", _TIMES))),
    )


def phone_step() -> Pattern:
    """One step of the planner's vocabulary on a phone but ``DONE`` (a plan is that word alone; a fix never is)."""
    return vocabulary_step(PLAN_TEMPLATE, REFLECT_TEMPLATE, leave_out=frozenset({DONE_WORD}))


def _index() -> Pattern:
    return seq(chars("1-9"), repeat(chars("0-9"), 0, 2))


@functools.cache
def plan_shape(surface: Surface) -> AnswerShape:
    """The plan's shape on ``surface``."""
    if surface.web:
        return AnswerShape.text("a structured-reflection plan of commands", lines(web_command(), 0, STAGE_CAP))
    return AnswerShape.text("a structured-reflection plan", alt(DONE_WORD, lines(phone_step(), 1, STAGE_CAP)))


@functools.cache
def reflection_shape(surface: Surface) -> AnswerShape:
    """The reflection's shape on ``surface``."""
    fix = web_command() if surface.web else phone_step()
    return AnswerShape.text("a structured reflection", seq("For action index=", _index(), ", you should ", fix, "."))


#: Structured reflection's call kinds and their shapes.
SHAPES: Mapping[Purpose, ShapeRule] = {PLAN: plan_shape, REFLECT: reflection_shape}
