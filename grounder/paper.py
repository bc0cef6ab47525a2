"""The paper's grounder (the method's App. D), the default of ``run`` and ``sweep``.

What it gives the model, as the method specifies: the **leaf nodes** of the cleaned
accessibility tree as a JSON object ``{"UI elements": [{"text", "center", "size"}, ...]}``,
the screen's dimensions and the step to perform as the grounder's goal; optionally
(``paper-history``) the actions it grounded earlier in the episode. The prompt is
``prompts/templates/ground_paper.j2``; the answer is read by the one parser of LLM
JSON, :func:`latent_agent.grounder.actions.parse_action` (it takes the ```` ```json ```` block and
``activity_nickname`` the prompt asks for). The actions offered are the surface's (:data:`OFFERED`): the method's
on a phone; on a web page no app, launcher, Back or Home, and keys pressed N times, a drop-down's option and a
drag instead (the call's inputs name them, as the prompt shows them).

An unusable answer: the paper's grounder neither validates nor retries, so this one
asks once and does not check the point against the element list. What it cannot use
(no parsable action, or a point off the screen, which no device can tap) becomes a
grounding error with no action: the step is recorded as not grounded and nothing is
tapped blindly. The episode goes on and the next step's previous-action estimate has
to notice that nothing happened, which is what the method's chain is for.

The method's action set has no long press. A screen that offers an action only behind a long
press cannot be done with this grounder (the sim's Files app also offers each file's menu through
an overflow button, as real file managers do); ``--grounder llm`` and ``hybrid`` offer
``long_press``. A ``long_press`` answer is still parsed and executed, as the one parser knows it;
the prompt just never offers it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from latent_agent import codec
from latent_agent.accessibility.describe import fold
from latent_agent.accessibility.elements import label_of
from latent_agent.accessibility.tree import Bounds, ScreenSize, UINode, UITree
from latent_agent.device.web_page import WEB_KEYS
from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import Action, Drag, action_to_json, parse_action, point_of
from latent_agent.grounder.base import GROUND, Asker, Grounding, GroundingScreen
from latent_agent.prompts.render import render
from latent_agent.surfaces import PHONE, Surface, SurfaceKind

TEMPLATE = "ground_paper.j2"
#: The action types the prompt offers on each surface, in its order: the method's on a phone (App. D; no long
#: press); on a web page no app, launcher, Back or Home, and keys pressed N times, a drop-down's option and a drag.
OFFERED: dict[SurfaceKind, tuple[str, ...]] = {
    "phone": ("click", "input_text", "keyboard_enter", "navigate_home", "navigate_back", "scroll", "open_app",
              "launch_adb_activity", "wait"),
    "web_page": ("click", "input_text", "keyboard_enter", "press_key", "choose_option", "drag", "scroll", "wait"),
}
#: The key of the JSON object that holds the element list (the method's own name for it).
ELEMENTS_KEY = "UI elements"


@dataclass(frozen=True, slots=True)
class LeafElement:
    """One leaf of the screen as the paper grounder lists it (the method's "UI elements"; CAAP's element list has
    its own, richer :class:`latent_agent.agent.caap.elements.UIElement`).

    Attributes:
        text: Its text, else content description, else hint (password text masked); may be empty.
            A content description that says something the text does not follows it in
            parentheses: a switch reading "OFF" described as "Roaming" is ``OFF (Roaming)``.
            The method's element has one ``text``; without this, such a switch would be
            anonymous, and the description is what a screen reader says of it.
        center: ``(x, y)`` of the centre of its on-screen box, in pixels.
        size: ``(width, height)`` of its on-screen box, in pixels.
    """

    text: str
    center: tuple[int, int]
    size: tuple[int, int]

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = codec.encode(self)
        return out


def leaf_elements(tree: UITree, size: ScreenSize) -> tuple[LeafElement, ...]:
    """The leaves of a cleaned ``tree`` that show on the screen, in document order.

    A leaf's box is clipped to the screen, so a row cut by the screen's edge is
    listed with the centre of its visible part (a point that can be tapped). Leaves
    without text are kept: the method lists every leaf, and an unlabelled icon is
    still something to tap.
    """
    screen = size.as_bounds()
    out: list[LeafElement] = []
    for node in tree.iter():
        if node.children or node.bounds is None:
            continue
        b = node.bounds
        visible = Bounds(max(b.left, screen.left), max(b.top, screen.top),
                         min(b.right, screen.right), min(b.bottom, screen.bottom))
        if visible.width <= 0 or visible.height <= 0:
            continue
        out.append(LeafElement(_text_of(node), visible.center, (visible.width, visible.height)))
    return tuple(out)


def _text_of(node: UINode) -> str:
    own = label_of(node)
    description = fold(node.content_desc)
    if node.text and description and description.casefold() != own.casefold():
        return f"{own} ({description})"
    return own


def elements_object(elements: tuple[LeafElement, ...]) -> str:
    """The ``{"UI elements": [...]}`` object as the prompt shows it: one element per line."""
    rows = [json.dumps(e.to_json(), ensure_ascii=False, separators=(", ", ": ")) for e in elements]
    body = ",\n".join(rows)
    return "{" + json.dumps(ELEMENTS_KEY) + ": [\n" + body + ("\n" if rows else "") + "]}"


@dataclass(frozen=True, slots=True)
class PastAction:
    """An action the grounder produced earlier in the episode, and the step it was for."""

    step: str
    action: str


def paper_prompt(step: str, elements: tuple[LeafElement, ...], size: ScreenSize,
                 history: tuple[PastAction, ...] | None = None, surface: Surface = PHONE) -> str:
    """The paper grounder's prompt for ``surface``; ``history`` None leaves the history out (the default)."""
    return render(TEMPLATE, surface, goal=step, elements=elements_object(elements), width=size.width,
                  height=size.height, history=history, keys=WEB_KEYS)


def _check_on_screen(action: Action, size: ScreenSize) -> None:
    """A point off the screen cannot be sent to any device; everything else goes as answered."""
    points = [point_of(action), (action.x2, action.y2) if isinstance(action, Drag) else None]
    for x, y in (p for p in points if p is not None):
        if not (0 <= x < size.width and 0 <= y < size.height):
            raise GroundingError(f"the point ({x}, {y}) is outside the {size.width}x{size.height} screen")


@dataclass(slots=True)
class PaperGrounder:
    """One model call per step, no validation against the element list, no retry.

    Args:
        with_history: Also show the actions grounded earlier in the episode (off in the paper's printed
            prompt; the ``paper-history`` grounder). The grounder is made per episode, so this memory is
            the episode's.
    """

    with_history: bool = False
    _history: list[PastAction] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "paper-history" if self.with_history else "paper"

    async def ground(self, step: str, screen: GroundingScreen, asker: Asker) -> Grounding:
        if screen.tree is None:
            return Grounding(None, "the paper grounder needs the screen's accessibility tree", "llm", 0)
        history = tuple(self._history) if self.with_history else None
        elements = leaf_elements(screen.tree, screen.size)
        prompt = paper_prompt(step, elements, screen.size, history, screen.surface)
        completion = await asker.ask(GROUND, prompt, inputs={
            "grounder": "paper", "goal": step, "elements": {ELEMENTS_KEY: [e.to_json() for e in elements]},
            "width": screen.size.width, "height": screen.size.height, "actions": list(OFFERED[screen.surface.kind]),
            "history": None if history is None else [{"step": p.step, "action": p.action} for p in history]},
            surface=screen.surface)
        answer = completion.text.strip()
        try:
            action = parse_action(answer)
            _check_on_screen(action, screen.size)
        except GroundingError as exc:
            return Grounding(None, f"no usable action for {step!r}: {exc}", "llm", 1)
        self._history.append(PastAction(step, json.dumps(action_to_json(action), ensure_ascii=False)))
        return Grounding(action, None, "llm", 1)
