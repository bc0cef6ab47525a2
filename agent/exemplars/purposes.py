"""The exemplar method's call kinds and their output caps (:mod:`latent_agent.purposes`)."""

from __future__ import annotations

from latent_agent.purposes import call_kind

#: The task-relevant observation of a screen: a short one.
EXEMPLAR_ABSTRACT = call_kind("exemplar_abstract", cap=320, summary="exemplars: the task-relevant observation of a "
                              "screen")
#: The actions up to the next needed observation, one a line.
EXEMPLAR_ACT = call_kind("exemplar_act", cap=320, summary="exemplars: the actions up to the next needed observation")
#: On a web page: an implicit utterance rewritten as an explicit task (Synapse's task reformulation), with what it
#: settles (which options are synonyms).
EXEMPLAR_REFORMULATE = call_kind("exemplar_reformulate", cap=256, summary="exemplars on a web page: the utterance "
                                 "rewritten as an explicit task")

#: Synapse's output caps on a web page, for every call of an episode (its paper's section 4): 512 tokens on the
#: simple tasks and 2,048 on the complex ones (those it filters or reformulates), whose plans and observations
#: are long (book-flight, the e-mail tasks).
SYNAPSE_SIMPLE_CAP = 512
SYNAPSE_COMPLEX_CAP = 2048
