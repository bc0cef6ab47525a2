"""System dialogs the noise knobs put over an app: permission prompts, ads, crashes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from latent_agent.device.sim.dialogs import dialog
from latent_agent.device.sim.ui import Node, Window
from latent_agent.device.sim.views import FRAME, IMAGE_BUTTON, LINEAR, button, label

if TYPE_CHECKING:
    from latent_agent.device.sim.phone import Phone

PERMISSIONS = "com.google.android.permissioncontroller"


def popup_for(
    phone: Phone, package: str, app_label: str, advert: bool, dismiss: Callable[[], None]
) -> Window:
    """A notification-permission prompt, or a full-screen advert with a close button."""
    if not advert:
        window = dialog(
            phone,
            PERMISSIONS,
            f"Allow {app_label} to send you notifications?",
            buttons=[("Don't allow", dismiss), ("Allow", dismiss)],
            on_outside=lambda: None,
        )
        window.package = PERMISSIONS
        return window
    w, _h = phone.width, phone.height
    rid = f"{package}:id/"
    box = (88, 500, w - 88, 1900)
    root = Node(
        FRAME,
        box,
        role="dialog",
        children=[
            Node(
                LINEAR,
                box,
                rid=rid + "ad_container",
                children=[
                    Node(
                        IMAGE_BUTTON,
                        (w - 220, 520, w - 108, 632),
                        desc="Close ad",
                        rid=rid + "ad_close",
                        on_tap=dismiss,
                        role="icon",
                    ),
                    label((150, 700, w - 150, 800), "Sponsored", rid=rid + "ad_badge", size=40),
                    label(
                        (150, 820, w - 150, 940),
                        "Try Premium free for 30 days",
                        rid=rid + "ad_headline",
                        role="headline",
                        size=60,
                        fit=False,
                    ),
                    label(
                        (150, 960, w - 150, 1040),
                        "No ads. Offline mode. Cancel anytime.",
                        rid=rid + "ad_body",
                        fit=False,
                    ),
                    button((150, 1650, w - 150, 1790), "Learn more", dismiss, rid=rid + "ad_cta"),
                ],
            )
        ],
    )
    return Window(root, package, modal=True, on_outside=lambda: None)


def crash_dialog(phone: Phone, app_label: str, dismiss: Callable[[], None]) -> Window:
    """The system's "app keeps stopping" dialog; the app did not start."""
    window = dialog(
        phone,
        "android",
        f"{app_label} keeps stopping",
        buttons=[("App info", dismiss), ("Close app", dismiss)],
        on_outside=dismiss,
    )
    return window
