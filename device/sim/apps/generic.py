"""Apps installed from the simulated Play Store: a first-run screen with their name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.ui import Node, Page, Window
from latent_agent.device.sim.views import FRAME, STATUS_H, activity, button, label

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone


class InstalledApp(SimApp):
    """A third-party app: its welcome screen, then a home screen after "Get started"."""

    def __init__(self, package: str, label: str) -> None:
        self.package = package
        self.label = label

    def build(self, phone: Phone, page: Page) -> Window:
        w, h = phone.width, phone.height
        rid = f"{self.package}:id/"
        if page.name == "main":
            kids = [
                label(
                    (88, 900, w - 88, 1000),
                    f"Welcome to {self.label}",
                    rid=rid + "welcome_title",
                    role="headline",
                    size=64,
                    fit=False,
                ),
                label(
                    (88, 1020, w - 88, 1090),
                    "Sign in or continue as a guest",
                    rid=rid + "welcome_text",
                    fit=False,
                ),
                button(
                    (88, h - 400, w - 88, h - 260),
                    "Get started",
                    lambda: phone.push(Page("home")),
                    rid=rid + "get_started",
                ),
            ]
        else:
            kids = [
                label(
                    (88, STATUS_H + 60, w - 88, STATUS_H + 160),
                    self.label,
                    rid=rid + "toolbar_title",
                    role="title",
                    size=60,
                ),
                label(
                    (88, STATUS_H + 260, w - 88, STATUS_H + 330),
                    "Nothing here yet",
                    rid=rid + "empty",
                    fit=False,
                ),
            ]
        return activity(
            phone, self.package, [Node(FRAME, (0, STATUS_H, w, h - 66), rid=rid + "root", children=kids)]
        )
