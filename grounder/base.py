"""What a grounder reads and returns.

A grounder turns one step in words ("Tap \\"Roaming\\"") into one typed
:data:`~latent_agent.grounder.actions.Action` for the current screen, or reports why it could
not; it never guesses a tap that is off screen or on no element.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from latent_agent.accessibility.elements import Element
from latent_agent.accessibility.tree import ScreenSize, UITree
from latent_agent.grounder.actions import Action
from latent_agent.llm.types import CallOptions
from latent_agent.purposes import Purpose, call_kind
from latent_agent.surfaces import PHONE, Surface

if TYPE_CHECKING:
    from latent_agent.llm.types import Completion


@dataclass(frozen=True, slots=True)
class GroundingScreen:
    """The screen a step is grounded on.

    Attributes:
        elements: The compact element list (what the grounder prompt shows).
        elements_json: The same list as the prompt shows it.
        size: Display size in pixels.
        apps: Launcher label -> package of the installed apps (for ``open_app``).
        tree: The cleaned accessibility tree, for grounders that build their own element
            list from it (the ``paper`` grounder lists its leaves); None when not at hand.
        surface: What the screen belongs to (the device's declared surface); the grounder's prompt offers
            that surface's actions.
    """

    elements: tuple[Element, ...]
    elements_json: str
    size: ScreenSize
    apps: Mapping[str, str]
    tree: UITree | None = None
    surface: Surface = PHONE


@dataclass(frozen=True, slots=True)
class Grounding:
    """A grounder's result.

    Attributes:
        action: The action, or None when grounding failed.
        error: Why it failed (every attempt's reason), else None.
        source: ``llm`` (the model answered) or ``rule`` (resolved without a model call).
        attempts: Model answers it took (0 for a rule).
    """

    action: Action | None
    error: str | None
    source: str
    attempts: int = 0


#: A step in words turned into an action on the screen: one JSON action in a code block (the llm grounder's answer
#: also names the element).
GROUND = call_kind("ground", cap=256, summary="a step in words turned into one JSON action on the screen")


class Asker(Protocol):
    """How a grounder asks the model (the episode's :class:`~latent_agent.agent.calls.LLMCaller`)."""

    async def ask(self, purpose: Purpose, prompt: str, *, inputs: Mapping[str, object] | None = ...,
                  surface: Surface = ..., options: CallOptions | None = ...) -> Completion: ...


class Grounder(Protocol):
    """Turns a step in words into an action for a screen."""

    @property
    def name(self) -> str:
        """The registry name (``paper``, ``llm``, ``hybrid``...)."""
        ...

    async def ground(self, step: str, screen: GroundingScreen, asker: Asker) -> Grounding:
        """Ground ``step`` on ``screen``; model calls go through ``asker``."""
        ...
