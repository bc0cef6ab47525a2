"""The hybrid grounder: unambiguous steps without a model call, the rest by the LLM grounder.

Resolved by rules (rapidfuzz for labels):

* "Open the Clock app" - an installed app whose launcher label the step names, and nothing more;
* "Tap \\"Alarm\\"" / "Long press notes.txt" - exactly one element of the list
  carries that label (exactly, ignoring case, or else one fuzzy match >= 90);
* "Scroll down", "Go back", "Go to the home screen", "Press enter",
  "Open quick settings", "Open the app drawer".

Anything else (typing, ambiguous labels, steps with extra words) goes to the
LLM grounder.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, utils

from latent_agent.errors import GroundingError
from latent_agent.grounder.actions import (
    Action,
    Click,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    NavigateHome,
    OpenApp,
    Scroll,
)
from latent_agent.grounder.base import Asker, Grounding, GroundingScreen
from latent_agent.grounder.llm import LLMGrounder
from latent_agent.grounder.validate import validate

#: Least rapidfuzz ratio for a label to count as a match when none matches exactly.
FUZZY_THRESHOLD = 90.0

_FIXED: tuple[tuple[re.Pattern[str], Action], ...] = (
    (re.compile(r"^(?:go|navigate) back$|^press (?:the )?back(?: button| key)?$"), NavigateBack()),
    (re.compile(r"^(?:go|navigate) (?:to )?(?:the )?home(?: screen)?$|^press (?:the )?home(?: button)?$"),
     NavigateHome()),
    (re.compile(r"^press (?:the )?enter(?: key)?$"), KeyboardEnter()),
    (re.compile(r"^(?:open|show) (?:the )?quick settings(?: panel| shade)?$"), LaunchAdbActivity("quick_settings")),
    (re.compile(r"^(?:open|show) (?:the )?app drawer$"), LaunchAdbActivity("app_drawer")),
    (re.compile(r"^scroll up$"), Scroll("up")),
    (re.compile(r"^scroll down$"), Scroll("down")),
    (re.compile(r"^scroll left$"), Scroll("left")),
    (re.compile(r"^scroll right$"), Scroll("right")),
)
_OPEN = re.compile(r"^(?:open|launch|start) (?:the )?(?P<app>.+?)(?: app)?$", re.IGNORECASE)
_TAP = re.compile(
    r"^(?P<verb>tap|click|select|press|touch|long press|long-press) (?:on )?(?:the )?"
    r"(?:\"(?P<quoted>[^\"]+)\"|(?P<bare>.+?))"
    r"(?: (?:button|tab|switch|toggle|option|icon|item|entry|row|field|link))?$",
    re.IGNORECASE,
)


def _plain(step: str) -> str:
    return " ".join(step.strip().rstrip(".!").split())


def _match_label(label: str, screen: GroundingScreen) -> tuple[int, int] | None:
    """The centre of the one element labelled ``label``, or None when none or several are."""

    wanted = label.casefold()
    # An element answers to its text and to its description (a switch reads "OFF" but is
    # described as "Roaming"); one element must not count twice.
    exact = [e for e in screen.elements if wanted in (e.text.casefold(), e.description.casefold())]
    if len(exact) == 1:
        return exact[0].center
    if exact:
        return None
    close = [e for e in screen.elements
             if max(fuzz.ratio(label, e.text, processor=utils.default_process),
                    fuzz.ratio(label, e.description, processor=utils.default_process)) >= FUZZY_THRESHOLD]
    return close[0].center if len(close) == 1 else None


def _match_app(name: str, screen: GroundingScreen) -> str | None:
    """The one launcher label ``name`` is (exactly, ignoring case, or else one fuzzy match), or None.

    Stricter than :func:`latent_agent.device.base.resolve_app`, whose partial matching turns "Wi-Fi settings"
    into the Settings app: that step names a page inside Settings and is left to the model.
    """

    wanted = name.casefold()
    exact = [label for label in screen.apps if label.casefold() == wanted]
    if exact:
        return exact[0]
    close = [label for label in screen.apps
             if fuzz.ratio(name, label, processor=utils.default_process) >= FUZZY_THRESHOLD]
    return close[0] if len(close) == 1 else None


def resolve(step: str, screen: GroundingScreen) -> Action | None:
    """The action an unambiguous ``step`` means on ``screen``, or None to ask the model."""
    plain = _plain(step)
    lowered = plain.lower()
    for pattern, action in _FIXED:
        if pattern.match(lowered):
            return action
    tap = _TAP.match(plain)
    if tap is not None:
        point = _match_label(tap.group("quoted") or tap.group("bare"), screen)
        if point is None:
            return None
        maker: Callable[[int, int], Action] = LongPress if "long" in tap.group("verb").lower() else Click
        return maker(*point)
    opened = _OPEN.match(plain)
    if opened is not None and screen.apps:
        label = _match_app(opened.group("app").strip("\"'"), screen)
        return OpenApp(label) if label is not None else None
    return None


@dataclass(frozen=True, slots=True)
class HybridGrounder:
    """Rules first, then the LLM grounder."""

    fallback: LLMGrounder = field(default_factory=LLMGrounder)

    @property
    def name(self) -> str:
        return "hybrid"

    async def ground(self, step: str, screen: GroundingScreen, asker: Asker) -> Grounding:
        action = resolve(step, screen)
        if action is not None:
            try:
                validate(action, screen)
            except GroundingError:
                action = None
            else:
                return Grounding(action, None, "rule", 0)
        return await self.fallback.ground(step, screen, asker)
