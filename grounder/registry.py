"""Grounders by name (``--grounder paper|paper-history|llm|hybrid``).

* ``paper`` (the default) - the method's grounder (App. D): leaf elements, one call, no validation or retry.
* ``paper-history`` - the same, also shown the actions it grounded earlier in the episode.
* ``llm`` - the project's grounder: the compact element list, answers checked against it, one retry.
* ``hybrid`` - unambiguous steps resolved by rules without a model call, the rest by ``llm``.
"""

from __future__ import annotations

from collections.abc import Callable

from latent_agent.errors import ConfigError
from latent_agent.grounder.base import Grounder
from latent_agent.grounder.hybrid import HybridGrounder
from latent_agent.grounder.llm import LLMGrounder
from latent_agent.grounder.paper import PaperGrounder

#: Name -> factory; a grounder is made per episode (``paper-history`` keeps the episode's actions).
GROUNDERS: dict[str, Callable[[], Grounder]] = {
    "paper": PaperGrounder,
    "paper-history": lambda: PaperGrounder(with_history=True),
    "llm": LLMGrounder,
    "hybrid": HybridGrounder,
}
#: The grounder ``run``, ``sweep`` and :class:`~latent_agent.agent.episode.EpisodeConfig` use unless told otherwise.
DEFAULT_GROUNDER = "paper"


def make_grounder(name: str) -> Grounder:
    """The grounder called ``name``.

    Raises:
        ConfigError: No such grounder.
    """
    try:
        return GROUNDERS[name]()
    except KeyError:
        raise ConfigError(f"unknown grounder {name!r}; choose one of {', '.join(GROUNDERS)}") from None
