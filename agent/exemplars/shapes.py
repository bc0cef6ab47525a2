"""The shape of the exemplar methods' step list (``--llm-structured on``).

* On a phone: the numbered steps of the system prompt's vocabulary (``1. Open the Clock app``, ``2. Tap
  "Alarm"``...), each placeholder filled in, never copied, at most
  :data:`~latent_agent.agent.exemplars.policy.PIECE_STEP_CAP` of them, the last one ``DONE`` where the task is
  complete after them (``1. DONE`` alone where it is complete already;
  :func:`~latent_agent.agent.exemplars.policy.parse_steps`).
* On a web page: Synapse's numbered commands (``1. clickxpath //button[text()="Submit"]``, ``type "Bob"``,
  ``press enter``, ``movemouse``, ``clickoption``; :mod:`~latent_agent.agent.exemplars.syntax`), each XPath one
  the parser can evaluate: steps of tags (or ``*``, ``text()``) under ``/`` or ``//``, each with predicates that
  compare an attribute, ``text()`` or ``.`` to a quoted string, test ``contains(...)``, or take a position.

The state abstraction and the task reformulation are free text and stay so.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from latent_agent.agent.exemplars.policy import DONE_WORD, PIECE_STEP_CAP, SYSTEM_TEMPLATE
from latent_agent.agent.exemplars.purposes import EXEMPLAR_ACT
from latent_agent.agent.exemplars.syntax import KEYS, PLACEHOLDERS
from latent_agent.agent.step_shapes import numbered, quoted, vocabulary_step
from latent_agent.purposes import Purpose
from latent_agent.shapes import AnswerShape, Pattern, ShapeRule, alt, chars, repeat, seq
from latent_agent.surfaces import Surface

#: Most commands of one plan the shape allows: above the longest published plan (about 15 actions).
WEB_PLAN_LINES = 20


def _name() -> Pattern:
    """A tag or attribute name."""
    return seq(chars("A-Za-z_"), repeat(chars("A-Za-z0-9_-"), 0, 30))


def _literal() -> Pattern:
    """An XPath string, in either quotes."""
    return alt(seq('"', repeat(chars('"\n', negated=True), 0, 60), '"'),
               seq("'", repeat(chars("'\n", negated=True), 0, 60), "'"))


def xpath() -> Pattern:
    """An XPath of the task area's HTML that the parser can evaluate (see the module docstring)."""
    operand = alt(seq("@", _name()), "text()", ".")
    test = alt(seq(operand, "=", _literal()), seq("contains(", operand, ", ", _literal(), ")"),
               seq(chars("1-9"), repeat(chars("0-9"), 0, 2)))
    step = seq(alt(_name(), "*", "text()"), repeat(seq("[", test, "]"), 0, 3))
    path = seq(alt("//", "/"), step, repeat(seq(alt("//", "/"), step), 0, 7))
    return alt(path, seq("(", path, ")[", chars("1-9"), repeat(chars("0-9"), 0, 2), "]"))


def web_command() -> Pattern:
    """One of Synapse's commands, its text and XPath never the prompt's placeholders."""
    return alt(
        seq(alt("clickxpath ", "movemouse ", "clickoption "), xpath()),
        seq("type ", quoted(exclude=PLACEHOLDERS)),
        seq("press ", alt(*(key for key in KEYS if not key.startswith("ctrl")))),
    )


@functools.cache
def steps_shape(surface: Surface) -> AnswerShape:
    """The step list's shape on ``surface``."""
    if surface.web:
        return AnswerShape.text("Synapse's plan of commands", numbered(web_command(), WEB_PLAN_LINES))
    step = vocabulary_step(SYSTEM_TEMPLATE, leave_out=frozenset({DONE_WORD}))
    return AnswerShape.text("the exemplar method's steps", numbered(step, PIECE_STEP_CAP, last=alt(step, DONE_WORD)))


#: The exemplar methods' call kinds with a shape.
SHAPES: Mapping[Purpose, ShapeRule] = {EXEMPLAR_ACT: steps_shape}
