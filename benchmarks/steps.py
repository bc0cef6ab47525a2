"""Scripted steps: the label-level vocabulary of reference solutions and scripted players.

A step names what it acts on the way a person would ("tap Network & internet"), so it survives
layout changes. It is not a second action vocabulary: on a screen, :func:`resolve` turns a step
into one of the grounder's typed actions (``tap "X"`` -> a click at the centre of the element
labelled X), and :func:`perform` sends that action through the agent's one dispatch,
:func:`latent_agent.agent.execute.execute`. :func:`step_words` says a step the way an action
selector answers, and :func:`past_tense` turns such words into what was done.

The JSON form (task suites, worked examples) is an object with one key, the step's kind::

    {"open_app": "Settings"}  {"tap": "Network & internet"}  {"long_press": "Download"}
    {"scroll": "down"}  {"scroll_to": "Private DNS"}  {"type": "Exercise"}  {"key": "back"}
    {"launch": "quick_settings"}  {"wait": ""}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, assert_never, get_args

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.tree import UITree
from latent_agent.agent.execute import execute
from latent_agent.device.base import DIRECTIONS, SYSTEM_ACTIVITIES, Direction, SystemActivity
from latent_agent.errors import ElementNotFoundError, TaskSuiteError
from latent_agent.grounder.actions import (
    Action,
    Click,
    InputText,
    KeyboardEnter,
    LaunchAdbActivity,
    LongPress,
    NavigateBack,
    NavigateHome,
    OpenApp,
    Scroll,
    Wait,
)

if TYPE_CHECKING:
    from latent_agent.accessibility.tree import UINode
    from latent_agent.device.base import Device

#: The keys a step can press: those the grounder's actions can express (Back, Home, Enter).
KeyName = Literal["back", "home", "enter"]
KEYS: tuple[KeyName, ...] = get_args(KeyName)
#: How many scrolls a ``scroll_to`` step tries before giving up.
MAX_SCROLLS = 12


@dataclass(frozen=True, slots=True)
class TapStep:
    """Tap the element labelled ``label``."""

    label: str
    kind: ClassVar[str] = "tap"


@dataclass(frozen=True, slots=True)
class LongPressStep:
    """Touch and hold the element labelled ``label``."""

    label: str
    kind: ClassVar[str] = "long_press"


@dataclass(frozen=True, slots=True)
class ScrollStep:
    """Scroll once so that content further in ``direction`` comes into view."""

    direction: Direction
    kind: ClassVar[str] = "scroll"


@dataclass(frozen=True, slots=True)
class ScrollToStep:
    """Scroll down until an element labelled ``label`` is on screen (at most :data:`MAX_SCROLLS` times)."""

    label: str
    kind: ClassVar[str] = "scroll_to"


@dataclass(frozen=True, slots=True)
class TypeStep:
    """Type ``text`` into the focused field."""

    text: str
    kind: ClassVar[str] = "type"


@dataclass(frozen=True, slots=True)
class KeyStep:
    """Press a system key."""

    key: KeyName
    kind: ClassVar[str] = "key"


@dataclass(frozen=True, slots=True)
class OpenAppStep:
    """Start the app a person calls ``app``."""

    app: str
    kind: ClassVar[str] = "open_app"


@dataclass(frozen=True, slots=True)
class LaunchStep:
    """Open a system surface: the app drawer or the quick-settings shade."""

    activity: SystemActivity
    kind: ClassVar[str] = "launch"


@dataclass(frozen=True, slots=True)
class WaitStep:
    """Let the screen settle."""

    kind: ClassVar[str] = "wait"


Step = TapStep | LongPressStep | ScrollStep | ScrollToStep | TypeStep | KeyStep | OpenAppStep | LaunchStep | WaitStep
#: The keys of the steps' JSON forms, read off the classes (so the list cannot miss a kind of step).
STEP_KINDS: tuple[str, ...] = tuple(cls.kind for cls in get_args(Step))
#: Steps resolved at an element, so resolving them needs the screen (``scroll_to`` looks on its own).
_LABELLED = (TapStep, LongPressStep)


def step_from_json(raw: object, where: str) -> Step:
    """Read one step from its JSON form (see the module docstring).

    Raises:
        TaskSuiteError: For anything but one known kind with a valid argument, naming ``where``.
    """
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise TaskSuiteError(f"{where}: a step is an object with one key, one of {', '.join(STEP_KINDS)}")
    ((kind, arg),) = raw.items()
    if kind not in STEP_KINDS:
        raise TaskSuiteError(f"{where}: unknown action {kind!r}; use one of {', '.join(STEP_KINDS)}")
    if kind == "wait":
        return WaitStep()
    if not isinstance(arg, str):
        raise TaskSuiteError(f"{where}: action {kind!r} needs a string argument")
    if kind == "key":
        if arg not in KEYS:
            raise TaskSuiteError(f"{where}: unknown key {arg!r}; use one of {', '.join(KEYS)}")
        return KeyStep(arg)  # type: ignore[arg-type]
    if kind == "scroll":
        if arg not in DIRECTIONS:
            raise TaskSuiteError(f"{where}: scroll direction must be one of {', '.join(DIRECTIONS)}")
        return ScrollStep(arg)  # type: ignore[arg-type]
    if kind == "launch":
        if arg not in SYSTEM_ACTIVITIES:
            raise TaskSuiteError(f"{where}: launch takes one of {', '.join(SYSTEM_ACTIVITIES)}")
        return LaunchStep(arg)  # type: ignore[arg-type]
    labelled: dict[str, type[TapStep | LongPressStep | ScrollToStep | TypeStep | OpenAppStep]] = {
        "tap": TapStep, "long_press": LongPressStep, "scroll_to": ScrollToStep, "type": TypeStep,
        "open_app": OpenAppStep,
    }
    return labelled[kind](arg)


# -- finding what a step names ---------------------------------------------------------------


def _fold(text: str) -> str:
    return " ".join(text.split())


def find_node(tree: UITree, label: str) -> UINode:
    """The element of ``tree`` (a cleaned screen) a person would call ``label``.

    Matches visible text first, then content description, then the hint of an empty field,
    exactly and then ignoring case; among several matches the first one that is (or sits in)
    something clickable wins, in screen order.

    Raises:
        ElementNotFoundError: If nothing on screen carries that label.
    """
    wanted = _fold(label)
    found: list[tuple[int, int, UINode]] = []

    def walk(node: UINode, clickable_above: bool) -> None:
        clickable = clickable_above or node.clickable or node.long_clickable
        for rank, value in enumerate((node.text, node.content_desc, node.hint)):
            folded = _fold(value)
            if folded == wanted:
                found.append((rank, 0 if clickable else 1, node))
            elif folded.casefold() == wanted.casefold():
                found.append((rank + 3, 0 if clickable else 1, node))
        for child in node.children:
            walk(child, clickable)

    for root in tree.roots:
        walk(root, False)
    if not found:
        raise ElementNotFoundError(f"no element labelled {label!r} on screen")
    return min(found, key=lambda f: (f[1], f[0]))[2]


def _screen(device: Device) -> UITree:

    return clean_tree(device.hierarchy().tree)


def find_element(device: Device, label: str) -> UINode:
    """:func:`find_node` on the device's current (cleaned) screen.

    Raises:
        ElementNotFoundError: If nothing on screen carries that label; the message names the app in front.
    """
    try:
        return find_node(_screen(device), label)
    except ElementNotFoundError as exc:
        raise ElementNotFoundError(f"{exc} ({device.foreground_package()})") from None


# -- resolving and performing ----------------------------------------------------------------

#: The screen passed along with an action resolved without looking (none of those needs one).
_NOTHING_SEEN = UITree(roots=())
_KEY_ACTIONS: dict[KeyName, Action] = {"back": NavigateBack(), "home": NavigateHome(), "enter": KeyboardEnter()}


def _centre(tree: UITree, label: str) -> tuple[int, int]:
    bounds = find_node(tree, label).bounds
    if bounds is None:
        raise ElementNotFoundError(f"the element labelled {label!r} has no position on screen")
    return bounds.center


def resolve(step: Step, tree: UITree) -> Action:
    """The grounder action that carries out ``step`` on the screen ``tree`` (cleaned).

    A ``scroll_to`` step resolves to the one scroll towards its element; :func:`perform` repeats it.

    Raises:
        ElementNotFoundError: If a tap or long press names an element the screen does not show.
    """
    if isinstance(step, TapStep):
        return Click(*_centre(tree, step.label))
    if isinstance(step, LongPressStep):
        return LongPress(*_centre(tree, step.label))
    if isinstance(step, ScrollStep):
        return Scroll(step.direction)
    if isinstance(step, ScrollToStep):
        return Scroll("down")
    if isinstance(step, TypeStep):
        return InputText(step.text)
    if isinstance(step, KeyStep):
        return _KEY_ACTIONS[step.key]
    if isinstance(step, OpenAppStep):
        return OpenApp(step.app)
    if isinstance(step, LaunchStep):
        return LaunchAdbActivity(step.activity)
    if isinstance(step, WaitStep):
        return Wait()
    assert_never(step)


def _present(tree: UITree, label: str) -> bool:
    try:
        find_node(tree, label)
    except ElementNotFoundError:
        return False
    return True


def perform(device: Device, step: Step) -> tuple[Action, ...]:
    """Carry out ``step`` on ``device``: resolve it on the current screen and execute the action.

    Only steps that name an element look at the screen first: a dump costs seconds on a real
    phone, and on the simulated phone with dynamic-content noise every look is itself an event.

    Returns:
        The actions sent, in order (none for a ``scroll_to`` whose element is already shown).

    Raises:
        ElementNotFoundError: A named element is not on screen (after :data:`MAX_SCROLLS` scrolls
            for ``scroll_to``).
        DeviceError: The device refused or failed.
    """
    if isinstance(step, ScrollToStep):
        sent: list[Action] = []
        for _ in range(MAX_SCROLLS + 1):
            tree = _screen(device)
            if _present(tree, step.label):
                return tuple(sent)
            if len(sent) == MAX_SCROLLS:
                break
            action = resolve(step, tree)
            execute(action, device, tree)
            sent.append(action)
        raise ElementNotFoundError(f"scrolled {MAX_SCROLLS} times without finding {step.label!r}")
    tree = _screen(device) if isinstance(step, _LABELLED) else _NOTHING_SEEN
    action = resolve(step, tree)
    execute(action, device, tree)
    return (action,)


def replay(device: Device, steps: Sequence[Step]) -> None:
    """Perform ``steps`` in order, waiting for the UI to settle after each."""
    for step in steps:
        perform(device, step)
        device.wait_for_idle()




# -- in words --------------------------------------------------------------------------------

_KEY_WORDS: dict[KeyName, str] = {"back": "Go back", "home": "Go to the home screen", "enter": "Press enter"}
_LAUNCH_WORDS: dict[SystemActivity, str] = {"quick_settings": "Open quick settings",
                                            "app_drawer": "Open the app drawer"}
#: Each step's leading words in the present and the past tense (the longer forms first where one
#: begins another).
PAST_FORMS: tuple[tuple[str, str], ...] = (
    ("Open the ", "Opened the "), ("Open quick settings", "Opened quick settings"), ("Tap ", "Tapped "),
    ("Long press ", "Long pressed "), ("Type ", "Typed "), ("Go back", "Went back"),
    ("Go to the home screen", "Went to the home screen"), ("Press ", "Pressed "), ("Scroll ", "Scrolled "),
    ("Wait", "Waited"),
)


def step_words(step: Step) -> str:
    """``step`` as an action selector says it: ``Tap "Wi-Fi"``, ``Open the Clock app``, ``Go back``."""
    if isinstance(step, TapStep):
        return f'Tap "{step.label}"'
    if isinstance(step, LongPressStep):
        return f'Long press "{step.label}"'
    if isinstance(step, ScrollStep):
        return f"Scroll {step.direction}"
    if isinstance(step, ScrollToStep):
        return f'Scroll down to "{step.label}"'
    if isinstance(step, TypeStep):
        return f'Type "{step.text}"'
    if isinstance(step, KeyStep):
        return _KEY_WORDS[step.key]
    if isinstance(step, OpenAppStep):
        return f"Open the {step.app} app"
    if isinstance(step, LaunchStep):
        return _LAUNCH_WORDS[step.activity]
    if isinstance(step, WaitStep):
        return "Wait"
    assert_never(step)


def past_tense(words: str) -> str:
    """Step words as what was done: ``Tap "X"`` -> ``Tapped "X".`` (unknown words: ``Performed: ...``)."""
    words = words.strip().rstrip(".")
    for present, past in PAST_FORMS:
        if words.startswith(present):
            return past + words[len(present):] + "."
    return f"Performed: {words}."
