"""CAAP's call kinds and their output caps (:mod:`latent_agent.purposes`)."""

from __future__ import annotations

from latent_agent.purposes import call_kind

#: The four-part answer ending in action lines (screen, progress, next actions with rationales, action lines); the
#: stand-in's longest is ~420 tokens.
CAAP = call_kind("caap", cap=1024, summary="CAAP: the four-part answer ending in action lines")
#: The demonstrations: one rationale sentence per demonstrated action.
CAAP_RATIONALE = call_kind("caap_rationale", cap=256, summary="CAAP demonstrations: one rationale per action")
