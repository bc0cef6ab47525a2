"""Structured reflection's call kinds and their output caps (:mod:`latent_agent.purposes`)."""

from __future__ import annotations

from latent_agent.purposes import call_kind

#: The plan of the next steps: at most ten steps (``STAGE_CAP``), one short line each.
PLAN = call_kind("plan", cap=320, summary="structured reflection: the plan of the next steps")
#: The lesson of a failed trial: "For action index=A, you should B."
REFLECT = call_kind("reflect", cap=160, summary="structured reflection: the lesson of a failed trial")
#: On a web page: an executed action in one purpose-level sentence (the history).
PARAPHRASE = call_kind("paraphrase", cap=128, summary="structured reflection on a web page: an executed action in "
                       "one sentence")
