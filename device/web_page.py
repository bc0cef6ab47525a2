"""A device whose surface is a web page: the keys, the mouse and the element look-ups a page adds.

MiniWoB++ is the first such device (:mod:`latent_agent.device.miniwob`). What a phone lacks and the web
papers' agents used is here: keys pressed N times (``press ARROWDOWN x 3``), a modifier held around clicks
(``hold CTRL`` ... ``release CTRL``), the mouse button pressed, moved and released (a drag), hovering, an
element found by an XPath (Synapse's ``clickxpath``) and an option chosen in a ``<select>``. Callers find
such a device by its declared surface (``device.capabilities.surface``), never by its backend's name::

    page = web_page(device)
    if page is not None:
        page.press("arrowdown", times=3)
        bounds = page.locate('//button[text()="Submit"]')

The page as the papers observe it comes with every hierarchy (``Hierarchy.page``,
:class:`~latent_agent.accessibility.web_page.PageView`).

Contract (as :mod:`latent_agent.device.base`'s): coordinates are device pixels; every call returns once the
page has received the input, bounded in time (``DeviceTimeoutError``); a call the page refuses raises a
:class:`~latent_agent.errors.DeviceError` subclass in one line (``DeviceActionError`` for a point off the
screen, no ``<select>`` where one is chosen, an option the list does not have).
"""

from __future__ import annotations

import abc
from typing import Literal, get_args

from latent_agent.accessibility.tree import Bounds
from latent_agent.device.base import Device

#: The keys a web agent presses: the papers' special keys, and select-all, copy and paste.
WebKey = Literal["enter", "tab", "space", "backspace", "delete", "escape", "arrowup", "arrowdown", "arrowleft",
                 "arrowright", "home", "end", "ctrl+a", "ctrl+c", "ctrl+v"]
WEB_KEYS: tuple[WebKey, ...] = get_args(WebKey)
#: The modifiers a web agent holds around clicks (``hold CTRL``, ``hold SHIFT``).
Modifier = Literal["control", "shift"]
MODIFIERS: tuple[Modifier, ...] = get_args(Modifier)


class WebPage(abc.ABC):
    """What a device with the ``web_page`` surface adds to :class:`~latent_agent.device.base.Device`.

    Held modifiers and a pressed mouse button stay so until released, or until the page is loaded again
    (a new task or a reset releases them: nothing held carries over into the next episode or trial).
    """

    @abc.abstractmethod
    def press(self, key: WebKey, times: int = 1) -> None:
        """Press ``key`` ``times`` times, into the focused element (``ctrl+a`` selects all of a field).

        Raises:
            DeviceActionError: ``times`` is not a positive number of presses.
        """

    @abc.abstractmethod
    def hold(self, modifier: Modifier, down: bool) -> None:
        """Hold ``modifier`` down (``down=True``) or release it; clicks while it is held are made with it
        (a click with Control held adds an option to a multiple selection)."""

    @abc.abstractmethod
    def pointer_down(self, x: int, y: int) -> None:
        """Move the mouse to ``(x, y)`` in steps and press its button there (the start of a drag).

        Raises:
            DeviceActionError: The point is off the screen.
        """

    @abc.abstractmethod
    def pointer_move(self, x: int, y: int) -> None:
        """Move the mouse to ``(x, y)`` in several steps, the button as it is (draggables and sortables follow).

        Raises:
            DeviceActionError: The point is off the screen.
        """

    @abc.abstractmethod
    def pointer_up(self) -> None:
        """Release the mouse button where the mouse is (the end of a drag); nothing when it is not pressed."""

    @abc.abstractmethod
    def hover(self, x: int, y: int) -> None:
        """Move the mouse over ``(x, y)`` in several steps without pressing (what shows on hover shows).

        Raises:
            DeviceActionError: The point is off the screen.
        """

    @abc.abstractmethod
    def locate(self, xpath: str) -> Bounds | None:
        """The bounds of the first element ``xpath`` matches in the page: the part shown on screen, else its
        whole box (scrolled out of view, hidden or of no size: a click there would miss, and the caller can
        tell from the box).

        Returns:
            None when nothing matches, and when ``xpath`` is no valid XPath (the page cannot tell one from
            the other to a caller that has only the expression; neither is a failure of the page).
        """

    @abc.abstractmethod
    def choose_option(self, x: int, y: int, option: str) -> None:
        """Choose the option whose text is ``option`` (whitespace squashed; case ignored when no text is equal)
        in the ``<select>`` at ``(x, y)``, firing ``input`` and ``change`` as a person's choice does.

        Raises:
            DeviceActionError: No ``<select>`` at the point, or it has no such option (the message names
                some of those it has).
        """


def web_page(device: Device) -> WebPage | None:
    """``device`` as a web page when its declared surface is ``web_page``, else None."""
    if device.capabilities.surface != "web_page":
        return None
    if not isinstance(device, WebPage):
        raise TypeError(f"{type(device).__name__} declares the web_page surface and is no WebPage")
    return device
