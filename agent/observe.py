"""One observation of the phone: the raw dump, the cleaned tree, its description and element list.

Where the tree comes from is the observation source, which any method can use:

* ``a11y`` (the default): the accessibility dump (``Device.hierarchy``), as the method prescribes;
* ``screen``: the screenshot alone, read by the screenshot observer
  (:mod:`latent_agent.accessibility.screen`); the dump is never requested, so apps whose
  accessibility tree is poor (games, canvases, some Flutter and WebView screens) are seen as a
  person sees them. The stored "dump" is then the observer's tree written as a uiautomator dump;
* ``both``: the dump's tree plus the screenshot's elements it lacks (unlabelled drawn text, controls
  drawn on a canvas), added as one more window (:func:`~latent_agent.accessibility.screen.merge.merge_trees`).

The screen sources take a screenshot at every step whatever the screenshot setting: it is what they see.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import elements_json, grounder_elements
from latent_agent.accessibility.screen.layout import CLASSES, build_tree
from latent_agent.accessibility.screen.merge import merge_trees, screen_only
from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.accessibility.serialize import to_uiautomator_xml
from latent_agent.accessibility.tree import Bounds, ScreenSize, UITree
from latent_agent.accessibility.web_page import PageView
from latent_agent.agent.icon_names import IconBox, name_icons, names_by_bounds
from latent_agent.device.base import Device
from latent_agent.errors import ConfigError
from latent_agent.grounder.base import GroundingScreen
from latent_agent.llm.images import Image
from latent_agent.surfaces import PHONE, Surface, surface_of

if TYPE_CHECKING:
    from latent_agent.accessibility.screen.observer import ScreenReading
    from latent_agent.agent.calls import LLMCaller

#: Where an observation's tree comes from.
ObservationSource = Literal["a11y", "screen", "both"]
OBSERVATION_SOURCES: tuple[ObservationSource, ...] = get_args(ObservationSource)
#: Longest wait, in seconds, for the screen to settle after an action (``Device.wait_for_idle``'s default).
SETTLE_S = 2.0


def check_source(name: str) -> ObservationSource:
    """``name`` as an observation source.

    Raises:
        ConfigError: It is not one.
    """
    for source in OBSERVATION_SOURCES:
        if name == source:
            return source
    raise ConfigError(f"unknown observation source {name!r}; choose one of {', '.join(OBSERVATION_SOURCES)}")


@dataclass(frozen=True, slots=True)
class Observation:
    """What the agent saw at one step.

    Attributes:
        raw: The dump exactly as the device produced it (for ``screen``: the observer's tree as a dump).
        tree: The cleaned tree.
        description: The natural-language description the LLM reads.
        screen: The compact element list and screen size the grounder reads.
        screenshot: PNG bytes, or None when screenshots are off.
        package: The foreground package.
        device_s: Time spent in device calls to make this observation.
        source: Where the tree came from.
        observer_s: Time the screenshot observer took (0 for ``a11y``).
        page: The web page as the web papers observe it (compact ids, the task area's HTML), from the same
            walk as the tree, on a device whose surface is a web page (``Hierarchy.page``); None on a phone
            and for the ``screen`` source, which never reads the page.
    """

    raw: bytes
    tree: UITree
    description: str
    screen: GroundingScreen
    screenshot: bytes | None
    package: str
    device_s: float
    source: ObservationSource = "a11y"
    observer_s: float = 0.0
    page: PageView | None = None


def observe(device: Device, apps: Mapping[str, str], *, screenshot: bool, source: ObservationSource = "a11y",
            observer: ScreenObserver | None = None) -> Observation:
    """Read the screen (and a screenshot) and prepare what the prompts show.

    Args:
        device: The phone.
        apps: Launcher label -> package (the grounder's ``open_app`` targets).
        screenshot: Whether to take and keep a screenshot (always taken for the screen sources).
        source: Where the tree comes from (see the module docstring).
        observer: The screenshot observer for ``screen`` and ``both`` (one with the default OCR engine
            when None; pass one to reuse its loaded models across steps).

    Raises:
        DeviceError: The device could not be read.
        ConfigError: The screenshot observer's OCR engine is not installed.
        ParseError: The screenshot could not be read.
    """
    return _assemble(_read(device, screenshot, source, observer), apps, source, {})


async def observe_named(device: Device, apps: Mapping[str, str], caller: LLMCaller, *, source: ObservationSource,
                        observer: ScreenObserver | None = None) -> Observation:
    """:func:`observe` for ``screen`` and ``both``, with the unlabelled icons the screenshot shows named.

    One multimodal call (:func:`latent_agent.agent.icon_names.name_icons`, purpose ``name_icons``) names
    every icon the observer found and left unlabelled (for ``both``: those the dump lacks); each name
    becomes its icon's content description. No icon, no call.

    Raises:
        ConfigError: ``source`` is ``a11y`` (the dump's icons are named by the app or not at all).
        DeviceError, ParseError: As :func:`observe`.
        LLMError: The call failed.
    """
    if source == "a11y":
        raise ConfigError("naming icons needs a screen observation source (screen or both), not a11y")
    seen = _read(device, True, source, observer)
    assert seen.shot is not None and seen.reading is not None
    boxes = [IconBox(f"icon{n}", bounds) for n, bounds in enumerate(_unnamed_icons(seen), 1)]
    names = await name_icons(caller, Image(seen.shot, "image/png"), boxes, surface=seen.surface) if boxes else {}
    return _assemble(seen, apps, source, names_by_bounds(boxes, names))


@dataclass(frozen=True, slots=True)
class _Seen:
    """What the device gave for one observation, before it is prepared for the prompts."""

    raw: bytes | None
    dump: UITree | None
    size: ScreenSize
    shot: bytes | None
    package: str
    device_s: float
    reading: ScreenReading | None
    surface: Surface = PHONE
    page: PageView | None = None


def _read(device: Device, screenshot: bool, source: ObservationSource, observer: ScreenObserver | None) -> _Seen:
    start = time.perf_counter()
    if source == "a11y":
        hierarchy = device.hierarchy()
        shot = device.screenshot() if screenshot else None
        size = hierarchy.tree.screen or device.screen_size()
        package = hierarchy.tree.foreground_package or device.foreground_package()
        return _Seen(hierarchy.raw, hierarchy.tree, size, shot, package, time.perf_counter() - start, None,
                     surface_of(device.capabilities.surface), hierarchy.page)

    reader = observer or ScreenObserver()
    raw: bytes | None = None
    dump: UITree | None = None
    page: PageView | None = None
    if source == "both":
        hierarchy = device.hierarchy()
        raw, dump, page = hierarchy.raw, hierarchy.tree, hierarchy.page
    shot = device.screenshot()
    # Never from the dump in ``screen``: adb reads the focused window from ``dumpsys window``.
    package = (dump.foreground_package if dump is not None else "") or device.foreground_package()
    device_s = time.perf_counter() - start
    reading = reader.read(shot, package=package)
    return _Seen(raw, dump, reading.size, shot, package, device_s, reading, surface_of(device.capabilities.surface),
                 page)


def _unnamed_icons(seen: _Seen) -> list[Bounds]:
    """Boxes of the icons the observer found unlabelled (for ``both``: only those the dump lacks)."""
    assert seen.reading is not None
    tree = clean_tree(seen.reading.tree)
    nodes = screen_only(clean_tree(seen.dump), tree) if seen.dump is not None else list(tree.iter())
    return [n.bounds for n in nodes
            if n.class_name == CLASSES["icon"] and not n.content_desc and n.bounds is not None]


def _assemble(seen: _Seen, apps: Mapping[str, str], source: ObservationSource,
              names: Mapping[Bounds, str]) -> Observation:
    if seen.reading is None:
        assert seen.raw is not None and seen.dump is not None
        return _prepared(seen.raw, clean_tree(seen.dump), seen.size, seen.shot, seen.package, seen.device_s, apps,
                         source, 0.0, seen.surface, seen.page)

    reading = seen.reading
    start = time.perf_counter()
    built = build_tree(reading.size, reading.lines, reading.controls, package=seen.package, names=names) \
        if names else reading.tree
    shown = clean_tree(built)
    if seen.dump is None or seen.raw is None:
        tree, raw = shown, to_uiautomator_xml(built)
    else:
        tree, raw = merge_trees(clean_tree(seen.dump), shown), seen.raw
    observer_s = reading.ocr_s + reading.controls_s + time.perf_counter() - start
    return _prepared(raw, tree, reading.size, seen.shot, seen.package, seen.device_s, apps, source, observer_s,
                     seen.surface, seen.page)


def settle(device: Device, source: ObservationSource, timeout: float = SETTLE_S) -> None:
    """Wait until the UI stops changing after an action, without reading the dump for ``screen``.

    ``Device.wait_for_idle`` compares successive dumps on phones over adb, which would read the
    accessibility tree the ``screen`` source promises never to request; that source compares
    successive screenshots instead, until two agree or ``timeout`` seconds have passed.

    Raises:
        DeviceError: The device could not be read.
    """
    if source != "screen":
        device.wait_for_idle()
        return
    deadline = time.monotonic() + timeout
    previous = device.screenshot()
    while time.monotonic() < deadline:
        current = device.screenshot()
        if current == previous:
            return
        previous = current


def _prepared(raw: bytes, tree: UITree, size: ScreenSize, shot: bytes | None, package: str, device_s: float,
              apps: Mapping[str, str], source: ObservationSource, observer_s: float, surface: Surface,
              page: PageView | None) -> Observation:
    elements = tuple(grounder_elements(tree))
    screen = GroundingScreen(elements, elements_json(list(elements)), size, apps, tree, surface)
    return Observation(raw, tree, describe(tree), screen, shot, package, device_s, source, observer_s, page)
