"""A task's reference solution as the demo oracles walk it: its steps, and how far an episode got.

The oracle knows *what to do* from the sim task's reference solution; these helpers say which solution
step a commanded or performed action carries out, how far a list of actions got and which deviations are
not undone yet, and what the next step is on a given screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import PAST_FORMS as _PAST
from latent_agent.benchmarks.steps import ScrollToStep, step_words
from latent_agent.demo.oracle_miniwob import TEXT_BOX
from latent_agent.demo.oracle_screens import field_name


def command_key(text: str) -> str | None:
    """What a commanded step (or a past-tense record of one) did, for matching against the solution.

    Scrolls and "no action" have no key: they do not advance the solution.
    """
    text = text.strip().rstrip(".")
    if not text or text.startswith(("Scroll", "Nothing", "No action", "None")):
        return None
    for present, past in _PAST:
        if text.startswith(past.strip()):
            text = present + text[len(past):]
            break
    return " ".join(text.split()).casefold()


@dataclass(frozen=True, slots=True)
class SolutionStep:
    """One step of a task's solution: its key (:func:`command_key`), its words, and the label it scrolls to first."""

    key: str
    words: str
    scroll_to: str | None


#: The key of a tap on a field named by what it is (a MiniWoB++ utterance's "the text field").
FIELD_KEY = f'tap "{TEXT_BOX}"'


def carries_out(key: str, step: SolutionStep, plan: Sequence[SolutionStep]) -> bool:
    """Whether a commanded step (by its key) carries out ``step`` of ``plan``.

    A tap on the text box is a tap on whatever name the field went by on its screen (its description, then
    the text typed into it), so any tap on a label that is none of the plan's other targets counts.
    """
    if key == step.key:
        return True
    return step.key == FIELD_KEY and key.startswith('tap "') and key not in {s.key for s in plan}


def solution_plan(task: Task) -> tuple[SolutionStep, ...]:
    """The steps of ``task``'s reference solution, each scroll-to folded into the step after it."""
    steps: list[SolutionStep] = []
    pending: str | None = None
    for action in task.solution:
        if isinstance(action, ScrollToStep):
            pending = action.label
            continue
        words = step_words(action)
        steps.append(SolutionStep(command_key(words) or words.casefold(), words, pending))
        pending = None
    return tuple(steps)


def walk(task: Task, items: Sequence[str]) -> tuple[int, list[str]]:
    """How far ``items`` (performed or commanded actions) got through the solution, and the
    deviations from it not yet undone (a repeated tap undoes a toggle, going back a wrong screen).

    Going back when nothing needs undoing returns to the screen of the step before: that
    step is to be done again.
    """
    plan = solution_plan(task)
    pos = 0
    open_: list[str] = []
    for item in items:
        key = command_key(item)
        if key is None:
            continue
        if open_ and key in (command_key(open_[-1]), "go back"):
            open_.pop()
        elif pos < len(plan) and carries_out(key, plan[pos], plan):
            pos += 1
        elif key == "go back" and pos > 0:
            pos -= 1
        else:
            open_.append(item)
    return pos, open_


def next_step(task: Task, pos: int, description: str) -> str | None:
    """The solution's step at ``pos`` as the screen ``description`` calls for it (None: the solution is done).

    A step whose target is not shown yet is a scroll; a tap on the text field names the field as the
    screen does.
    """
    plan = solution_plan(task)
    if pos >= len(plan):
        return None
    step = plan[pos]
    if step.scroll_to is not None and f'"{step.scroll_to}"' not in description:
        return "Scroll down"
    if step.key == FIELD_KEY and (name := field_name(description)) is not None:
        # The grounders' element lists name the field but do not say it is one: say it by its name.
        return f'Tap "{name}"'
    return step.words
