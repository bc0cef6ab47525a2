"""The three worked examples of the CoT-SC and ReAct selectors, read from ``agent/examples/latent_examples.json``.

The examples are data, not template text: the selector templates render them in the
same format as the real query (:mod:`agent.selection`). Each example's screen is a
screen of the simulated phone; :func:`regenerate` renders it again from the recorded
sim actions, so a test can check that the stored descriptions have not drifted from
what the agent would see, and ``python -m agent.worked_examples --write`` rewrites them
after a deliberate change to the simulated phone or to the screen description.
"""

from __future__ import annotations

import argparse
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latent_agent.errors import ConfigError

#: Where the examples live.
EXAMPLES_FILE = Path(__file__).parent / "examples" / "latent_examples.json"


@dataclass(frozen=True, slots=True)
class WorkedExample:
    """One worked example.

    Attributes:
        goal: The example's goal.
        history: The commanded actions so far (what ``-`` selectors see).
        progress: The progression estimate, as prose beginning "You have" (``+`` selectors).
        mistakes: The mistakes estimate (``+`` selectors).
        description: The example screen, as the screen description renders it.
        reasoning: The reasoning shown by CoT-SC and as the ReAct thought.
        answer: The action the example concludes with.
    """

    goal: str
    history: tuple[str, ...]
    progress: str
    mistakes: str
    description: str
    reasoning: str
    answer: str


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"worked examples {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("examples"), list):
        raise ConfigError(f"worked examples {path}: expected an object with an 'examples' list")
    return data


def _example(raw: dict[str, Any], where: str) -> WorkedExample:
    try:
        return WorkedExample(
            goal=str(raw["goal"]), history=tuple(str(h) for h in raw["history"]), progress=str(raw["progress"]),
            mistakes=str(raw["mistakes"]), description=str(raw["screen"]["description"]),
            reasoning=str(raw["reasoning"]), answer=str(raw["answer"]),
        )
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"worked examples {where}: missing or malformed field {exc}") from None


@functools.cache
def load_examples(path: Path = EXAMPLES_FILE) -> tuple[WorkedExample, ...]:
    """The worked examples, in order.

    Raises:
        ConfigError: The file is missing or malformed (the message names the example).
    """
    data = _read(path)
    return tuple(_example(raw, f"{path} example {i}") for i, raw in enumerate(data["examples"], 1))


def regenerate(path: Path = EXAMPLES_FILE) -> list[str]:
    """Each example's screen description, rendered afresh on the simulated phone."""
    from accessibility.clean import clean_tree
    from accessibility.describe import describe
    from accessibility.tree import ScreenSize
    from benchmarks.sim_tasks import Action, replay
    from device.sim.device import SimDevice

    out: list[str] = []
    for i, raw in enumerate(_read(path)["examples"], 1):
        screen = raw["screen"]
        width, height = screen["size"]
        device = SimDevice(size=ScreenSize(width, height))
        replay(device, [Action.from_json(a, f"example {i}") for a in screen["sim_actions"]])
        out.append(describe(clean_tree(device.hierarchy().tree)))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m agent.worked_examples [--write]``: show (or store) the regenerated screens."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="store the regenerated descriptions in the file")
    args = parser.parse_args(argv)
    descriptions = regenerate()
    if not args.write:
        print("\n\n".join(descriptions))
        return 0
    data = _read(EXAMPLES_FILE)
    for raw, description in zip(data["examples"], descriptions, strict=True):
        raw["screen"]["description"] = description
    EXAMPLES_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    load_examples.cache_clear()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
