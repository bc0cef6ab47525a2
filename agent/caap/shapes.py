"""The shape of CAAP's answer (``--llm-structured on``): the four parts, then the action lines.

The four parts (what has been done, the screen's components, the plan, the next actions) are the method's
reasoning in prose: lines of text, none holding ``=`` (so no line of prose can be read as an action line,
whose ``Action_k=`` :func:`~latent_agent.agent.caap.answer.parse_answer` looks for in every line), at most
:data:`PROSE_LINES` of them. The action lines follow, in the published form, one of the surface's catalogue
(:func:`~latent_agent.agent.caap.answer.catalogue`) a line::

    Action_4=(Action: functions.click_element, Argument: {element_id: element_12})
    Action_5=(Action: functions.type_text, Argument: {element_id: element_3, text: "dns.google"})

each function with its own arguments (an element as ``element_N``, text in double quotes, a number in digits,
a direction or a goal status from its list; optional ones optional). The CAAP variant without the reasoning
answers with the action lines alone, which the same shape admits.

The bounds keep the prose to the answer's form (lines of text, then the actions); they do not shorten it: CAAP's
output cap (1,024 tokens) comes first, and an answer that reaches it is cut there like any answer.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from latent_agent.agent.caap.answer import GOAL_STATUSES, Function, Parameter, catalogue
from latent_agent.agent.caap.purposes import CAAP
from latent_agent.agent.step_shapes import quoted
from latent_agent.device.base import DIRECTIONS
from latent_agent.purposes import Purpose
from latent_agent.shapes import AnswerShape, Pattern, ShapeRule, alt, chars, lines, optional, repeat, seq
from latent_agent.surfaces import Surface

#: Most lines of prose before the action lines, and their length in characters (the second part may enumerate a
#: screen's entries on one line: the stand-in's run to 700 characters on a screen of 20 elements).
PROSE_LINES = 24
PROSE_CHARS = 1000
#: Most action lines of one answer.
ACTION_LINES = 8
#: Arguments whose values come from a list, by name.
_CHOICES: dict[str, tuple[str, ...]] = {"direction": DIRECTIONS, "goal_status": GOAL_STATUSES}


def _number() -> Pattern:
    return seq(chars("0-9"), repeat(chars("0-9"), 0, 4))


def _value(parameter: Parameter) -> Pattern:
    """How one argument's value is written."""
    if parameter.name in _CHOICES:
        return alt(*_CHOICES[parameter.name])
    if parameter.name == "element_id":
        return seq("element_", _number())
    if parameter.type == "integer":
        return _number()
    return quoted(high=120)


def _arguments(function: Function) -> Pattern:
    """``{name: value, ...}``: the required arguments in order, each optional one optional after them."""
    required = [p for p in function.parameters if p.required]
    optional_ones = [p for p in function.parameters if not p.required]
    parts: list[Pattern | str] = []
    for i, parameter in enumerate(required):
        parts.extend([", " if i else "", f"{parameter.name}: ", _value(parameter)])
    for parameter in optional_ones:
        parts.append(optional(seq(", " if required else "", f"{parameter.name}: ", _value(parameter))))
    return seq("{", *parts, "}") if parts else seq("{}")


def action_line(functions: Mapping[str, Function]) -> Pattern:
    """One action line of ``functions``."""
    calls = [seq(f"functions.{f.name}, Argument: ", _arguments(f)) for f in functions.values()]
    return seq("Action_", chars("1-9"), repeat(chars("0-9"), 0, 2), "=(Action: ", alt(*calls), ")")


def answer(surface: Surface) -> Pattern:
    """The four parts' prose, then the action lines of ``surface``'s catalogue."""
    prose = repeat(seq(repeat(chars("\n=", negated=True), 0, PROSE_CHARS), "\n"), 0, PROSE_LINES)
    return seq(prose, lines(action_line(catalogue(surface)), 1, ACTION_LINES))


@functools.cache
def caap_shape(surface: Surface) -> AnswerShape:
    """CAAP's answer's shape on ``surface``."""
    return AnswerShape.text("CAAP's answer on a web page" if surface.web else "CAAP's answer", answer(surface))


#: CAAP's call kinds with a shape (its demonstrations' rationales are free sentences).
SHAPES: Mapping[Purpose, ShapeRule] = {CAAP: caap_shape}
