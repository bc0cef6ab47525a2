"""The demo stand-in's structured reflection on a web page: plans, reflections and paraphrases in the paper's ids.

**Not a language model.** Like the rest of :mod:`latent_agent.demo.oracle`, it answers from a call's purpose and
structured inputs, never from the prompt's wording. On a web page the method's calls carry the page's compact
screen as element records (``elements``: id, tag, classes, text, value, checked; the facts the prompt's compact
HTML writes), and the player works out from them, and from what the task's utterance asks for, what is still to
be done on this page:

- ``plan``: the commands of :mod:`latent_agent.agent.reflection.syntax` doable on this page, one a line
  (``click id=N`` on each named checkbox not ticked yet, ``enter "TEXT" to id=N`` into the text field unless it
  holds the text, the list opened by ``click id=N`` and the wanted option reached by ``press ARROWDOWN x N``, a
  spinner's arrow clicked once and then ``press ARROWUP x N``, and ``click id=N`` on the button that ends the
  task). Actions on elements not shown yet are left to the next stage, as the paper's planner does.
- ``reflect``: the first step of the trial that is not what it would have planned on that step's page, and
  its own command there ("For action index=A, you should B.").
- ``paraphrase``: the executed command in words, naming the element by what it shows.

It plays the MiniWoB++ tasks whose steps it reads from the utterance (:mod:`latent_agent.demo.oracle_miniwob`):
click-button, click-checkboxes and enter-text from their solutions, choose-list and use-spinner from what they
ask for. A drag (drag-items, drag-sort-numbers) cannot be said in structured reflection's commands (the paper
has no drag), so it refuses those tasks, as it refuses any goal it does not know.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from latent_agent.agent.reflection.syntax import ClickId, EnterText, parse_command
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import TapStep, TypeStep
from latent_agent.demo.oracle_inputs import Inputs, list_input, text_input
from latent_agent.demo.oracle_miniwob import TEXT_BOX, ChooseFromList, SpinTo, page_goal
from latent_agent.errors import GroundingError, LLMRequestError

#: One element of the compact screen, as the call carries it.
Element = Mapping[str, Any]

#: The tags of a field text is entered into (an ``<input>``'s tag carries its type).
FIELD_TAGS = frozenset({"input_text", "input_password", "input_email", "input_search", "input_tel", "input_url",
                        "input_number", "textarea"})
#: The tags of an element a click ticks.
TICKED_TAGS = frozenset({"input_checkbox", "input_radio"})
#: The tag of a piece of text standing beside elements (a checkbox's label text).
TEXT_TAG = "t"
#: The classes of a jQuery UI spinner's field and of the icons of its two arrows.
SPINNER_FIELD = "ui-spinner-input"
SPIN_UP, SPIN_DOWN = "ui-icon-triangle-1-n", "ui-icon-triangle-1-s"
#: The button every form task ends with.
SUBMIT = "Submit"


def is_web_call(inputs: Inputs) -> bool:
    """Whether a reflection call was made on a web page (it carries the page's elements, not a description)."""
    return "elements" in inputs or any(isinstance(b, Mapping) and "elements" in b for b in inputs.get("blocks", ()))


def _elements(inputs: Inputs | Mapping[str, Any]) -> list[Element]:
    return [e for e in list_input(inputs, "elements") if isinstance(e, Mapping)]


def _fold(text: object) -> str:
    return " ".join(str(text).split()).casefold()


def _by_text(elements: Sequence[Element], label: str) -> Element | None:
    """The element a person would click for ``label``: a checkbox or radio for the text beside it, else the
    element showing the text."""
    for index, element in enumerate(elements):
        if _fold(element.get("text", "")) != _fold(label):
            continue
        if element.get("tag") == TEXT_TAG and index > 0 and elements[index - 1].get("tag") in TICKED_TAGS:
            return elements[index - 1]  # the box its label holds, just before its text
        return element
    return None


def _with_class(elements: Sequence[Element], name: str) -> Element | None:
    return next((e for e in elements if name in (e.get("classes") or ())), None)


def _submit(elements: Sequence[Element]) -> list[str]:
    button = _by_text(elements, SUBMIT)
    return [f"click id={button['id']}"] if button is not None else []


def _follow(task: Task, elements: Sequence[Element]) -> list[str]:
    """The solution's commands still to do on this page, up to the first whose element is not shown."""
    lines: list[str] = []
    steps = list(task.solution)
    i = 0
    while i < len(steps):
        step = steps[i]
        if isinstance(step, TapStep) and step.label == TEXT_BOX and i + 1 < len(steps) \
                and isinstance(typed := steps[i + 1], TypeStep):
            field = next((e for e in elements if e.get("tag") in FIELD_TAGS), None)
            if field is None:
                break
            if field.get("value") != typed.text:
                lines.append(f'enter "{typed.text}" to id={field["id"]}')
            i += 2
            continue
        if not isinstance(step, TapStep):
            raise LLMRequestError(f"the demo stand-in plays structured reflection on a web page by clicks and "
                                  f"entered text only; {task.id} has the step {step!r}")
        target = _by_text(elements, step.label)
        if target is None:
            break  # not on this page yet: a later stage plans it
        if not (target.get("tag") in TICKED_TAGS and target.get("checked")):
            lines.append(f"click id={target['id']}")
        i += 1
    return lines


def _choose(wanted: ChooseFromList, elements: Sequence[Element]) -> list[str]:
    """choose-list: open the list, reach the option with the arrow keys (the list must be shown to count the
    presses: it opens in one stage and is walked in the next), then Submit."""
    chosen = next((e for e in elements if e.get("tag") == "select"), None)
    if chosen is None:
        raise LLMRequestError("the demo stand-in finds no list (<select>) on the page")
    if _fold(chosen.get("value", "")) == _fold(wanted.option):
        return _submit(elements)
    rows = _rows(elements, str(chosen.get("value", "")))
    if not rows:
        return [f"click id={chosen['id']}"]
    texts = [_fold(r.get("text", "")) for r in rows]
    if _fold(wanted.option) not in texts:
        raise LLMRequestError(f"the demo stand-in finds no option {wanted.option!r} in the opened list")
    moves = texts.index(_fold(wanted.option)) - texts.index(_fold(chosen.get("value", "")))
    key = "ARROWDOWN" if moves > 0 else "ARROWUP"
    return [f"press {key} x {abs(moves)}", *_submit(elements)]


def _rows(elements: Sequence[Element], current: str) -> list[Element]:
    """The opened list's options: the run of unlabelled ``div`` leaves that holds the chosen one."""
    runs: list[list[Element]] = [[]]
    for element in elements:
        if element.get("tag") == "div" and not element.get("classes"):
            runs[-1].append(element)
        elif runs[-1]:
            runs.append([])
    return next((run for run in runs if any(_fold(r.get("text", "")) == _fold(current) for r in run)), [])


def _spin(wanted: SpinTo, elements: Sequence[Element]) -> list[str]:
    """use-spinner: one click on the arrow towards the value (it focuses the spinner's field), the arrow key for
    the rest (the field takes no typing), then Submit."""
    field = _with_class(elements, SPINNER_FIELD)
    if field is None:
        raise LLMRequestError("the demo stand-in finds no spinner on the page")
    try:
        now = int(str(field.get("value") or "0"))
    except ValueError:
        raise LLMRequestError(f"the spinner reads {field.get('value')!r}, not a number") from None
    moves = wanted.value - now
    if moves == 0:
        return _submit(elements)
    arrow = _with_class(elements, SPIN_UP if moves > 0 else SPIN_DOWN)
    if arrow is None:
        raise LLMRequestError("the demo stand-in finds no arrow of the spinner on the page")
    lines = [f"click id={arrow['id']}"]
    if abs(moves) > 1:
        lines.append(f"press {'ARROWUP' if moves > 0 else 'ARROWDOWN'} x {abs(moves) - 1}")
    return [*lines, *_submit(elements)]


class WebReflectionPlayer:
    """Answers structured reflection's calls on a web page.

    Args:
        task_of: The task a goal names (the demo's own lookup: a sim task or a MiniWoB++ task read from its
            utterance); raises :class:`~latent_agent.errors.LLMRequestError` for a goal it does not know.
    """

    def __init__(self, task_of: Callable[[str], Task]) -> None:
        self.task_of = task_of

    def commands(self, goal: str, elements: Sequence[Element]) -> list[str]:
        """What is still to do on the page ``elements`` shows, as commands, in order."""
        wanted = page_goal(goal)
        if isinstance(wanted, ChooseFromList):
            return _choose(wanted, elements)
        if isinstance(wanted, SpinTo):
            return _spin(wanted, elements)
        if wanted is not None:
            raise LLMRequestError(f"the demo stand-in cannot play {goal!r} with structured reflection: a drag "
                                  f"cannot be said in its commands (click, enter, keys; the paper has no drag)")
        return _follow(self.task_of(goal), elements)

    def plan(self, inputs: Inputs) -> str:
        """The stage's plan: the commands doable on this page (an empty plan once nothing is left to do)."""
        return "\n".join(self.commands(text_input(inputs, "goal"), _elements(inputs)))

    def reflect(self, inputs: Inputs) -> str:
        """The first step that is not what the player would have done on its page, and the player's command there;
        a trial that did all of that gets its last step again (it did not take effect)."""
        goal = text_input(inputs, "goal")
        blocks = [b for b in list_input(inputs, "blocks") if isinstance(b, Mapping)]
        if not blocks:
            raise LLMRequestError("the demo stand-in has no step to reflect on")
        for index, block in enumerate(blocks, start=1):
            planned = self.commands(goal, _elements(block))
            if planned and _key(planned[0]) != _key(str(block.get("action", ""))):
                return f"For action index={index}, you should {planned[0]}."
        return f"For action index={len(blocks)}, you should {blocks[-1].get('action', '')}."

    def paraphrase(self, inputs: Inputs) -> str:
        """The executed command in words: what it did to which element, named by what the element shows."""
        action = text_input(inputs, "action")
        elements = _elements(inputs)
        try:
            command = parse_command(action)
        except GroundingError:
            command = None
        if isinstance(command, EnterText):
            field = next((e for e in elements if e.get("id") == command.element), None)
            where = f'the field "{field["placeholder"]}"' if field is not None and field.get("placeholder") \
                else "the text field"
            return f'Typed "{command.text}" into {where}.'
        if isinstance(command, ClickId):
            index = next((i for i, e in enumerate(elements) if e.get("id") == command.element), None)
            if index is not None:
                return _clicked(elements, index)
        return f"Did this: {action}."


def _clicked(elements: Sequence[Element], index: int) -> str:
    element = elements[index]
    tag = str(element.get("tag", ""))
    if tag in TICKED_TAGS:
        after = elements[index + 1] if index + 1 < len(elements) else None
        label = str(after.get("text", "")) if after is not None and after.get("tag") == TEXT_TAG else ""
        state = "unticked" if element.get("checked") else "ticked"
        return f'{state.capitalize()} the box "{label}".' if label else f"{state.capitalize()} a box."
    classes = element.get("classes") or ()
    if SPIN_UP in classes or SPIN_DOWN in classes:
        return f"Turned the spinner {'up' if SPIN_UP in classes else 'down'} by one."
    if tag == "select":
        return "Opened the list of options."
    text = str(element.get("text", ""))
    return f'Clicked "{text}".' if text else f"Clicked the {tag} element."


def _key(line: str) -> str:
    """A command as compared between a plan and what was done (case and spacing ignored)."""
    try:
        command = parse_command(line)
    except GroundingError:
        command = None
    return str(command) if command is not None else _fold(line)
