"""The demo stand-in's exemplar method on a web page: Synapse's plans, filtered observations and reformulations.

**Not a language model.** Like the rest of :mod:`latent_agent.demo.oracle` it answers from a call's purpose and
structured inputs (the utterance, the page's HTML or its filtered observation), never from the prompt's wording.
What to do comes from the task's utterance (:mod:`latent_agent.demo.oracle_miniwob`); where to do it comes from
the HTML the call carries, and the plan names each element by an XPath of that HTML, in Synapse's commands
(:mod:`latent_agent.agent.exemplars.syntax`), so the method carries it out with no grounding call:

- ``exemplar_act``: the whole plan in one answer, as Synapse's exemplars plan a simple task: a named button's
  ``clickxpath``; each named checkbox not ticked yet (``//label[text()="X"]/input``) then Submit; the text field
  clicked, the text typed, then Submit (enter-text); the option chosen with ``clickoption`` then Submit
  (choose-list); the spinner's arrow clicked as many times as the value is away, then Submit (use-spinner, as
  the authors' exemplars do it); on click-tab-2, from its filtered observation, the tab and then the link in it;
- ``exemplar_abstract`` (click-tab-2, a task the paper filters): the observation the authors' code writes for
  it, ``Click on the link "X" in Tab #k``, found in the raw HTML; it does not read the examples;
- ``exemplar_reformulate`` (use-spinner, one of the tasks the paper reformulates): the value to reach and the
  clicks it takes from the value the page shows.

Any other utterance is refused, as the demo refuses any goal it does not know. It does not read the
exemplars: demo figures measure the machinery (calls, plans carried out without grounding, the memory recipe),
not what demonstrations teach a model.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import lxml.html

from latent_agent.agent.exemplars.policy import SURFACE_INPUT
from latent_agent.agent.exemplars.purposes import EXEMPLAR_ABSTRACT, EXEMPLAR_ACT, EXEMPLAR_REFORMULATE
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import TapStep, TypeStep
from latent_agent.demo.oracle_inputs import Inputs, text_input
from latent_agent.demo.oracle_miniwob import SUBMIT, TEXT_BOX, ChooseFromList, SpinTo, page_goal, tab_link
from latent_agent.errors import LLMRequestError

#: The classes of a jQuery UI spinner's field and of its two arrows.
SPINNER_FIELD = "ui-spinner-input"
SPIN_UP, SPIN_DOWN = "ui-spinner-up", "ui-spinner-down"

#: The observation the authors' code writes for click-tab-2, which the act reads back.
_TAB_LINK = re.compile(r'Click on the link "(?P<link>.+)" in Tab #(?P<tab>\d+)')


def is_web_call(inputs: Inputs) -> bool:
    """Whether an exemplar call was made on a web page (its inputs name the surface)."""
    return inputs.get(SURFACE_INPUT) == "web_page"


def literal(text: str) -> str:
    """``text`` as an XPath string literal (XPath 1.0 has no escapes: quotes of both kinds need ``concat``)."""
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    parts = text.split('"')
    return "concat(" + ", '\"', ".join(f'"{p}"' for p in parts) + ")"


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _document(html: str) -> lxml.html.HtmlElement:
    if not html.strip():
        raise LLMRequestError("the demo stand-in needs the page's HTML; the call's observation is empty")
    return lxml.html.document_fromstring(html)


def _click_named(document: lxml.html.HtmlElement, label: str) -> str | None:
    """The command that clicks what a person calls ``label`` (a checkbox by its label, a button, a link), or
    None when it needs no click (a checkbox already ticked)."""
    for element in document.iter():
        if not isinstance(element.tag, str) or _fold(element.text_content()) != _fold(label):
            continue
        if element.tag == "label":
            box = element.find("input")
            if box is not None:
                return None if box.get("checked") is not None else f"clickxpath //label[text()={literal(label)}]/input"
        if element.tag in ("button", "a", "span", "div", "li", "label") and not len(element):
            return f"clickxpath //{element.tag}[text()={literal(label)}]"
    raise LLMRequestError(f"the demo stand-in finds nothing called {label!r} on the page")


def _field(document: lxml.html.HtmlElement) -> str:
    """The XPath of the page's first text field."""
    for field in document.iter("input", "textarea"):
        if field.tag == "textarea" or (field.get("type") or "text").lower() in ("text", "password", "email", "search"):
            return f"//{field.tag}[@id={literal(field.get('id') or '')}]" if field.get("id") else \
                f"(//{field.tag})[1]"
    raise LLMRequestError("the demo stand-in finds no text field on the page")


def _solution(task: Task, document: lxml.html.HtmlElement) -> list[str]:
    lines: list[str] = []
    for step in task.solution:
        if isinstance(step, TapStep) and step.label == TEXT_BOX:
            lines.append(f"clickxpath {_field(document)}")
        elif isinstance(step, TapStep):
            command = _click_named(document, step.label)
            if command is not None:
                lines.append(command)
        elif isinstance(step, TypeStep):
            lines.append(f'type "{step.text}"')
        else:
            raise LLMRequestError(f"the demo stand-in plays Synapse on a web page by clicks and typing only; {task.id} "
                                  f"has the step {step!r}")
    return lines


def _spinner_value(document: lxml.html.HtmlElement) -> int:
    field = next((f for f in document.iter("input") if SPINNER_FIELD in (f.get("class") or "").split()), None)
    if field is None:
        raise LLMRequestError("the demo stand-in finds no spinner on the page")
    try:
        return int(field.get("value") or "0")
    except ValueError:
        raise LLMRequestError(f"the spinner reads {field.get('value')!r}, not a number") from None


def _spin(wanted: SpinTo, document: lxml.html.HtmlElement) -> list[str]:
    moves = wanted.value - _spinner_value(document)
    arrow = SPIN_UP if moves > 0 else SPIN_DOWN
    clicks = [f'clickxpath //a[contains(@class, "{arrow}")]'] * abs(moves)
    return [*clicks, f"clickxpath //button[text()={literal(SUBMIT)}]"]


def _choose(wanted: ChooseFromList, document: lxml.html.HtmlElement) -> list[str]:
    select = next(document.iter("select"), None)
    if select is None:
        raise LLMRequestError("the demo stand-in finds no list (<select>) on the page")
    where = f"//select[@id={literal(select.get('id') or '')}]" if select.get("id") else "//select"
    return [f"clickoption {where}/option[text()={literal(wanted.option)}]",
            f"clickxpath //button[text()={literal(SUBMIT)}]"]


class WebExemplarPlayer:
    """Answers the exemplar method's calls on a web page (see the module docstring).

    Args:
        task_of: The task a goal names (the demo's own lookup, reading a MiniWoB++ utterance's steps); raises
            :class:`~latent_agent.errors.LLMRequestError` for a goal it does not know.
    """

    def __init__(self, task_of: Callable[[str], Task]) -> None:
        self.task_of = task_of

    def act(self, inputs: Inputs) -> str:
        """The numbered plan for the call's observation."""
        goal = text_input(inputs, "goal")
        observation = text_input(inputs, "observation")
        if tab_link(goal) is not None:
            found = _TAB_LINK.search(observation)
            if found is None:
                raise LLMRequestError("the demo stand-in plays click-tab-2 from its filtered observation "
                                      '("Click on the link ... in Tab #k"), which the call does not carry')
            tab, link = found["tab"], found["link"]
            lines = [f"clickxpath //a[@href={literal('#tabs-' + tab)}]",
                     f"clickxpath //div[@id={literal('tabs-' + tab)}]//span[text()={literal(link)}]"]
        else:
            document = _document(observation)
            wanted = page_goal(goal)
            if isinstance(wanted, ChooseFromList):
                lines = _choose(wanted, document)
            elif isinstance(wanted, SpinTo):
                lines = _spin(wanted, document)
            elif wanted is not None:
                raise LLMRequestError(f"the demo stand-in cannot play {goal!r} with Synapse's commands: a drag "
                                      "cannot be said in them (clickxpath, type, press, movemouse, clickoption)")
            else:
                lines = _solution(self.task_of(goal), document)
        return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))

    def abstract(self, inputs: Inputs) -> str:
        """click-tab-2's filtered observation: which tab holds the link."""
        goal = text_input(inputs, "goal")
        link = tab_link(goal)
        if link is None:
            raise LLMRequestError(f"the demo stand-in filters a web page's state only for click-tab-2; not {goal!r}")
        document = _document(text_input(inputs, "screen"))
        for number, panel in enumerate(document.find_class("ui-tabs-panel"), start=1):
            if any(_fold(span.text_content()) == _fold(link) for span in panel.iter("span")):
                return f'Click on the link "{link}" in Tab #{number}'
        raise LLMRequestError(f"the demo stand-in finds the link {link!r} in no tab of the page")

    def reformulate(self, inputs: Inputs) -> str:
        """use-spinner's explicit task: the value to reach and the clicks it takes from the value shown."""
        goal = text_input(inputs, "goal")
        wanted = page_goal(goal)
        if not isinstance(wanted, SpinTo):
            raise LLMRequestError(f"the demo stand-in reformulates a web page's task only for use-spinner, not "
                                  f"{goal!r}")
        now = _spinner_value(_document(text_input(inputs, "observation")))
        moves = wanted.value - now
        way = "up" if moves >= 0 else "down"
        return (f"The spinner shows {now}; click its {way} arrow {abs(moves)} time(s) to reach {wanted.value}, "
                "then click Submit.")

    def handlers(self) -> dict[str, Callable[[Inputs], str]]:
        """Its answers by purpose."""
        return {EXEMPLAR_ACT: self.act, EXEMPLAR_ABSTRACT: self.abstract,
                EXEMPLAR_REFORMULATE: self.reformulate}
