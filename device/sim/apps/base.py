"""The interface every simulated app implements."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

from latent_agent.device.sim.ui import Page, Window

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone


class SimApp(abc.ABC):
    """One simulated app: a package, a launcher label and its screens.

    An app is stateless itself: what it shows is built from the phone's state
    and the app's back stack of :class:`~latent_agent.device.sim.ui.Page` s each time the
    screen is observed.

    Attributes:
        package: Android package name.
        label: Launcher label ("Clock").
        launcher: Whether the app has a launcher icon.
    """

    package: str = ""
    label: str = ""
    launcher: bool = True

    def home(self) -> Page:
        """The page the app starts on."""
        return Page("main")

    @abc.abstractmethod
    def build(self, phone: Phone, page: Page) -> Window:
        """The window showing ``page``."""

    def back(self, phone: Phone, page: Page) -> bool:
        """Handle the Back key on ``page`` before the phone pops it; True if handled."""
        return False

    def swipe(self, phone: Phone, page: Page, dx: int, dy: int) -> bool:
        """Handle a swipe no list consumed (``dy`` < 0: finger moved up); True if handled."""
        return False
