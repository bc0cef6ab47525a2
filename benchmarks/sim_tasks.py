"""The simulated phone's task suite: loading, replaying reference solutions, scoring.

Tasks live in ``benchmarks/suites/sim_tasks.json``. Each has a goal in words,
success checks (all must hold), partial checks (progress markers) and a
reference solution: device actions that name elements by their visible text
or content description, so they survive layout changes::

    {"open_app": "Settings"}  {"tap": "Network & internet"}  {"scroll": "down"}
    {"scroll_to": "Private DNS"}  {"type": "Exercise"}  {"key": "back"}
    {"long_press": "Download"}  {"launch": "quick_settings"}
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from latent_agent.device.sim.checks import Check
from latent_agent.errors import ElementNotFoundError, TaskSuiteError

if TYPE_CHECKING:
    from latent_agent.accessibility.tree import UINode
    from latent_agent.device.base import Device
    from latent_agent.device.sim.state import PhoneState

SCHEMA_VERSION = 1
SUITE = Path(__file__).parent / "suites" / "sim_tasks.json"
ActionKind = Literal["tap", "long_press", "scroll", "scroll_to", "type", "key", "open_app", "launch", "wait"]
ACTION_KINDS: tuple[ActionKind, ...] = (
    "tap",
    "long_press",
    "scroll",
    "scroll_to",
    "type",
    "key",
    "open_app",
    "launch",
    "wait",
)
KEYS = ("back", "home", "enter", "del", "app_switch")
#: How many scrolls ``scroll_to`` tries before giving up.
MAX_SCROLLS = 12


@dataclass(frozen=True, slots=True)
class Action:
    """One scripted device action; ``arg`` is a label, direction, text, key or app name."""

    kind: ActionKind
    arg: str

    @classmethod
    def from_json(cls, raw: object, where: str) -> Action:
        if not isinstance(raw, Mapping) or len(raw) != 1:
            raise TaskSuiteError(
                f"{where}: an action is an object with one key, one of {', '.join(ACTION_KINDS)}"
            )
        ((kind, arg),) = raw.items()
        if kind not in ACTION_KINDS:
            raise TaskSuiteError(f"{where}: unknown action {kind!r}; use one of {', '.join(ACTION_KINDS)}")
        if kind == "wait":
            arg = ""
        if not isinstance(arg, str):
            raise TaskSuiteError(f"{where}: action {kind!r} needs a string argument")
        if kind == "key" and arg not in KEYS:
            raise TaskSuiteError(f"{where}: unknown key {arg!r}; use one of {', '.join(KEYS)}")
        if kind == "scroll" and arg not in ("up", "down", "left", "right"):
            raise TaskSuiteError(f"{where}: scroll direction must be up, down, left or right")
        if kind == "launch" and arg not in ("app_drawer", "quick_settings"):
            raise TaskSuiteError(f"{where}: launch takes app_drawer or quick_settings")
        return cls(kind, arg)


@dataclass(frozen=True, slots=True)
class Task:
    """One task of the suite."""

    id: str
    app: str
    goal: str
    success: tuple[Check, ...]
    partial: tuple[Check, ...]
    solution: tuple[Action, ...]
    tags: tuple[str, ...] = ()

    def succeeded(self, state: PhoneState) -> bool:
        return all(c.holds(state) for c in self.success)

    def progress(self, state: PhoneState) -> float | None:
        """Partial completion in ``state``: the share of partial checks that hold, defined once in
        :func:`latent_agent.benchmarks.partial.partial_completion` (a success is not 1.0 by fiat;
        None without checks)."""
        from latent_agent.benchmarks.partial import partial_completion

        return partial_completion(c.holds(state) for c in self.partial)


def load_suite(path: Path | str = SUITE) -> list[Task]:
    """Read and validate a task-suite file.

    Raises:
        TaskSuiteError: For unreadable JSON, a wrong schema version, duplicate ids
            or a malformed task.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskSuiteError(f"{path}: cannot read task suite ({exc})") from None
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
        raise TaskSuiteError(f"{path}: expected schema_version {SCHEMA_VERSION}")
    tasks: list[Task] = []
    seen: set[str] = set()
    for i, raw in enumerate(doc.get("tasks", [])):
        where = f"{path.name}: task {i}"
        if not isinstance(raw, dict):
            raise TaskSuiteError(f"{where}: must be an object")
        for key in ("id", "app", "goal"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise TaskSuiteError(f"{where}: missing string {key!r}")
        where = f"{path.name}: task {raw['id']!r}"
        if raw["id"] in seen:
            raise TaskSuiteError(f"{where}: duplicate id")
        seen.add(raw["id"])
        success = tuple(Check.from_json(c, f"{where} success") for c in raw.get("success", []))
        if not success:
            raise TaskSuiteError(f"{where}: needs at least one success check")
        tasks.append(
            Task(
                id=raw["id"],
                app=raw["app"],
                goal=raw["goal"],
                success=success,
                partial=tuple(Check.from_json(c, f"{where} partial") for c in raw.get("partial", [])),
                solution=tuple(Action.from_json(a, f"{where} solution") for a in raw.get("solution", [])),
                tags=tuple(str(t) for t in raw.get("tags", [])),
            )
        )
    return tasks


def _fold(text: str) -> str:
    return " ".join(text.split())


def find_element(device: Device, label: str) -> UINode:
    """The on-screen element a person would call ``label``.

    Matches visible text first, then content description, then the hint of
    an empty field, exactly and then ignoring case; among several matches the first one that is (or sits in)
    something clickable wins, in screen order.

    Raises:
        ElementNotFoundError: If nothing on screen carries that label.
    """
    from latent_agent.accessibility.clean import clean_tree

    tree = clean_tree(device.hierarchy().tree)
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
        raise ElementNotFoundError(f"no element labelled {label!r} on screen ({device.foreground_package()})")
    best = min(found, key=lambda f: (f[1], f[0]))
    return best[2]


def _present(device: Device, label: str) -> bool:
    try:
        find_element(device, label)
    except ElementNotFoundError:
        return False
    return True


def perform(device: Device, action: Action) -> None:
    """Carry out one scripted action on any :class:`~latent_agent.device.base.Device`."""
    from latent_agent.device.base import Key

    if action.kind in ("tap", "long_press"):
        node = find_element(device, action.arg)
        assert node.bounds is not None
        x, y = node.bounds.center
        if action.kind == "tap":
            device.tap(x, y)
        else:
            device.long_press(x, y)
    elif action.kind == "scroll":
        device.scroll(action.arg)  # type: ignore[arg-type]
    elif action.kind == "scroll_to":
        for _ in range(MAX_SCROLLS):
            if _present(device, action.arg):
                return
            device.scroll("down")
        if not _present(device, action.arg):
            raise ElementNotFoundError(f"scrolled {MAX_SCROLLS} times without finding {action.arg!r}")
    elif action.kind == "type":
        device.input_text(action.arg)
    elif action.kind == "key":
        device.press_key(Key[action.arg.upper()])
    elif action.kind == "open_app":
        device.open_app(action.arg)
    elif action.kind == "launch":
        device.launch_activity(action.arg)  # type: ignore[arg-type]
    else:
        device.wait_for_idle()


def replay(device: Device, actions: Sequence[Action]) -> None:
    """Perform ``actions`` in order, waiting for the UI to settle after each."""
    for action in actions:
        perform(device, action)
        device.wait_for_idle()
