#!/usr/bin/env python3
"""Benchmark: parse + clean + describe per real screen and on large synthetic trees.

Prints a markdown section for docs/performance.md. Run from the repository
root with the project installed: ``python scripts/bench_accessibility.py``.
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import grounder_elements
from latent_agent.accessibility.load import load_tree
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.serialize import to_uiautomator_xml
from latent_agent.accessibility.stats import screen_stats
from latent_agent.accessibility.synthetic import settings_like_tree
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.errors import TreeTooLargeError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def pipeline(raw: bytes, screen: ScreenSize | None = None) -> str:
    """Parse + clean + describe: what the target covers."""
    return describe(clean_tree(parse_xml(raw, visible_on=screen)))


def with_grounder_list(raw: bytes, screen: ScreenSize | None = None) -> str:
    tree = clean_tree(parse_xml(raw, visible_on=screen))
    grounder_elements(tree)
    return describe(tree)


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    screens = sorted(DATA.glob("uiautomator_dumps/*/*.xml")) + sorted(DATA.glob("appium_page_sources/*/*.xml"))
    per_screen = []
    nodes = []
    raw_ratio, aw_ratio = [], []
    for path in screens:
        raw = path.read_bytes()
        per_screen.append(statistics.median(timed(lambda raw=raw: pipeline(raw), 30)))
        tree = load_tree(path)
        nodes.append(tree.node_count)
        reps = {r.name: r.tokens for r in screen_stats(raw.decode("utf-8"), tree)}
        raw_ratio.append(reps["description (ours)"] / reps["raw dump"])
        aw_ratio.append(reps["description (ours)"] / reps["AndroidWorld element list"])

    print("## Accessibility layer")
    print()
    print(f"Measured by `python scripts/bench_accessibility.py` on {platform.machine()}, "
          f"{platform.python_implementation()} {platform.python_version()}, {len(screens)} real screens "
          f"({min(nodes)}-{max(nodes)} nodes). Times are medians over repeated runs of parse + clean + "
          "describe (the target), and of the same plus the grounder's element list, in milliseconds.")
    print()
    print("| input | nodes | parse+clean+describe, median ms | max ms | + grounder list, median ms |")
    print("|---|---:|---:|---:|---:|")
    full = [statistics.median(timed(lambda p=p: with_grounder_list(p.read_bytes()), 10)) for p in screens]
    print(f"| real screens (median over screens) | {int(statistics.median(nodes))} | "
          f"{statistics.median(per_screen):.2f} | {max(per_screen):.2f} | {statistics.median(full):.2f} |")
    screen = ScreenSize(1080, 2400)
    cases = (
        ("2,000 nodes, all on screen", 2_000, 6, None, 21),
        ("2,000 nodes, all on screen, screen size known", 2_000, 6, screen, 21),
        ("2,000 nodes, 550 on screen (long list)", 2_000, 24, None, 21),
        ("2,000 nodes, 550 on screen, screen size known", 2_000, 24, screen, 21),
        ("5,000 nodes, all on screen", 5_000, 2, None, 7),
        ("50,000 nodes, 550 on screen", 50_000, 24, None, 3),
        ("50,000 nodes, 550 on screen, screen size known", 50_000, 24, screen, 3),
    )
    for label, n, row, known, reps in cases:
        raw = to_uiautomator_xml(settings_like_tree(n, row_height=row))
        count = parse_xml(raw).node_count
        t = timed(lambda raw=raw, known=known: pipeline(raw, known), reps)
        g = timed(lambda raw=raw, known=known: with_grounder_list(raw, known), reps)
        print(f"| synthetic Settings-like list: {label} | {count} | {statistics.median(t):.1f} | {max(t):.1f} "
              f"| {statistics.median(g):.1f} |")
    big = to_uiautomator_xml(settings_like_tree(200_000))
    t0 = time.perf_counter()
    try:
        parse_xml(big)
        refused = "accepted"
    except TreeTooLargeError as exc:
        refused = f"refused in {(time.perf_counter() - t0) * 1000:.0f} ms: `{exc}`"
    print(f"| synthetic, 200,000 nodes | - | {refused} | | |")
    print()
    print("Description size (o200k_base tokens), median over the real screens: "
          f"{100 * statistics.median(raw_ratio):.1f}% of the raw dump (target <= 25%), "
          f"{100 * statistics.median(aw_ratio):.1f}% of the AndroidWorld-style element list (target <= 50%); "
          "largest per-screen ratios: "
          f"{100 * max(raw_ratio):.1f}% and {100 * max(aw_ratio):.1f}%. No visible label is lost "
          "(tests/accessibility/test_invariants.py).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
