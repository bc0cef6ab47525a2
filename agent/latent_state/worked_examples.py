"""The three worked examples of the CoT-SC and ReAct selectors, one set per surface, read from
``agent/latent_state/examples/`` (:data:`EXAMPLES_FILES`).

The examples are data, not template text: the selector templates render them in the
same format as the real query (:mod:`latent_agent.agent.latent_state.selection`), the examples of the surface the
prompt is rendered for (:func:`examples_for`). A phone example's screen is a screen of the simulated phone,
reached by recorded sim actions; a web page example's is a page written in the form the MiniWoB++ device's walk
reports a page (a uiautomator XML file beside the examples). :mod:`latent_agent.demo.example_screens` describes
each again, so a test can check that the stored descriptions have not drifted from what the agent would see, and
``python -m latent_agent.demo.example_screens --write`` rewrites them after a deliberate change to the simulated
phone, to a page or to the screen description.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latent_agent.errors import ConfigError
from latent_agent.surfaces import Surface, SurfaceKind

#: The folder of the examples (and of the web examples' pages).
EXAMPLES_DIR = Path(__file__).parent / "examples"
#: Each surface's examples.
EXAMPLES_FILES: dict[SurfaceKind, Path] = {
    "phone": EXAMPLES_DIR / "latent_examples.json",
    "web_page": EXAMPLES_DIR / "latent_examples_web.json",
}


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


def read_examples_file(path: Path) -> dict[str, Any]:
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
def load_examples(path: Path = EXAMPLES_FILES["phone"]) -> tuple[WorkedExample, ...]:
    """The worked examples, in order.

    Raises:
        ConfigError: The file is missing or malformed (the message names the example).
    """
    data = read_examples_file(path)
    return tuple(_example(raw, f"{path} example {i}") for i, raw in enumerate(data["examples"], 1))


def examples_for(surface: Surface) -> tuple[WorkedExample, ...]:
    """The worked examples shown to an agent operating ``surface``.

    Raises:
        ConfigError: The surface's file is missing or malformed.
    """
    return load_examples(EXAMPLES_FILES[surface.kind])
