"""The demo stand-in's MiniWoB++ tasks: the steps an utterance asks for, in the form the oracle follows.

**Not a language model.** A MiniWoB++ page has no reference solution of ours (its own reward judges it),
so the stand-in reads the steps from the task's utterance, the goal every call carries as a structured
input, the way a person reads the query above the task: ``Click on the "no" button.`` is a tap on "no";
``Select A, B and click Submit.`` is a tap on each named checkbox, then on Submit; ``Enter "x" into the text
field and press Submit.`` is a tap on the text box (:data:`TEXT_BOX`), typing x, and a tap on Submit. The result is a
:class:`~latent_agent.benchmarks.sim_tasks.Task` whose solution the oracle then plays like a sim task's,
finding each step's target among the elements of the call's inputs (a button or checkbox is named by its
text on the page). It has no checks: the page's reward is the judge.

Utterances of other MiniWoB++ tasks are not recognised, so the demo refuses them as it refuses any goal
it does not know.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from latent_agent.accessibility.widgets import Kind
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import Step, TapStep, TypeStep

#: The button every form task ends with.
SUBMIT = "Submit"
#: The label of a tap on "the text field", which the utterance names by what it is, not by a name on the page:
#: the oracle taps the screen's first text box, by whatever name the call's screen gives it.
TEXT_BOX = Kind.TEXT_BOX.value

# Some calls carry the goal in lower case (mid-sentence); labels are matched without case anyway.
_CLICK_BUTTON = re.compile(r'Click on the "(?P<label>[^"]+)" button\.?', re.IGNORECASE)
_CLICK_CHECKBOXES = re.compile(r"Select (?P<names>.*) and click Submit\.?", re.IGNORECASE)
_ENTER_TEXT = re.compile(r'Enter "(?P<text>[^"]*)" into the text field and press Submit\.?', re.IGNORECASE)


def _click_button(match: re.Match[str]) -> tuple[Step, ...]:
    return (TapStep(match["label"]),)


def _click_checkboxes(match: re.Match[str]) -> tuple[Step, ...]:
    # The page joins the names with ", " and says "nothing" when no box is to be ticked; every box
    # starts unticked, so ticking the named ones is the whole choice.
    names = match["names"]
    boxes = () if names.casefold() == "nothing" else tuple(TapStep(name) for name in names.split(", "))
    return (*boxes, TapStep(SUBMIT))


def _enter_text(match: re.Match[str]) -> tuple[Step, ...]:
    # Typing goes into the focused field, and a page focuses none by itself: the field is tapped first.
    return TapStep(TEXT_BOX), TypeStep(match["text"]), TapStep(SUBMIT)


#: Each task the stand-in plays: the pattern of its utterance and the steps the pattern's match asks for.
_READERS: dict[str, tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[Step, ...]]]] = {
    "click-button": (_CLICK_BUTTON, _click_button),
    "click-checkboxes": (_CLICK_CHECKBOXES, _click_checkboxes),
    "enter-text": (_ENTER_TEXT, _enter_text),
}

#: The MiniWoB++ tasks the demo stand-in plays.
PLAYED_TASKS: tuple[str, ...] = tuple(_READERS)


def miniwob_task(utterance: str) -> Task | None:
    """The task ``utterance`` poses, with the steps it asks for as its solution; None when not one the demo plays.

    Args:
        utterance: A MiniWoB++ task's utterance (the episode's goal).
    """
    text = " ".join(utterance.split())
    for name, (pattern, steps) in _READERS.items():
        match = pattern.fullmatch(text)
        if match is not None:
            return Task(id=f"miniwob:{name}", app="", goal=text, success=(), partial=(), solution=steps(match))
    return None
