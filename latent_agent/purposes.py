"""What each LLM call is for: the one list of call kinds.

A call's purpose keys its output cap (:data:`latent_agent.agent.output_caps.OUTPUT_CAPS`), names it in the
trajectory (``LLMCall.purpose``, written as the plain string, so trajectories of every schema version read
the same) and in error messages, and tells the scripted demo stand-in which answer to play. It lives at the
package root because calls are made from several layers: the llm layer's ping, the grounders, the agent's
methods and the demonstrations' rationales.
"""

from __future__ import annotations

from enum import StrEnum


class Purpose(StrEnum):
    """The kinds of LLM call; each value is the string recorded for it."""

    #: ``latent-agent llm ping`` and a sweep's preflight: any answer will do.
    PING = "ping"
    #: The goal rewritten as one imperative sentence.
    NORMALIZE_GOAL = "normalize_goal"
    #: Latent state E.1: the action that was really performed.
    PREVIOUS_ACTION = "previous_action"
    #: Latent state E.2: what the screen shows.
    SCREEN_SUMMARY = "screen_summary"
    #: Latent state E.3: what has been done so far.
    PROGRESSION = "progression"
    #: Latent state E.4: what to correct.
    MISTAKES = "mistakes"
    #: Latent state E.5: whether the goal is reached after the next action.
    COMPLETION = "completion"
    #: The next step in words (zero-shot, CoT-SC and ReAct selectors).
    SELECT = "select"
    #: A step in words turned into an action on the screen.
    GROUND = "ground"
    #: Structured reflection: the plan of the next steps.
    PLAN = "plan"
    #: Structured reflection: the lesson of a failed trial.
    REFLECT = "reflect"
    #: Structured reflection on a web page: an executed action in one purpose-level sentence (the history).
    PARAPHRASE = "paraphrase"
    #: Exemplars: the task-relevant observation of a screen.
    EXEMPLAR_ABSTRACT = "exemplar_abstract"
    #: Exemplars: the actions up to the next needed observation.
    EXEMPLAR_ACT = "exemplar_act"
    #: Exemplars on a web page: an implicit utterance rewritten as an explicit task (Synapse's task reformulation).
    EXEMPLAR_REFORMULATE = "exemplar_reformulate"
    #: CAAP: the four-part answer ending in action lines.
    CAAP = "caap"
    #: CAAP demonstrations: one rationale per demonstrated action.
    CAAP_RATIONALE = "caap_rationale"
    #: Icon naming: one short name per numbered icon of a screenshot.
    NAME_ICONS = "name_icons"
