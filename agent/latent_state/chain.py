"""The latent-state chain: five estimates made by prompting the model (greedy decoding).

One step of a ``+`` agent asks, in this order (each call reads what the earlier ones wrote):

1. previous action (from the second step on) - the commanded action, the previous and the
   current screen; the prompt warns "I may be lying"; the answer is a past-tense action;
2. screen summary - the current screen and the action just inferred;
3. progression - the numbered list of every inferred previous action ("Nothing. You are just
   starting." on the first step), the summary and the current screen, with the goal withheld;
   prose continuing "You have";
4. mistakes - the goal, the progression and the current screen; "No mistakes have been made."
   when there are none;
5. completion - asked later, once the selector has proposed the next action
   (:func:`estimate_completion`): the goal, the list of inferred actions, the summary and that
   action; Yes/No.

The list of inferred previous actions is the agent's memory across steps (it feeds 3 and 5);
the progression is never fed back into itself. Each aspect has its template
(``prompts/templates/latent_*.j2``), a prompt builder and a parser here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from latent_agent.agent.calls import LLMCaller, PromptCall, cut_reason, truncated
from latent_agent.agent.goal import goal_clause
from latent_agent.agent.latent_state.purposes import COMPLETION, MISTAKES, PREVIOUS_ACTION, PROGRESSION, SCREEN_SUMMARY
from latent_agent.agent.latent_state.state import LatentState
from latent_agent.llm.types import Completion
from latent_agent.surfaces import PHONE, Surface

#: What the progression and completion prompts show while no action has been inferred.
NOTHING_YET = "Nothing. You are just starting."
#: The mistakes estimate when there is nothing to correct.
NO_MISTAKES = "No mistakes have been made."
#: The answer prefix of the progression prompt; the progression estimate begins with it.
PROGRESSION_PREFIX = "You have"
#: The answer prefix of the previous-action prompt.
PREVIOUS_ACTION_PREFIX = "Real action:"
#: What an empty previous-action answer is recorded as (the list keeps one entry per step).
UNKNOWN_ACTION = "Unknown."

_LEAD = "\"'*`_ \t"
_NO_MISTAKE = re.compile(r"(?i)\bno (?:uncorrected |previous |other )?(?:mistakes?|errors?)\b")


@dataclass(frozen=True, slots=True)
class LatentInputs:
    """What the chain reads at one step.

    Attributes:
        goal: The normalized goal.
        description: The current screen description.
        previous_description: The previous screen's description (None on the first step).
        commanded: The step the selector commanded at the previous screen, whether or not it could
            be grounded and executed (None on the first step).
        inferred: The previous-action estimates of the earlier steps, oldest first.
        previous_error: Why the commanded step was not executed, if it was not (recorded beside the
            estimate; it is not shown to the model, which has to notice from the screens).
        surface: What the agent operates (the prompts are rendered for it).
    """

    goal: str
    description: str
    previous_description: str | None = None
    commanded: str | None = None
    inferred: tuple[str, ...] = ()
    previous_error: str | None = None
    surface: Surface = PHONE


# -- prompts ---------------------------------------------------------------------------------


def previous_action_call(before: str, after: str, commanded: str, surface: Surface = PHONE) -> PromptCall:
    """E.1: the commanded action, the screen before and the screen after."""
    return PromptCall.of(PREVIOUS_ACTION, "latent_previous_action.j2", surface, before=before, after=after,
                         commanded=commanded)


def screen_summary_call(description: str, last_action: str | None, surface: Surface = PHONE) -> PromptCall:
    """E.2: the current screen and the last inferred action (None on the first step)."""
    return PromptCall.of(SCREEN_SUMMARY, "latent_screen_summary.j2", surface, description=description,
                         last_action=last_action)


def progression_call(actions: tuple[str, ...], summary: str, description: str,
                     surface: Surface = PHONE) -> PromptCall:
    """E.3: every inferred previous action, the summary and the current screen - not the goal."""
    return PromptCall.of(PROGRESSION, "latent_progression.j2", surface, actions=actions, summary=summary,
                         description=description)


def mistakes_call(goal: str, progression: str, description: str, surface: Surface = PHONE) -> PromptCall:
    """E.4: the goal, the progression and the current screen."""
    return PromptCall.of(MISTAKES, "latent_mistakes.j2", surface, goal=goal_clause(goal),
                         progression=progression, description=description)


def completion_call(goal: str, actions: tuple[str, ...], summary: str, next_action: str,
                    surface: Surface = PHONE) -> PromptCall:
    """E.5: the goal, every inferred previous action, the summary and the proposed next action."""
    return PromptCall.of(COMPLETION, "latent_completion.j2", surface, goal=goal_clause(goal), actions=actions,
                         summary=summary, next_action=next_action)


# -- parsers ---------------------------------------------------------------------------------


def _fold(text: str) -> str:
    return " ".join(text.split())


def _without(prefix: str, text: str) -> str:
    """``text`` without a repeated answer prefix (chat models often write it again)."""
    stripped = text.lstrip(_LEAD)
    if stripped.casefold().startswith(prefix.casefold()):
        return stripped[len(prefix):].lstrip(_LEAD).strip()
    return text.strip()


def parse_previous_action(text: str) -> str:
    """The really performed action: the answer's first paragraph, whitespace folded.

    An empty answer is recorded as :data:`UNKNOWN_ACTION`, so the list of inferred actions
    still has one entry per step.
    """
    first = text.strip().split("\n\n", 1)[0]
    return _fold(_without(PREVIOUS_ACTION_PREFIX, first)) or UNKNOWN_ACTION


def no_action_performed(previous_action: str) -> bool:
    """Whether a previous-action estimate says that no action was performed."""
    lowered = previous_action.lstrip(_LEAD).casefold()
    return lowered.startswith(("nothing", "no action", "none"))


def parse_screen_summary(text: str) -> str:
    """The summary, whitespace folded."""
    return _fold(_without("Summary:", text))


# An answer that starts its own sentence instead of continuing "You have": "I have opened ...",
# "I've opened ...", "You've opened ...", "I opened ...". Its subject is the agent, so it becomes "You".
_OWN_SUBJECT = re.compile(r"^(?:(?:i|we|you)\s+have|i've|we've|you've)\b\s*|^(?:i|we)\s+(?=\w)", re.IGNORECASE)


def parse_progression(text: str) -> str:
    """The progression as prose beginning "You have" (the answer continues that prefix).

    An answer that writes its own subject is read as the agent speaking of itself: "I have opened X"
    and "You've opened X" give "You have opened X", "I opened X" gives "You opened X" (never
    "You have I have opened X").
    """
    rest = _fold(_without(PROGRESSION_PREFIX, text))
    own = _OWN_SUBJECT.match(rest)
    if own is not None:
        perfect = own.group(0).strip().casefold() not in ("i", "we")
        rest = rest[own.end():].lstrip()
        return f"{PROGRESSION_PREFIX} {rest}".rstrip() if perfect else f"You {rest}".rstrip()
    return f"{PROGRESSION_PREFIX} {rest}".rstrip()


def parse_mistakes(text: str) -> str:
    """The mistakes estimate, whitespace folded (:data:`NO_MISTAKES` for an empty answer)."""
    return _fold(_without("Mistakes:", text)) or NO_MISTAKES


def no_mistakes(mistakes: str) -> bool:
    """Whether a mistakes estimate says no (uncorrected) mistake has been made: :data:`NO_MISTAKES`, or in other
    words ("There are no uncorrected mistakes."). The one test: annotation scoring's baseline reads estimates with it.
    """
    return bool(_NO_MISTAKE.search(mistakes))


def parse_completion(text: str) -> str:
    """The completion estimate, whitespace folded."""
    return _fold(_without("Answer:", text))


def is_complete(completion: str) -> bool:
    """Whether a completion estimate begins with "Yes" (the ``+`` agents' stop rule)."""
    return completion.lstrip(_LEAD).casefold().startswith("yes")


# -- the chain -------------------------------------------------------------------------------

# Where a sentence ends: the end of a finished estimate's last sentence.
_SENTENCE_END = re.compile(r"[.!?](?=[\"'”’)\]]*(?:\s|$))")


def finished_text(text: str) -> str:
    """``text`` up to the end of its last finished sentence (all of it when no sentence ended)."""
    ends = list(_SENTENCE_END.finditer(text))
    return text[:ends[-1].end()] if ends else text


def _answer(caller: LLMCaller, completion: Completion) -> str:
    """The text an estimate is read from: a cut answer loses its unfinished last sentence, and its call says so.

    An estimate is prose read by later calls, so its finished sentences still serve; the broken-off one
    would read as a claim it never finished.
    """
    if not truncated(completion):
        return completion.text
    caller.unparsable(completion, cut_reason(completion) + "; its unfinished last sentence was dropped")
    return finished_text(completion.text)


async def estimate_latent(caller: LLMCaller, inputs: LatentInputs) -> LatentState:
    """Estimate previous action, screen summary, progression and mistakes for one step, in that order.

    The completion estimate is made later, once the next action is chosen
    (:func:`estimate_completion`).
    """
    previous: str | None = None
    description = inputs.description
    if inputs.previous_description is not None and inputs.commanded is not None:
        answer = await caller.send(previous_action_call(inputs.previous_description, description, inputs.commanded,
                                                               inputs.surface))
        previous = parse_previous_action(_answer(caller, answer))
    actions = inputs.inferred + ((previous,) if previous is not None else ())
    summary = parse_screen_summary(_answer(caller, await caller.send(screen_summary_call(description, previous,
                                                                                               inputs.surface))))
    progression_answer = await caller.send(progression_call(actions, summary, description, inputs.surface))
    progression = parse_progression(_answer(caller, progression_answer))
    mistakes_answer = await caller.send(mistakes_call(inputs.goal, progression, description, inputs.surface))
    return LatentState(
        previous_action=previous, screen_summary=summary, progression=progression,
        mistakes=parse_mistakes(_answer(caller, mistakes_answer)), inferred_actions=actions, commanded=inputs.commanded,
        previous_step_error=inputs.previous_error,
    )


async def estimate_completion(caller: LLMCaller, goal: str, latent: LatentState, next_action: str,
                              surface: Surface = PHONE) -> str:
    """The completion estimate for the proposed ``next_action`` on ``surface``."""
    completion = await caller.send(completion_call(goal, latent.inferred_actions, latent.screen_summary,
                                                   next_action, surface))
    return parse_completion(completion.text)
