"""The latent-state chain: five estimates made by prompting the model (greedy decoding).

* previous action - what was really performed between the last screen and this one,
  given both screens and the commanded action (the prompt warns "I may be lying");
* screen summary - which app, which kind of screen, media playing, switch states;
* progression - the numbered list of actions inferred to have been performed;
* mistakes - what still needs correcting, or "No mistakes have been made.";
* completion - Yes/No, given the progression, the summary and the contemplated next action.

Each aspect has its template (``agent/prompts/latent_*.j2``), a prompt builder and a
parser here. The previous action and the screen summary do not depend on each other and
are asked at once; progression and mistakes follow in order. On the first step there is
no previous screen: the previous action is not estimated, the progression is
:data:`NOTHING_YET` and the mistakes are :data:`NO_MISTAKES`, with no call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.aio import both
from agent.calls import LLMCaller
from agent.templates import render
from agent.trajectory import LatentState

#: The progression while no action has been performed.
NOTHING_YET = "Nothing. You are just starting."
#: The mistakes estimate when there is nothing to correct.
NO_MISTAKES = "No mistakes have been made."

_NUMBERED = re.compile(r"^\s*(\d+)[.)]\s+(.*\S)\s*$")
_LEAD = "\"'*`_ \t"


@dataclass(frozen=True, slots=True)
class LatentInputs:
    """What the chain reads at one step.

    Attributes:
        goal: The normalized goal.
        description: The current screen description.
        previous_description: The previous screen's description (None on the first step).
        commanded: The step commanded at the previous screen (None on the first step).
        commanded_history: Every commanded step so far, oldest first.
        progression: The progression estimated at the previous step.
    """

    goal: str
    description: str
    previous_description: str | None
    commanded: str | None
    commanded_history: tuple[str, ...]
    progression: str = NOTHING_YET


# -- prompts ---------------------------------------------------------------------------------


def previous_action_prompt(before: str, after: str, commanded: str) -> str:
    return render("latent_previous_action.j2", before=before, after=after, commanded=commanded)


def screen_summary_prompt(description: str) -> str:
    return render("latent_screen_summary.j2", description=description)


def progression_prompt(goal: str, progression: str, previous_action: str, screen_summary: str) -> str:
    return render("latent_progression.j2", goal=goal, progression=progression,
                  previous_action=previous_action, screen_summary=screen_summary)


def mistakes_prompt(goal: str, commanded: tuple[str, ...], progression: str, screen_summary: str) -> str:
    return render("latent_mistakes.j2", goal=goal, commanded=commanded, progression=progression,
                  screen_summary=screen_summary)


def completion_prompt(goal: str, progression: str, screen_summary: str, next_action: str) -> str:
    return render("latent_completion.j2", goal=goal, progression=progression, screen_summary=screen_summary,
                  next_action=next_action)


# -- parsers ---------------------------------------------------------------------------------


def _paragraph(text: str) -> str:
    """The answer up to its first blank line, whitespace folded."""
    first = text.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def parse_previous_action(text: str) -> str:
    """The performed action, one sentence in the past tense ("Unknown." when the answer is empty)."""
    answer = _paragraph(text)
    if answer.lower().startswith("performed action:"):
        answer = answer[len("performed action:"):].strip()
    return answer or "Unknown."


def nothing_performed(previous_action: str) -> bool:
    """Whether a previous-action estimate says no action was performed."""
    return previous_action.lstrip(_LEAD).lower().startswith("nothing")


def parse_screen_summary(text: str) -> str:
    """The summary, whitespace folded."""
    return " ".join(text.split()) or "Unknown."


def parse_progression(text: str) -> str:
    """The numbered list, renumbered one action per line, or :data:`NOTHING_YET`.

    Lines that are not list items (a preamble, a closing remark) are dropped; an
    answer without any item keeps its text.
    """
    stripped = text.strip()
    if stripped.lstrip(_LEAD).lower().startswith("nothing"):
        return NOTHING_YET
    items = [m.group(2) for m in map(_NUMBERED.match, stripped.splitlines()) if m]
    if not items:
        return " ".join(stripped.split()) or NOTHING_YET
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def progression_items(progression: str) -> tuple[str, ...]:
    """The actions of a progression estimate (none for :data:`NOTHING_YET`)."""
    return tuple(m.group(2) for m in map(_NUMBERED.match, progression.splitlines()) if m)


def parse_mistakes(text: str) -> str:
    """The mistakes estimate, whitespace folded (:data:`NO_MISTAKES` for an empty answer)."""
    return " ".join(text.split()) or NO_MISTAKES


def no_mistakes(mistakes: str) -> bool:
    """Whether a mistakes estimate says there is nothing to correct."""
    return mistakes.lstrip(_LEAD).lower().startswith("no mistake")


def parse_completion(text: str) -> str:
    """The completion estimate, whitespace folded."""
    return " ".join(text.split())


def is_complete(completion: str) -> bool:
    """Whether a completion estimate begins with "Yes" (the ``+`` agents' stop rule)."""
    return completion.lstrip(_LEAD).lower().startswith("yes")


# -- the chain -------------------------------------------------------------------------------


async def estimate_latent(caller: LLMCaller, inputs: LatentInputs) -> LatentState:
    """Estimate previous action, screen summary, progression and mistakes for one step.

    The completion estimate is made later, once the next action is chosen
    (:func:`estimate_completion`).
    """
    summary_prompt = screen_summary_prompt(inputs.description)
    if inputs.previous_description is None or inputs.commanded is None:
        summary = parse_screen_summary((await caller.ask("screen_summary", summary_prompt)).text)
        return LatentState(previous_action=None, screen_summary=summary, progression=NOTHING_YET,
                           mistakes=NO_MISTAKES)
    previous_prompt = previous_action_prompt(inputs.previous_description, inputs.description, inputs.commanded)
    previous_answer, summary_answer = await both(
        caller.ask("previous_action", previous_prompt), caller.ask("screen_summary", summary_prompt)
    )
    previous = parse_previous_action(previous_answer.text)
    summary = parse_screen_summary(summary_answer.text)
    progression_answer = await caller.ask(
        "progression", progression_prompt(inputs.goal, inputs.progression, previous, summary)
    )
    progression = parse_progression(progression_answer.text)
    mistakes_answer = await caller.ask(
        "mistakes", mistakes_prompt(inputs.goal, inputs.commanded_history, progression, summary)
    )
    return LatentState(previous_action=previous, screen_summary=summary, progression=progression,
                       mistakes=parse_mistakes(mistakes_answer.text))


async def estimate_completion(caller: LLMCaller, goal: str, latent: LatentState, next_action: str) -> str:
    """The completion estimate for the contemplated ``next_action``."""
    completion = await caller.ask(
        "completion", completion_prompt(goal, latent.progression, latent.screen_summary, next_action)
    )
    return parse_completion(completion.text)
