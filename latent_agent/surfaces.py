"""What the agent operates: a phone or a web page (room for a desktop later).

A device declares its surface (``DeviceCapabilities.surface``); every prompt is rendered for it
(:func:`latent_agent.prompts.render.render` takes a :class:`Surface`), so the role line and the actions a
prompt offers are those of the surface in front of the agent: no app, launcher, Back or Home words on a
web page, no element ids on a phone unless a method asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from latent_agent.errors import ConfigError

#: The kinds of surface, as devices declare them.
SurfaceKind = Literal["phone", "web_page"]
SURFACE_KINDS: tuple[SurfaceKind, ...] = get_args(SurfaceKind)


@dataclass(frozen=True, slots=True)
class Surface:
    """One kind of surface, as prompts speak of it.

    Attributes:
        kind: Which surface.
        noun: What the agent operates, with its article ("an Android phone", "a web page").
        screen: What one view of it is called ("screen", "page").
        tap: The verb for touching an element ("Tap", "Click").
    """

    kind: SurfaceKind
    noun: str
    screen: str
    tap: str

    @property
    def web(self) -> bool:
        """Whether it is a web page (templates branch on this for their role lines and actions)."""
        return self.kind == "web_page"


PHONE = Surface("phone", "an Android phone", "screen", "Tap")
WEB_PAGE = Surface("web_page", "a web page", "page", "Click")
#: Every surface by kind.
SURFACES: dict[SurfaceKind, Surface] = {s.kind: s for s in (PHONE, WEB_PAGE)}


def surface_of(kind: str) -> Surface:
    """The surface called ``kind``.

    Raises:
        ConfigError: No such surface.
    """
    for surface in SURFACES.values():
        if surface.kind == kind:
            return surface
    raise ConfigError(f"unknown surface {kind!r}; choose one of {', '.join(SURFACE_KINDS)}")
