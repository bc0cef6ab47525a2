"""Goal normalization: the user's goal rephrased once per episode as a proper imperative sentence.

The rephrasing is used only when it keeps the goal's content (:mod:`latent_agent.agent.goal_guard`);
otherwise the episode runs on the user's own words and records why (``EpisodeHeader.goal_rejected``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from latent_agent.agent.calls import LLMCaller, PromptCall, cut_reason, truncated
from latent_agent.agent.goal_guard import rewrite_problem
from latent_agent.purposes import call_kind
from latent_agent.surfaces import PHONE, SURFACES, Surface

TEMPLATE = "normalize_goal.j2"
#: The label of each request in the few-shot prompt, and of each answer.
REQUEST_LABEL = "Request:"
ANSWER_LABEL = "Rephrased:"
# A sentinel goal for reading the template's own examples: nothing a template would show.
_PROBE = "\x00goal\x00"
#: The goal rewritten as one imperative sentence; a goal is at most 2,000 characters (``MAX_GOAL_CHARS``, ~500 tokens).
NORMALIZE_GOAL = call_kind("normalize_goal", cap=640, summary="the goal rewritten as one imperative sentence")


def goal_clause(goal: str) -> str:
    """The goal as it follows "I asked you to use an Android phone to": ``Turn off Wi-Fi.`` -> ``turn off Wi-Fi.``

    Only an ordinary capitalized first word is lowered ("YouTube", "GPS" and "I" keep their case), and
    the clause always ends with punctuation.
    """
    text = " ".join(goal.split())
    first = text.split(" ", 1)[0]
    if len(first) > 1 and first[0].isupper() and first[1:].islower():
        text = text[0].lower() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def normalize_goal_call(goal: str, surface: Surface = PHONE) -> PromptCall:
    """The few-shot rephrasing call for ``goal`` on ``surface``."""
    return PromptCall.of(NORMALIZE_GOAL, TEMPLATE, surface, goal=goal.strip())


@cache
def prompt_examples() -> tuple[str, ...]:
    """Every request and rephrasing the few-shot prompt shows, read from the template itself.

    So the guard that refuses a copied example follows the template when its examples are edited; the examples
    of every surface count (a rephrasing copied from another surface's examples is no less a copy).
    """
    labels = re.compile(rf"^\s*(?:{re.escape(REQUEST_LABEL)}|{re.escape(ANSWER_LABEL)})\s*(.*)$")
    lines = [line for surface in SURFACES.values() for line in normalize_goal_call(_PROBE, surface).prompt.splitlines()]
    found = (labels.match(line) for line in lines)
    return tuple(dict.fromkeys(m.group(1).strip() for m in found if m is not None and m.group(1).strip()
                               and _PROBE not in m.group(1)))


def parse_normalized_goal(text: str, original: str) -> str:
    """The rephrased goal: the answer's first line without labels or quotes.

    An empty answer keeps the user's own wording (rephrasing only polishes the goal;
    an episode is still meaningful without it).
    """
    for line in text.splitlines():
        line = line.strip()
        if line.lower().startswith(ANSWER_LABEL.lower()):
            line = line[len(ANSWER_LABEL):].strip()
        elif line.lower().startswith(REQUEST_LABEL.lower()):
            continue
        line = line.strip("\"'` ")
        if line:
            return line
    return original.strip()


@dataclass(frozen=True, slots=True)
class GoalChoice:
    """The goal an episode pursues.

    Attributes:
        goal: The goal in use: the rephrasing, or the user's own goal when it was refused.
        rejected: Why the model's rephrasing was refused (it is kept in the call's record); None when used.
    """

    goal: str
    rejected: str | None = None


def choose_goal(answer: str, original: str, *, cut: bool = False) -> GoalChoice:
    """The goal to use given the model's rephrasing ``answer`` of ``original``.

    Args:
        answer: The normalization call's answer.
        original: The user's goal.
        cut: Whether the answer was cut at its output cap (then it is not used).
    """
    own = original.strip()
    if cut:
        return GoalChoice(own, "the rewrite was cut at the output cap")
    rewrite = parse_normalized_goal(answer, original)
    problem = rewrite_problem(own, rewrite, prompt_examples())
    return GoalChoice(own, problem) if problem is not None else GoalChoice(rewrite)


async def normalize_goal(caller: LLMCaller, goal: str, surface: Surface = PHONE) -> GoalChoice:
    """Ask the model to rephrase ``goal`` on ``surface`` (greedy); the rephrasing only if it keeps its content."""
    completion = await caller.send(normalize_goal_call(goal, surface))
    choice = choose_goal(completion.text, goal, cut=truncated(completion))
    if choice.rejected is not None:
        caller.unparsable(completion, choice.rejected if not truncated(completion) else cut_reason(completion))
    return choice
