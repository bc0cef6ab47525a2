"""The LLM grounder: the method's JSON-action prompt over the compact element list.

The prompt offers the actions of the screen's surface (:data:`OFFERED`): a phone's, or a web page's (no app,
launcher, Back or Home; keys pressed N times, a drop-down's option, a drag). The call's inputs name them, as the
prompt shows them.

The answer is parsed by :func:`latent_agent.grounder.actions.parse_action` and checked by
:func:`latent_agent.grounder.validate.validate`. An answer that cannot be used is sent back
with the reason (up to ``max_attempts`` answers in all); if none can be used the
result carries every reason and no action, so nothing is tapped blindly.
"""

from __future__ import annotations

from dataclasses import dataclass

from latent_agent.device.web_page import WEB_KEYS
from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import parse_action
from latent_agent.grounder.base import GROUND, Asker, Grounding, GroundingScreen
from latent_agent.grounder.validate import validate
from latent_agent.prompts.render import render
from latent_agent.surfaces import SurfaceKind

TEMPLATE = "ground.j2"
#: The action types the prompt offers on each surface, in its order (a phone's are AndroidWorld's; a web page has
#: no app, launcher, Back or Home, and adds keys pressed N times, a drop-down's option and a drag).
OFFERED: dict[SurfaceKind, tuple[str, ...]] = {
    "phone": ("click", "long_press", "input_text", "keyboard_enter", "navigate_home", "navigate_back", "scroll",
              "open_app", "launch_adb_activity", "wait"),
    "web_page": ("click", "input_text", "keyboard_enter", "press_key", "choose_option", "drag", "scroll", "wait"),
}


@dataclass(frozen=True, slots=True)
class Feedback:
    """An unusable answer and why, shown to the model on the next attempt."""

    answer: str
    reason: str


def ground_prompt(step: str, screen: GroundingScreen, feedback: tuple[Feedback, ...] = ()) -> str:
    """The grounder prompt for ``step`` on ``screen``."""
    return render(TEMPLATE, screen.surface, step=step, elements=screen.elements_json, width=screen.size.width,
                  height=screen.size.height, feedback=feedback, keys=WEB_KEYS)


@dataclass(frozen=True, slots=True)
class LLMGrounder:
    """Grounds every step with the model (greedy)."""

    max_attempts: int = 2

    @property
    def name(self) -> str:
        return "llm"

    async def ground(self, step: str, screen: GroundingScreen, asker: Asker) -> Grounding:
        feedback: tuple[Feedback, ...] = ()
        for attempt in range(1, self.max_attempts + 1):
            completion = await asker.ask(GROUND, ground_prompt(step, screen, feedback), inputs={
                "grounder": "llm", "step": step, "elements": [e.to_json() for e in screen.elements],
                "width": screen.size.width, "height": screen.size.height, "actions": list(OFFERED[screen.surface.kind]),
                "feedback": [{"answer": f.answer, "reason": f.reason} for f in feedback]}, surface=screen.surface)
            answer = completion.text.strip()
            try:
                action = parse_action(answer)
                validate(action, screen)
            except GroundingError as exc:
                feedback = (*feedback, Feedback(" ".join(answer.split())[:300], str(exc)))
                continue
            return Grounding(action, None, "llm", attempt)
        reasons = "; ".join(f"attempt {i}: {f.reason}" for i, f in enumerate(feedback, 1))
        return Grounding(None, f"no usable action for {step!r} ({reasons})", "llm", self.max_attempts)
