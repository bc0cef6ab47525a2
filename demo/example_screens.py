"""The worked examples' screens, rendered afresh on the simulated phone.

``python -m latent_agent.demo.example_screens`` prints them; ``--write`` stores them in
``agent/latent_state/examples/latent_examples.json`` after a deliberate change to the simulated phone or to the
screen description (a test fails while the stored screens differ from what the sim renders).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.tree import ScreenSize
from latent_agent.agent.latent_state.worked_examples import EXAMPLES_FILE, load_examples, read_examples_file
from latent_agent.benchmarks.steps import replay, step_from_json
from latent_agent.device.sim.device import SimDevice


def regenerate(path: Path = EXAMPLES_FILE) -> list[str]:
    """Each example's screen description, rendered afresh on the simulated phone."""
    out: list[str] = []
    for i, raw in enumerate(read_examples_file(path)["examples"], 1):
        screen = raw["screen"]
        width, height = screen["size"]
        device = SimDevice(size=ScreenSize(width, height))
        replay(device, [step_from_json(a, f"example {i}") for a in screen["sim_actions"]])
        out.append(describe(clean_tree(device.hierarchy().tree)))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m latent_agent.demo.example_screens [--write]``: show (or store) the regenerated screens."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="store the regenerated descriptions in the file")
    args = parser.parse_args(argv)
    descriptions = regenerate()
    if not args.write:
        print("\n\n".join(descriptions))
        return 0
    data = read_examples_file(EXAMPLES_FILE)
    for raw, description in zip(data["examples"], descriptions, strict=True):
        raw["screen"]["description"] = description
    EXAMPLES_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    load_examples.cache_clear()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
