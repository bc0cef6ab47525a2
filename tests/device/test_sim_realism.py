"""Five sim screens beside the closest real dumps (tests/data, see tests/data/SOURCES.md).

Each pair is compared on what an agent's observation is made of: the node
attribute set, the window's top structure, the package, class names,
resource ids, nesting depth and the labels both screens share.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import UITree
from latent_agent.benchmarks.steps import find_element
from latent_agent.device.sim.device import SimDevice
from tests.device.sim_helpers import SIM_ATTRIBUTES

DATA = Path(__file__).parent.parent / "data"
#: What every uiautomator and Appium dump states for each node.
CORE = {
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
}
SHIRATES = "appium_page_sources/shirates-core"
#: (how to reach the sim screen, real dump, package, labels both must show)
PAIRS = [
    (
        "home",
        (),
        "uiautomator_dumps/AndroidViewClient/nexuslauncher_home_api27.xml",
        "com.google.android.apps.nexuslauncher",
        {"Chrome", "Play Store", "Apps list", "Search"},
    ),
    (
        "drawer",
        (),
        "uiautomator_dumps/nku-medgemma-conversion/window_dump.xml",
        "com.google.android.apps.nexuslauncher",
        {"Calendar", "Chrome", "Clock", "Files", "Settings"},
    ),
    (
        "Settings",
        (),
        "appium_page_sources/shirates-core/settings_top.xml",
        "com.android.settings",
        {"Search settings", "Network & internet", "Connected devices", "Battery", "Display", "Storage"},
    ),
    (
        "Settings",
        ("Network & internet",),
        "appium_page_sources/shirates-core/settings_network_and_internet.xml",
        "com.android.settings",
        {"Navigate up", "Network & internet", "Airplane mode", "Data Saver", "T-Mobile"},
    ),
    (
        "Clock",
        (),
        "appium_page_sources/shirates-core/clock_alarm.xml",
        "com.google.android.deskclock",
        {"Alarm", "Add alarm", "Expand alarm", "More options", "Clock", "Timer", "Stopwatch", "Bedtime"},
    ),
]


def sim_screen(where: str, taps: tuple[str, ...]) -> bytes:
    dev = SimDevice()
    if where == "drawer":
        dev.launch_activity("app_drawer")
    elif where != "home":
        dev.open_app(where)
    for label in taps:
        node = find_element(dev, label)
        assert node.bounds is not None
        dev.tap(*node.bounds.center)
    return dev.hierarchy().raw


def attribute_names(raw: bytes) -> set[str]:
    root = etree.fromstring(raw)
    names: set[str] = set()
    for el in root.iter():
        if el is not root:
            names |= set(el.attrib)
    return names


def top_classes(tree: UITree, depth: int = 3) -> list[str]:
    out, node = [], tree.roots[0]
    for _ in range(depth):
        out.append(node.class_name)
        if not node.children:
            break
        node = node.children[0]
    return out


def summary(tree: UITree) -> tuple[set[str], set[str], int, set[str]]:
    classes = {n.class_name for n in tree.iter()}
    rids = {n.resource_id for n in tree.iter() if n.resource_id}
    depth = max(d for _, d in tree.iter_with_depth())
    labels = {" ".join((n.text or n.content_desc).split()) for n in tree.iter()} - {""}
    return classes, rids, depth, labels


@pytest.mark.parametrize(
    ("where", "taps", "real_path", "package", "shared"), PAIRS, ids=[p[2].rsplit("/", 1)[-1] for p in PAIRS]
)
def test_sim_screen_matches_the_real_dump(
    where: str, taps: tuple[str, ...], real_path: str, package: str, shared: set[str]
) -> None:
    sim_raw = sim_screen(where, taps)
    real_raw = (DATA / real_path).read_bytes()
    sim, real = parse_xml(sim_raw), parse_xml(real_raw)

    # Attribute set: the sim writes every attribute real dumps carry (Appium's
    # "displayed" is uiautomator's "visible-to-user"), plus the modern extras.
    sim_attrs, real_attrs = attribute_names(sim_raw), attribute_names(real_raw)
    assert sim_attrs == set(SIM_ATTRIBUTES)
    assert real_attrs >= CORE and sim_attrs >= CORE
    assert {a.replace("displayed", "visible-to-user") for a in real_attrs} <= sim_attrs

    # Structure: one window, the same activity skeleton, the same package.
    assert len(sim.roots) == len(real.roots) == 1
    assert top_classes(sim) == top_classes(real)
    assert {n.package for n in sim.iter()} == {n.package for n in real.iter()} == {package}

    s_classes, s_rids, s_depth, s_labels = summary(sim)
    r_classes, r_rids, r_depth, r_labels = summary(real)
    assert len(s_classes & r_classes) >= 0.5 * len(r_classes), sorted(r_classes - s_classes)
    assert len(s_rids & r_rids) >= 0.4 * len(r_rids), sorted(r_rids - s_rids)
    assert all(":id/" in r for r in s_rids)
    assert abs(s_depth - r_depth) <= 4
    assert shared <= s_labels and shared <= r_labels
