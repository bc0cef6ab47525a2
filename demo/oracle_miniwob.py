"""The demo stand-in's MiniWoB++ tasks: the steps an utterance asks for, in the form the oracle follows.

**Not a language model.** A MiniWoB++ page has no reference solution of ours (its own reward judges it),
so the stand-in reads the steps from the task's utterance, the goal every call carries as a structured
input, the way a person reads the query above the task: ``Click on the "no" button.`` is a tap on "no";
``Select A, B and click Submit.`` is a tap on each named checkbox, then on Submit; ``Enter "x" into the text
field and press Submit.`` is a tap on the text box (:data:`TEXT_BOX`), typing x, and a tap on Submit. The result is a
:class:`~latent_agent.benchmarks.sim_tasks.Task` whose solution the oracle then plays like a sim task's,
finding each step's target among the elements of the call's inputs (a button or checkbox is named by its
text on the page). It has no checks: the page's reward is the judge.

Some tasks ask for what only the page shows at the time (where an item is, which numbers are out of order,
what a spinner reads): their utterances are read into what they ask for (:class:`PageGoal`, :func:`page_goal`:
drag an item to a position, sort the numbers, choose an option of a list, spin to a value), and a stand-in
that can act on a web page works out the steps from each call's screen.

Utterances of other MiniWoB++ tasks are not recognised, so the demo refuses them as it refuses any goal
it does not know.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

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
# choose-list's "Select X from the list and click Submit." is not a list of boxes.
_CLICK_CHECKBOXES = re.compile(r"Select (?P<names>(?:(?! from the list).)*) and click Submit\.?", re.IGNORECASE)
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


# -- tasks whose steps depend on what the page shows -------------------------------------------------------

#: Where drag-items asks an item to go: to a numbered position, the top, the bottom, or one position up or down.
Placement = Literal["position", "top", "bottom", "up", "down"]


@dataclass(frozen=True, slots=True)
class DragItem:
    """drag-items: ``Drag Gerda to the 3rd position.`` (``to the top``, ``to the bottom``, ``up by one position``,
    ``down by one position``).

    Attributes:
        item: The item's text.
        placement: Where it goes.
        position: The 1-based position, for ``position``.
    """

    item: str
    placement: Placement
    position: int | None = None

    def target(self, start: int, count: int) -> int:
        """The 1-based position the item ends at, from ``start`` in a list of ``count`` items."""
        return {"top": 1, "bottom": count, "up": start - 1, "down": start + 1}.get(self.placement) \
            or (self.position or start)


@dataclass(frozen=True, slots=True)
class SortNumbers:
    """drag-sort-numbers: drag the listed numbers into increasing order, the lowest at the top, then Submit."""


@dataclass(frozen=True, slots=True)
class ChooseFromList:
    """choose-list: ``Select Bobine from the list and click Submit.``: the option of the page's list, then Submit."""

    option: str


@dataclass(frozen=True, slots=True)
class SpinTo:
    """use-spinner: ``Select -7 with the spinner and hit Submit.``: the spinner's arrows until it reads the value
    (the page takes no typing into it), then Submit."""

    value: int


PageGoal = DragItem | SortNumbers | ChooseFromList | SpinTo

_DRAG_ITEMS = re.compile(r"Drag (?P<item>.+?) (?:to the (?P<end>top|bottom)|(?P<way>up|down) by one position|"
                         r"to the (?P<n>\d+)(?:st|nd|rd|th) position)\.?", re.IGNORECASE)
_SORT_NUMBERS = re.compile(r"Sort the numbers in increasing order, starting with the lowest number at the top of "
                           r"the list\.?", re.IGNORECASE)
_CHOOSE_LIST = re.compile(r"Select (?P<option>.+) from the list and click Submit\.?", re.IGNORECASE)
_USE_SPINNER = re.compile(r"Select (?P<value>-?\d+) with the spinner and hit Submit\.?", re.IGNORECASE)


def _drag_item(match: re.Match[str]) -> PageGoal:
    if match["end"]:
        return DragItem(match["item"], "top" if match["end"].casefold() == "top" else "bottom")
    if match["way"]:
        return DragItem(match["item"], "up" if match["way"].casefold() == "up" else "down")
    return DragItem(match["item"], "position", int(match["n"]))


#: Each task whose steps depend on the page: the pattern of its utterance and what the match asks for.
_PAGE_READERS: dict[str, tuple[re.Pattern[str], Callable[[re.Match[str]], PageGoal]]] = {
    "drag-items": (_DRAG_ITEMS, _drag_item),
    "drag-sort-numbers": (_SORT_NUMBERS, lambda _: SortNumbers()),
    "choose-list": (_CHOOSE_LIST, lambda m: ChooseFromList(m["option"])),
    "use-spinner": (_USE_SPINNER, lambda m: SpinTo(int(m["value"]))),
}

#: The MiniWoB++ tasks whose utterance :func:`page_goal` reads.
PAGE_TASKS: tuple[str, ...] = tuple(_PAGE_READERS)


def page_goal(utterance: str) -> PageGoal | None:
    """What ``utterance`` asks for, when it is one of :data:`PAGE_TASKS`' utterances; None otherwise.

    Args:
        utterance: A MiniWoB++ task's utterance (the episode's goal).
    """
    text = " ".join(utterance.split())
    for pattern, read in _PAGE_READERS.values():
        match = pattern.fullmatch(text)
        if match is not None:
            return read(match)
    return None


# -- click-tab-2: a task whose state the Synapse paper filters ---------------------------------------------

_TAB_LINK = re.compile(r'Switch between the tabs to find and click on the link "(?P<link>.+)"\.?', re.IGNORECASE)
#: The MiniWoB++ tasks only the exemplar method's stand-in plays (from its filtered observation); click-tab-2-hard
#: poses the same utterance over tabs named by number only.
FILTERED_TASKS: tuple[str, ...] = ("click-tab-2", "click-tab-2-hard")


def tab_link(utterance: str) -> str | None:
    """click-tab-2's link: ``Switch between the tabs to find and click on the link "ac".`` asks for "ac"; None for
    another utterance. Only the exemplar method's stand-in plays it (its state filtering names the tab)."""
    match = _TAB_LINK.fullmatch(" ".join(utterance.split()))
    return match["link"] if match is not None else None
