"""An element named by its id on a web page, as a point to act at: the one resolver of ``id=N``.

The web papers' agents name elements by the compact ids of the page they were shown
(:class:`~latent_agent.accessibility.web_page.PageView`): structured reflection's ``click id=4`` and
``enter "Bob" to id=7``. Each method's parser reads its own syntax and asks here for the point, so an id
the page does not have, or one that is not shown, is the same recorded grounding error for every method,
never a crash and never a tap somewhere else.
"""

from __future__ import annotations

from latent_agent.accessibility.web_page import PageView
from latent_agent.errors import GroundingError


def element_point(view: PageView, element_id: int) -> tuple[int, int]:
    """The centre of the shown part of the element whose compact id is ``element_id``, in device pixels.

    Raises:
        GroundingError: No element has that id on the page, or it is not visible (hidden, of no size, or
            scrolled out of view: a click there would reach something else).
    """
    element = view.element(element_id)
    if element is None:
        raise GroundingError(f"no element id={element_id} on the page")
    if not element.visible:
        raise GroundingError(f"element id={element_id} is not visible")
    return element.bounds.center
