#!/usr/bin/env python3
"""Figures of the screenshot observer, for docs/performance.md and docs/observer.md.

Screens whose true elements are known:

* every screen the simulated phone shows while its task suite's reference solutions are
  replayed (seed 0, no noise): the screenshot is drawn from the same windows as the dump, so
  the dump is the truth; each distinct screen once;
* every real screenshot kept in ``tests/data/screenshots`` with the dump taken with it.

For each OCR engine (``rapidocr``, ``tesseract``): labels recovered, box IoU and centre-inside
rate over recovered labels, and seconds per screen (OCR, then controls and tree); for the shape
analysis: controls found and states read right. Nothing here is timed by a unit test.

Usage: ``.venv/bin/python scripts/bench_observer.py [--engines rapidocr,tesseract] [--limit N]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.accessibility.screen.score import ScreenScore, score_screen
from latent_agent.accessibility.tree import UITree

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "screenshots"


@dataclass
class Totals:
    """Pooled figures of one engine on one set of screens."""

    scores: list[ScreenScore] = field(default_factory=list)
    ocr_s: list[float] = field(default_factory=list)
    controls_s: list[float] = field(default_factory=list)

    def line(self, name: str, screens: str) -> str:
        labels = sum(s.labels for s in self.scores)
        got = sum(s.recovered for s in self.scores)
        iou = sum(s.iou_sum for s in self.scores) / got if got else 0.0
        centred = sum(s.centred for s in self.scores) / got if got else 0.0
        controls = sum(s.controls for s in self.scores)
        found = sum(s.found for s in self.scores)
        checkable = sum(s.checkable for s in self.scores)
        right = sum(s.state_right for s in self.scores)
        return (f"| {name} | {screens} | {got}/{labels} = {got / max(1, labels):.1%} | {iou:.2f} | {centred:.1%} | "
                f"{found}/{controls} = {found / max(1, controls):.1%} | {right}/{checkable} | "
                f"{statistics.median(self.ocr_s):.2f} | {statistics.median(self.controls_s):.3f} |")

    def kinds(self) -> str:
        """Controls found by kind, e.g. ``switch 80/88``."""
        counts: dict[str, list[int]] = {}
        for score in self.scores:
            for kind, found in score.kinds:
                counts.setdefault(kind, [0, 0])
                counts[kind][0] += found
                counts[kind][1] += 1
        return ", ".join(f"{kind} {got}/{total}" for kind, (got, total) in sorted(counts.items()))


def sim_screens(limit: int | None) -> list[tuple[str, bytes, UITree]]:
    """(name, screenshot, cleaned dump) of every distinct screen of the sim suite's reference solutions."""
    from latent_agent.benchmarks.sim_tasks import load_suite
    from latent_agent.benchmarks.steps import perform
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.errors import DeviceError

    seen: dict[bytes, tuple[str, bytes, UITree]] = {}
    for task in load_suite():
        phone = SimDevice(0)
        steps = [None, *task.solution]
        for index, step in enumerate(steps):
            if step is not None:
                try:
                    perform(phone, step)
                except DeviceError:
                    break
            dump = phone.hierarchy()
            if dump.raw not in seen:
                seen[dump.raw] = (f"{task.id}#{index}", phone.screenshot(), clean_tree(dump.tree))
            if limit is not None and len(seen) >= limit:
                return list(seen.values())
    return list(seen.values())


def real_screens() -> list[tuple[str, bytes, UITree]]:
    """(name, screenshot, cleaned dump) of the real screenshots kept with their dumps."""
    out = []
    for png in sorted(REAL.glob("*/*.png")):
        xml = png.with_suffix(".xml")
        if xml.exists():
            out.append((png.stem, png.read_bytes(), clean_tree(parse_xml(xml.read_bytes(), source=xml.name))))
    return out


def measure(engine: str, screens: list[tuple[str, bytes, UITree]], show_misses: bool) -> Totals:
    observer = ScreenObserver(engine)
    observer.read(screens[0][1])  # load the models before timing
    totals = Totals()
    for name, png, truth in screens:
        reading = observer.read(png)
        score = score_screen(truth, reading.lines, reading.controls)
        totals.scores.append(score)
        totals.ocr_s.append(reading.ocr_s)
        totals.controls_s.append(reading.controls_s)
        if show_misses and score.missed:
            print(f"  {engine} {name}: missed {list(score.missed)[:6]}", file=sys.stderr)
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="rapidocr,tesseract")
    parser.add_argument("--limit", type=int, help="at most this many sim screens")
    parser.add_argument("--misses", action="store_true", help="list the labels each engine missed")
    args = parser.parse_args()
    start = time.perf_counter()
    sim = sim_screens(args.limit)
    real = real_screens()
    print(f"{len(sim)} distinct sim screens, {len(real)} real screenshot(s) "
          f"(collected in {time.perf_counter() - start:.1f} s)\n")
    print("| engine | screens | labels recovered | box IoU | centre inside | controls found | states right | "
          "OCR s/screen (median) | controls+tree s/screen (median) |")
    print("|---|---|---|---|---|---|---|---|---|")
    by_kind: list[str] = []
    for engine in args.engines.split(","):
        totals = measure(engine, sim, args.misses)
        print(totals.line(engine, f"sim ({len(sim)})"))
        by_kind.append(f"{engine}, sim: {totals.kinds()}")
        if real:
            print(measure(engine, real, args.misses).line(engine, f"real ({len(real)})"))
    print("\ncontrols found by kind:\n" + "\n".join(by_kind))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
