"""The worked examples' screens, described afresh: the simulated phone's, and the web examples' pages.

A phone example's screen is rendered again on the simulated phone from its recorded sim actions; a web page
example's is its page file (uiautomator XML beside the examples, the form the MiniWoB++ device's walk reports a
page) read again. ``python -m latent_agent.demo.example_screens`` prints them; ``--write`` stores them in
``agent/latent_state/examples/`` after a deliberate change to the simulated phone, to a page or to the screen
description (a test fails while the stored screens differ from what is described here).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.agent.latent_state.worked_examples import EXAMPLES_FILES, load_examples, read_examples_file
from latent_agent.benchmarks.steps import replay, step_from_json
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError


def _described(screen: dict[str, Any], folder: Path, where: str) -> str:
    """The description of one example's screen: its page file read, or its sim actions replayed."""
    if "page" in screen:
        page = folder / str(screen["page"])
        try:
            data = page.read_bytes()
        except OSError as exc:
            raise ConfigError(f"{where}: its page {page}: {exc.strerror or exc}") from None
        return describe(clean_tree(parse_xml(data, source=str(page))))
    width, height = screen["size"]
    device = SimDevice(size=ScreenSize(width, height))
    replay(device, [step_from_json(a, where) for a in screen["sim_actions"]])
    return describe(clean_tree(device.hierarchy().tree))


def regenerate(path: Path = EXAMPLES_FILES["phone"]) -> list[str]:
    """Each example's screen description in the examples file ``path``, described afresh."""
    return [_described(raw["screen"], path.parent, f"{path.name} example {i}")
            for i, raw in enumerate(read_examples_file(path)["examples"], 1)]


def main(argv: list[str] | None = None) -> int:
    """``python -m latent_agent.demo.example_screens [--write]``: show (or store) the regenerated screens."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="store the regenerated descriptions in the files")
    args = parser.parse_args(argv)
    for path in EXAMPLES_FILES.values():
        descriptions = regenerate(path)
        if not args.write:
            print(f"# {path.name}\n\n" + "\n\n".join(descriptions) + "\n")
            continue
        data = read_examples_file(path)
        for raw, description in zip(data["examples"], descriptions, strict=True):
            raw["screen"]["description"] = description
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    load_examples.cache_clear()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
