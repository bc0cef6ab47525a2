"""A MiniWoB++ page as the web papers observe it, from the same page call as its uiautomator dump.

``js/page_view.js`` walks the task area (``#wrap``, less the query box) and the pop-ups attached to the body
once more inside the ``page.evaluate`` that runs ``js/walk.js`` (:func:`observe_script`), so one call gives
both the tree and the :class:`~latent_agent.accessibility.web_page.PageView`. Each element gets MiniWoB++'s
compact id as its own ``core.getDOMInfo`` gives it (``data-wob_ref``, kept for the episode); the task area's
HTML is cloned and cleaned in the page (scripts, styles, handlers and comments removed; typed values, checked
boxes and chosen options written in; a colour given by the element's style or fill, and a drawn shape and
its size, written as ``data-color``, ``data-shape`` and ``data-size``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from typing import Any

from latent_agent.accessibility.tree import Bounds, ScreenSize
from latent_agent.accessibility.web_page import PageElement, PageView
from latent_agent.device.miniwob.dump import walk_script


@functools.cache
def page_script() -> str:
    """The page view's walk (``js/page_view.js``)."""
    return resources.files("latent_agent.device.miniwob").joinpath("js/page_view.js").read_text("utf-8")


@functools.cache
def observe_script() -> str:
    """One page call of both walks: ``{root: <walk.js's root node>, page: <page_view.js's view>}`` as JSON text.

    One string crosses to Python rather than the nested values: Playwright reads a returned object value by
    value, which for a page of a few hundred elements cost more than both walks in the page.
    """
    return f"(scale) => JSON.stringify({{ root: ({walk_script()})(scale), page: ({page_script()})(scale) }})"


def _element(data: Mapping[str, Any]) -> PageElement:
    left, top, right, bottom = (int(v) for v in data["bounds"])
    checked = data["checked"]
    return PageElement(
        id=int(data["id"]), tag=str(data["tag"]), bounds=Bounds(left, top, right, bottom),
        visible=bool(data["visible"]), leaf=bool(data["leaf"]), classes=tuple(str(c) for c in data["classes"]),
        dom_id=str(data["dom_id"]), text=str(data["text"]), placeholder=str(data["placeholder"]),
        value=str(data["value"]), checked=None if checked is None else bool(checked),
        attributes={str(k): str(v) for k, v in data["attributes"].items()})


def to_page_view(page: Mapping[str, Any], screen: ScreenSize) -> PageView:
    """What ``js/page_view.js`` returned, as a :class:`PageView` of a screen of ``screen`` device pixels."""
    return PageView(tuple(_element(e) for e in page["elements"]), str(page["html"]), screen)
