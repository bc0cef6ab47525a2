"""Goal normalization: the user's goal rephrased once per episode as a proper imperative sentence."""

from __future__ import annotations

from latent_agent.agent.calls import LLMCaller
from latent_agent.prompts.render import render

TEMPLATE = "normalize_goal.j2"


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


def normalize_goal_prompt(goal: str) -> str:
    """The few-shot rephrasing prompt for ``goal``."""
    return render(TEMPLATE, goal=goal.strip())


def parse_normalized_goal(text: str, original: str) -> str:
    """The rephrased goal: the answer's first line without labels or quotes.

    An empty answer keeps the user's own wording (rephrasing only polishes the goal;
    an episode is still meaningful without it).
    """
    for line in text.splitlines():
        line = line.strip()
        if line.lower().startswith("rephrased:"):
            line = line[len("rephrased:"):].strip()
        elif line.lower().startswith("request:"):
            continue
        line = line.strip("\"'` ")
        if line:
            return line
    return original.strip()


async def normalize_goal(caller: LLMCaller, goal: str) -> str:
    """Ask the model to rephrase ``goal`` (greedy)."""
    completion = await caller.ask("normalize_goal", normalize_goal_prompt(goal), inputs={"goal": goal.strip()})
    return parse_normalized_goal(completion.text, goal)
