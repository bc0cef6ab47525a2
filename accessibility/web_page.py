"""A web page as the MiniWoB++ papers observe it: its elements with ids, and the task area's HTML.

A device that shows a web page (:class:`~latent_agent.device.web_page.WebPage`) walks the page once per
observation and gives a :class:`PageView` beside its accessibility tree (``Hierarchy.page``). Two of the
papers' observation formats are rendered from it:

* :meth:`PageView.compact_html`, structured reflection's screen: one line per visible leaf element,
  ``<tag id=N class="..." placeholder="..." value="..." pos="top left">text</tag>``, where ``id`` is the
  element's compact id (MiniWoB++'s ``data-wob_ref``) and ``pos`` the centre of its box on a 3x3 grid of the
  screen; content hidden behind an action (a closed tab, a collapsed section) is left out until it is shown;
* :attr:`PageView.task_html`, Synapse's state: the task area's HTML, cleaned of scripts, styles and comments,
  with the colours, shapes and sizes the page draws by CSS written as attributes (``data-color="red"``).

The page's text is untrusted: everything rendered here is escaped, so a text cannot open a tag or end a line
of the compact screen.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from latent_agent.accessibility.tree import Bounds, ScreenSize

#: The 3x3 grid's cells by (row, column), as the structured-reflection authors' code names them.
GRID_CELLS: dict[tuple[int, int], str] = {
    (0, 0): "top left", (0, 1): "top", (0, 2): "top right",
    (1, 0): "left", (1, 1): "center", (1, 2): "right",
    (2, 0): "bottom left", (2, 1): "bottom", (2, 2): "bottom right",
}
#: Tag of a piece of text that stands beside elements (MiniWoB++'s DOM info calls it ``t``); its id is negative.
TEXT_TAG = "t"
#: The value a checked checkbox or radio (or a chosen option) shows in the compact screen, as MiniWoB++'s DOM
#: info gave a checkbox's.
CHECKED_VALUE = "True"


@dataclass(frozen=True, slots=True)
class PageElement:
    """One element of a page as one walk of the DOM saw it.

    Attributes:
        id: Its compact id, stable for the step: the element's ``data-wob_ref`` (MiniWoB++'s own reference,
            kept by the element for the whole episode); a piece of text standing beside elements (tag ``t``)
            has a negative id, numbered afresh at each walk.
        tag: The tag, lower case; an ``<input>`` with its type (``input_text``, ``input_checkbox``), as
            MiniWoB++'s DOM info names it; ``t`` for a piece of text.
        bounds: Its box in device pixels: the part shown on screen when it is visible, else its whole box
            (which may lie off the screen).
        visible: Whether a person sees it now: displayed, not ``visibility: hidden`` nor transparent, of
            some size, and not scrolled or clipped out of view.
        leaf: Whether it shows no element of its own inside (a button, a field, a piece of text).
        classes: Its CSS classes.
        dom_id: Its HTML ``id`` attribute, or an empty string.
        text: Its text, whitespace squashed (a leaf's whole text; a field's is its value).
        placeholder: A field's placeholder.
        value: A field's current value, a ``<select>``'s chosen option.
        checked: A checkbox's or radio's state, or whether an option of a list box is chosen; None for any
            other element.
        attributes: What tasks ask about, where the page draws it: ``color`` (a colour name), ``shape``
            and ``size`` (``WxH`` in CSS pixels) of a drawn shape.
    """

    id: int
    tag: str
    bounds: Bounds
    visible: bool
    leaf: bool
    classes: tuple[str, ...] = ()
    dom_id: str = ""
    text: str = ""
    placeholder: str = ""
    value: str = ""
    checked: bool | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)


def grid_position(bounds: Bounds, screen: ScreenSize) -> str:
    """Where the centre of ``bounds`` lies on a 3x3 grid of ``screen`` (``top left`` ... ``bottom right``)."""
    x, y = bounds.center
    column = min(2, max(0, x * 3 // max(1, screen.width)))
    row = min(2, max(0, y * 3 // max(1, screen.height)))
    return GRID_CELLS[(row, column)]


def _attribute(name: str, value: str) -> str:
    return f'{name}="{html.escape(value, quote=True)}"' if value else ""


def compact_line(element: PageElement, screen: ScreenSize) -> str:
    """One element in structured reflection's format (attributes left out while empty; text escaped)."""
    # The authors' format shows the classes, or the HTML id when there are none.
    classes = " ".join(element.classes) or element.dom_id
    value = CHECKED_VALUE if element.checked else element.value
    # A tag is the page's own word; anything but a plain name would let a page shape the line.
    tag = element.tag if element.tag.replace("_", "").replace("-", "").isalnum() else "div"
    parts = [f"id={element.id}", _attribute("class", classes), _attribute("placeholder", element.placeholder),
             _attribute("value", value), _attribute("pos", grid_position(element.bounds, screen))]
    text = html.escape(" ".join(element.text.split()), quote=False)
    return f"<{tag} {' '.join(p for p in parts if p)}>{text}</{tag}>"


@dataclass(frozen=True, slots=True)
class PageView:
    """A web page at one step: its elements and its task area's HTML, from one walk of the DOM.

    Attributes:
        elements: Every element walked (displayed ones; ``display: none`` content is not walked), in
            document order: the task area's, then the pop-ups attached to the page's body (a date picker,
            a list of suggestions, an opened ``<select>``).
        task_html: The task area's HTML for Synapse (see the module docstring): ``#wrap`` without the
            query, then the pop-ups shown over it; every element keeps its ``data-wob_ref`` once it has one.
        screen: The screen the bounds are in (device pixels): the grid of the positions.
    """

    elements: tuple[PageElement, ...]
    task_html: str
    screen: ScreenSize

    @property
    def leaves(self) -> Iterator[PageElement]:
        """The visible leaf elements, in document order: what :meth:`compact_html` shows."""
        return (e for e in self.elements if e.leaf and e.visible)

    def compact_html(self) -> str:
        """Structured reflection's screen: one line per visible leaf element (see the module docstring)."""
        return "\n".join(compact_line(e, self.screen) for e in self.leaves)

    def element(self, element_id: int) -> PageElement | None:
        """The element whose compact id is ``element_id``, or None when the page has none."""
        return next((e for e in self.elements if e.id == element_id), None)
