"""One observation of the phone: the raw dump, the cleaned tree, its description and element list."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from latent_agent.accessibility.tree import UITree
from latent_agent.device.base import Device
from latent_agent.grounder.base import GroundingScreen


@dataclass(frozen=True, slots=True)
class Observation:
    """What the agent saw at one step.

    Attributes:
        raw: The dump exactly as the device produced it.
        tree: The cleaned tree.
        description: The natural-language description the LLM reads.
        screen: The compact element list and screen size the grounder reads.
        screenshot: PNG bytes, or None when screenshots are off.
        package: The foreground package.
        device_s: Time spent in device calls to make this observation.
    """

    raw: bytes
    tree: UITree
    description: str
    screen: GroundingScreen
    screenshot: bytes | None
    package: str
    device_s: float


def observe(device: Device, apps: Mapping[str, str], *, screenshot: bool) -> Observation:
    """Read the screen (and a screenshot) and prepare what the prompts show.

    Raises:
        DeviceError: The device could not be read.
    """
    from latent_agent.accessibility.clean import clean_tree
    from latent_agent.accessibility.describe import describe
    from latent_agent.accessibility.elements import elements_json, grounder_elements

    start = time.perf_counter()
    hierarchy = device.hierarchy()
    shot = device.screenshot() if screenshot else None
    size = hierarchy.tree.screen or device.screen_size()
    package = hierarchy.tree.foreground_package or device.foreground_package()
    device_s = time.perf_counter() - start
    tree = clean_tree(hierarchy.tree)
    elements = tuple(grounder_elements(tree))
    screen = GroundingScreen(elements, elements_json(list(elements)), size, apps, tree)
    return Observation(hierarchy.raw, tree, describe(tree), screen, shot, package, device_s)
