"""What a node is to the person looking at the screen, beyond its class name.

The class name says what a view is built from; a person sees something else in
a few common cases, and the description and the element list name those:

* a launcher's clickable text view is an app icon a user taps;
* a clickable view whose role sits on an unlabelled child (Compose puts an empty
  ``android.widget.Button`` or ``Switch`` inside the clickable node that holds
  the text) is that kind of control;
* texts, images and layout groups are labels and structure unless they can be
  clicked, so their clickability is what tells a label from a control.
"""

from __future__ import annotations

from latent_agent.accessibility.tree import UINode
from latent_agent.accessibility.widgets import Kind, kind_of

#: Kinds that are controls by their nature: a line naming one needs no "clickable".
CONTROL_KINDS = frozenset({
    Kind.BUTTON, Kind.IMAGE_BUTTON, Kind.CHIP, Kind.SWITCH, Kind.TOGGLE, Kind.CHECK_BOX, Kind.RADIO_BUTTON,
    Kind.TAB, Kind.CHECKED_TEXT, Kind.DROP_DOWN,
})

#: Kinds that only show or hold things; "clickable" is said of them when they are.
PASSIVE_KINDS = frozenset({Kind.TEXT, Kind.IMAGE, Kind.GROUP, Kind.VIEW, Kind.CARD, Kind.UNKNOWN})

#: Containers that say nothing by themselves: without a label, a state or content they are not listed.
STRUCTURE_KINDS = frozenset({
    Kind.GROUP, Kind.VIEW, Kind.CARD, Kind.LIST, Kind.SCROLL_VIEW, Kind.PAGER, Kind.TOOLBAR, Kind.TAB_BAR,
})

#: Kinds whose checked state Compose and Material place on an unlabelled child of the clickable node.
CHOICE_KINDS = frozenset({Kind.RADIO_BUTTON, Kind.CHECK_BOX, Kind.SWITCH, Kind.TOGGLE})

APP_ICON = "app icon"


def is_launcher_window(root: UINode) -> bool:
    """True when a window belongs to a home-screen launcher (by package, or by view ids where dumps omit it)."""
    # Package names and view ids are lower case by convention.
    return any("launcher" in node.package or "launcher" in node.resource_id for node in root.iter())


def is_app_icon(node: UINode, *, in_launcher: bool) -> bool:
    """A launcher's clickable text view showing an app's icon and name: what a user taps to open the app.

    Launcher3 draws each icon as a text view with the id ``icon`` (older versions
    leave the id empty); the date and clock it also shows as text views carry
    other ids (``date``, ``clock``) and are not icons.
    """
    return (
        in_launcher
        and node.clickable
        and not node.children
        and bool(node.text or node.content_desc)
        and (not node.resource_id or node.resource_id.endswith("/icon"))
        and kind_of(node.class_name) is Kind.TEXT
    )


def is_role_marker(node: UINode) -> bool:
    """An unlabelled control leaf that cannot be clicked itself: it marks its clickable parent's role.

    Image buttons are left out: an unclickable one inside a clickable row is the
    row's icon (a search bar's magnifier), not a statement of what the row is.
    """
    kind = kind_of(node.class_name)
    return (
        not node.children
        and not node.has_label
        and not (node.clickable or node.long_clickable or node.editable or node.scrollable)
        and kind in CONTROL_KINDS
        and kind is not Kind.IMAGE_BUTTON
    )


def role_marker(node: UINode) -> UINode | None:
    """The first role marker below ``node``, or None."""
    for below in node.iter():
        if below is not node and is_role_marker(below):
            return below
    return None
