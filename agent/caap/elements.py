"""The screen as the CAAP method reads it: one line per visible element, with an id, a type, its
centre and edges, its text and its state.

The published method gets this list from a screenshot (a detector, then a model that reads each
box); here it is built from whatever cleaned tree the observation holds, the accessibility tree or
the tree the screenshot observer made, so the method runs on either source unchanged. The fields
follow the method's Android adaptation: the Android class gives the ``type`` in the published
vocabulary (an ``EditText`` is an ``input_field``, a ``CheckBox`` or ``Switch`` a ``checkbox``,
an ``ImageButton`` an ``icon``), the content description stands in as the text when there is no
other, bounds become ``X: centre [left-right], Y: centre [top-bottom]``, and the checked, focused
and selected flags come from the node.

Only what a person could see and use is listed: visible nodes on the screen that carry text, can
be acted on or hold a state. A row whose texts are listed is not listed again as a container (a
tap on its title reaches the row), so a settings screen lists about as many lines as it shows
words. Ids are assigned per screen in document order (``element_1``, ``element_2``, ...), as the
published detector assigns them per screenshot; they mean nothing on the next screen, which is why
the action history records the element's attributes instead.

A flag is written only where it says something: ``checked`` on every checkable element (true or
false), ``focused``/``selected`` only when set, ``enabled: False`` only when disabled and
``scrollable: True`` on scroll areas. The published list repeats ``focused: False, visible: True``
on every line; an Android screen has 30-150 elements, where that doubles the list.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.accessibility.widgets import Kind, info, kind_of
from latent_agent.surfaces import PHONE, Surface

#: The id prefix of every element line.
ID_PREFIX = "element_"
#: An unlabelled element thinner than this (pixels) is a divider, not something to act on.
SLIVER_PX = 12
#: The element types (the published detector's vocabulary where one fits) for each kind of widget.
TYPES: dict[Kind, str] = {
    Kind.TEXT_BOX: "input_field",
    Kind.CHECK_BOX: "checkbox",
    Kind.SWITCH: "checkbox",
    Kind.TOGGLE: "checkbox",
    Kind.RADIO_BUTTON: "radio",
    Kind.CHECKED_TEXT: "radio",
    Kind.IMAGE_BUTTON: "icon",
    Kind.BUTTON: "button",
    Kind.CHIP: "button",
    Kind.DROP_DOWN: "dropdown",
    Kind.SEEK_BAR: "slider",
    Kind.PROGRESS_BAR: "progress_bar",
    Kind.TAB: "tab",
    Kind.TEXT: "text",
    Kind.WEB_VIEW: "web_view",
}
#: Kinds whose element is refined by a ``subtype`` (a switch is a checkbox that reads ON/OFF).
SUBTYPES: dict[Kind, str] = {Kind.SWITCH: "switch", Kind.TOGGLE: "toggle"}
#: Kinds that only hold other elements.
_CONTAINERS = frozenset({Kind.GROUP, Kind.VIEW, Kind.CARD, Kind.LIST, Kind.SCROLL_VIEW, Kind.PAGER, Kind.TOOLBAR,
                         Kind.TAB_BAR})
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
#: Share of the screen height at the top that the status bar takes at most (ignored when comparing screens).
STATUS_BAR_SHARE = 0.05


@dataclass(frozen=True, slots=True)
class UIElement:
    """One line of the element list.

    Attributes:
        id: ``element_N``, valid on this screen only.
        type: ``button``, ``text``, ``input_field``, ``checkbox``, ``radio``, ``icon``, ...
        bounds: Where it is, in device pixels.
        text: Its text, else its content description, else its hint.
        subtype: A refinement of the type (``switch``), or empty.
        description: The content description when the element also shows other text, or empty.
        checked: The state of a checkable element, else None.
        focused: Whether it has the input focus.
        selected: Whether it is selected (a tab, a list row).
        enabled: False when it is disabled.
        scrollable: Whether it scrolls (a list): the target of ``scroll(direction, element_id)``.
    """

    id: str
    type: str
    bounds: Bounds
    text: str = ""
    subtype: str = ""
    description: str = ""
    checked: bool | None = None
    focused: bool = False
    selected: bool = False
    enabled: bool = True
    scrollable: bool = False

    @property
    def center(self) -> tuple[int, int]:
        """Where a tap on it lands."""
        return self.bounds.center

    def attributes(self) -> dict[str, object]:
        """What identifies it apart from its id (the form an action history and a demonstration keep).

        ``X``/``Y`` are strings ``"centre [low-high]"`` as the list writes them.
        """
        b = self.bounds
        x, y = self.center
        out: dict[str, object] = {"type": self.type}
        if self.subtype:
            out["subtype"] = self.subtype
        out["X"] = f"{x} [{b.left}-{b.right}]"
        out["Y"] = f"{y} [{b.top}-{b.bottom}]"
        out["text"] = self.text
        if self.description:
            out["description"] = self.description
        if self.checked is not None:
            out["checked"] = self.checked
        if self.focused:
            out["focused"] = True
        if self.selected:
            out["selected"] = True
        if not self.enabled:
            out["enabled"] = False
        if self.scrollable:
            out["scrollable"] = True
        return out

    def line(self) -> str:
        """``- ID: element_3, data: {type: button, X: 540 [420-660], Y: 96 [80-112], text: "Submit"}``."""
        return f"- ID: {self.id}, data: {format_attributes(self.attributes())}"


def format_attributes(attributes: dict[str, object]) -> str:
    """``{type: button, X: 540 [420-660], text: "Submit", checked: False}``: strings quoted (JSON
    escapes) except the type names and coordinates, flags as Python writes them (the method's form)."""
    parts: list[str] = []
    for key, value in attributes.items():
        if isinstance(value, bool) or key in ("type", "subtype", "X", "Y") or not isinstance(value, str):
            shown = str(value)
        else:
            shown = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}: {shown}")
    return "{" + ", ".join(parts) + "}"


def _label(node: UINode) -> str:
    return " ".join((node.text or node.content_desc or node.hint).split())


def _on_screen(node: UINode, screen: ScreenSize | None) -> bool:
    b = node.bounds
    if b is None or b.area == 0 or node.visible is False:
        return False
    return screen is None or b.intersection_area(screen.as_bounds()) > 0


def _labels_below(node: UINode) -> set[str]:
    return {_label(n) for n in node.iter() if n is not node and n.has_label}


def _listed(node: UINode, kind: Kind) -> bool:
    """Whether the node earns a line: it carries text, can be acted on or holds a state, and no
    element below it already shows what it would show."""
    assert node.bounds is not None
    if node.scrollable:
        return True
    labelled = node.has_label
    if not labelled and min(node.bounds.width, node.bounds.height) < SLIVER_PX:
        return False
    if not node.children:
        return labelled or node.is_interactive or info(kind).stateful
    if labelled and _label(node) not in _labels_below(node):
        return True
    if kind in TYPES and kind not in (Kind.TEXT,) and (node.is_interactive or info(kind).stateful):
        # A control drawn from children (a button whose text is a child): listed once, as itself,
        # unless its label is listed below.
        return not any(n.has_label for n in node.iter() if n is not node)
    # A clickable row or icon without labels of its own or below it (an unlabelled image button).
    return (node.clickable or node.checkable) and not any(
        n.has_label or n.clickable for n in node.iter() if n is not node)


def _type_of(node: UINode, kind: Kind) -> str:
    if kind in TYPES:
        return TYPES[kind]
    if node.scrollable:
        return "scroll_area"
    if kind is Kind.IMAGE:
        return "icon" if node.clickable else "image"
    if node.editable:
        return "input_field"
    if node.checkable:
        return "checkbox"
    if node.clickable or node.long_clickable:
        return "button"
    if kind in _CONTAINERS or kind is Kind.UNKNOWN:
        return "text" if node.has_label else "element"
    return str(kind.value).replace(" ", "_")


def build_elements(tree: UITree) -> tuple[UIElement, ...]:
    """The element list of a cleaned tree, in document order, ids from ``element_1``."""
    out: list[UIElement] = []
    for node in tree.iter():
        if not _on_screen(node, tree.screen):
            continue
        kind = kind_of(node.class_name)
        if not _listed(node, kind):
            continue
        assert node.bounds is not None
        text = _label(node)
        desc = " ".join(node.content_desc.split())
        checkable = node.checkable or info(kind).on_off or kind in (Kind.CHECK_BOX, Kind.RADIO_BUTTON)
        out.append(UIElement(
            id=f"{ID_PREFIX}{len(out) + 1}", type=_type_of(node, kind), bounds=node.bounds, text=text,
            subtype=SUBTYPES.get(kind, ""), description=desc if desc and desc != text else "",
            checked=node.checked if checkable else None, focused=node.focused, selected=node.selected,
            enabled=node.enabled, scrollable=node.scrollable,
        ))
    return tuple(out)


def element_lines(elements: Iterable[UIElement]) -> str:
    """The list as the prompt shows it, one element a line."""
    return "\n".join(e.line() for e in elements)


def screen_signature(elements: Iterable[UIElement], screen: ScreenSize | None, surface: Surface = PHONE) -> str:
    """What identifies a screen for the re-query rule: the set of (type, text, description, checked,
    bounds rounded to about 1% of the screen) of the listed elements.

    On a phone (the card's Android rule) the status bar and times of day are ignored (a clock ticking is not a
    new screen; a list that scrolled is), and so is focus: tapping a field focuses it without showing anything
    new. On a web page the published rule holds: any attribute that differs, focus included, is a new screen
    (a page has no status bar or clock of its own).
    """
    quantum = max(4, min(screen.width, screen.height) // 100) if screen is not None else 8
    bar = screen.height * STATUS_BAR_SHARE if screen is not None and not surface.web else 0.0
    keys: set[tuple[object, ...]] = set()
    for e in elements:
        b = e.bounds
        if b.bottom <= bar:
            continue
        text, description = (e.text, e.description) if surface.web else (_CLOCK.sub("#:##", e.text),
                                                                         _CLOCK.sub("#:##", e.description))
        focus = (e.focused,) if surface.web else ()
        keys.add((e.type, text, description, e.checked, *focus,
                  round(b.left / quantum), round(b.top / quantum), round(b.right / quantum),
                  round(b.bottom / quantum)))
    text = "\n".join(sorted(map(repr, keys)))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
