"""The six agents by name: an action selector with (``+``) or without (``-``) latent state.

``-`` agents show the selector the commanded-action history and stop when "done" appears in
the step it selects (the method's rule; ``EpisodeConfig.stop_rule="strict"`` is the stricter
option); ``+`` agents estimate the latent state every step, show the selector the
progression and mistakes instead (nothing else differs between the twin prompts), and stop
when the completion estimate begins with "Yes".
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.agent.select_cot_sc import CotScSelector
from latent_agent.agent.select_react import ReactSelector
from latent_agent.agent.select_zero_shot import ZeroShotSelector
from latent_agent.agent.selection import Selector
from latent_agent.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Method:
    """A named agent.

    Attributes:
        name: ``zero-shot-``, ``zero-shot+``, ``cot-sc-``, ``cot-sc+``, ``react-`` or ``react+``.
        selector: Its action selector.
        summary: One line for ``--help``.
    """

    name: str
    selector: Selector
    summary: str

    @property
    def plus(self) -> bool:
        """Whether the agent estimates latent state."""
        return self.selector.plus


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("zero-shot-", ZeroShotSelector("select_zero_shot_minus.j2", plus=False),
               "one greedy answer continuing 'You should'; commanded history; stops on 'done'"),
        Method("zero-shot+", ZeroShotSelector("select_zero_shot_plus.j2", plus=True),
               "one greedy answer continuing 'You should'; latent state; stops when completion says Yes"),
        Method("cot-sc-", CotScSelector("select_cot_sc_minus.j2", plus=False),
               "8 reasoning samples at T=0.5, majority answer; commanded history"),
        Method("cot-sc+", CotScSelector("select_cot_sc_plus.j2", plus=True),
               "8 reasoning samples at T=0.5, majority answer; latent state"),
        Method("react-", ReactSelector("select_react_minus.j2", plus=False),
               "Thought/Action turns, last two earlier observations; commanded history"),
        Method("react+", ReactSelector("select_react_plus.j2", plus=True),
               "Thought/Action turns, last two earlier observations; latent state"),
    )
}


def get_method(name: str) -> Method:
    """The agent called ``name``.

    Raises:
        ConfigError: No such agent; the message lists the names.
    """
    try:
        return METHODS[name]
    except KeyError:
        raise ConfigError(f"unknown method {name!r}; choose one of {', '.join(METHODS)}") from None
