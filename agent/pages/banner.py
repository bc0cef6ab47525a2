"""The banner every page of a run carries when its answers did not come from a language model.

A scripted stand-in (``--llm demo``, ``scripted:``) plays tasks from their solutions, so its 100% says that
the pipeline runs, nothing about a model; set beside a paper's number it would read as a result. Whether a
run's model is such a stand-in is read from what the run recorded (the ``--llm`` spec of a sweep's manifest,
or the client named in a trajectory's header) through the provider registry's
:attr:`~latent_agent.llm.spec.Provider.scripted`, never from a provider's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.llm.spec import scripted_model

#: What every banner of a scripted run says, on every page and chart (a reader, and a test, finds it there).
NOT_A_MODEL = "not a language model"


@dataclass(frozen=True, slots=True)
class Banner:
    """What a page says above everything else about the run's model.

    Attributes:
        text: The full sentence, for the top of a page and a table's note.
        short: A few words, for titles and charts.
    """

    text: str
    short: str


def model_banner(recorded: str) -> Banner | None:
    """The banner for a run whose model was recorded as ``recorded``; None for a language model's run.

    Args:
        recorded: The model as the run recorded it: an ``--llm`` spec or a client's ``provider model`` name.
    """
    scripted = scripted_model(recorded)
    if scripted is None:
        return Banner(f"Made with {recorded!r}, a provider this installation does not know: whether its answers "
                      "came from a language model cannot be told, so no number here is known to be a model's.",
                      "not known to be a language model")
    if scripted:
        return Banner(f"Made by a scripted stand-in ({recorded}), {NOT_A_MODEL}: it plays each task from its "
                      "solution, so these numbers show that the pipeline runs, not how well any model does, and "
                      "none of them is comparable with a published one.",
                      f"a scripted stand-in, {NOT_A_MODEL}")
    return None
