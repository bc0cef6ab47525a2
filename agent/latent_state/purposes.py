"""The latent-state paper's call kinds and their output caps: the five estimates of the chain (App. E) and the
selectors' step (:mod:`latent_agent.purposes`)."""

from __future__ import annotations

from latent_agent.purposes import call_kind

#: E.1: the action that was really performed; one past-tense action, no consequence clause.
PREVIOUS_ACTION = call_kind("previous_action", cap=128, summary="latent state E.1: the action really performed")
#: E.2: what the screen shows; a few sentences (app, screen type, media, switch states).
SCREEN_SUMMARY = call_kind("screen_summary", cap=256, summary="latent state E.2: what the screen shows")
#: E.3: what has been done so far; prose over every inferred action, 20 steps of about 15 tokens each, and more.
PROGRESSION = call_kind("progression", cap=512, summary="latent state E.3: what has been done so far")
#: E.4: "No mistakes have been made." or what to correct, a few sentences.
MISTAKES = call_kind("mistakes", cap=256, summary="latent state E.4: what to correct")
#: E.5: whether the goal is reached after the next action; Yes or No, perhaps with a short reason (only the first
#: word is read).
COMPLETION = call_kind("completion", cap=64, summary="latent state E.5: whether the goal is reached")
#: The next step in words (zero-shot, CoT-SC and ReAct selectors); zero-shot's is one step continuing "You should".
SELECT = call_kind("select", cap=128, summary="the next step in words (the selectors)")

#: CoT-SC's select calls: one reasoning chain and "Answer: <step>" (the worked examples' reasoning is ~45 tokens;
#: sampled models reason longer, and a chain cut before its answer does not vote).
COT_SC_CAP = 512
#: ReAct's select calls: one thought and one action.
REACT_CAP = 256
