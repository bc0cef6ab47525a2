"""CAAP's expert demonstrations as the agent reads them: the script form of an action, the demo file,
and choosing the demonstrations an episode is shown.

A demonstration is a task and the actions an expert took, each as the function's name, the
attributes of the element it acted on (type, centre and edges, text; never the element's id, which
only meant something on its screen), the other arguments (the text typed, the app opened), and an
LLM-written ``reason``. The action history of an episode uses the same script form.

The file (``DIR/demos.json``) is written by ``latent-agent demos build``
(:mod:`latent_agent.benchmarks.demos`, which records and annotates them); this module only reads
it. It also lists every task of the suite it was built for (id, goal, family), so an episode can be
given demonstrations of its own task family without the agent knowing the suite.

Selection follows the published method where it can: every demonstration of the same task, recorded on
other instances (the published code takes every demonstration of the same task name; a MiniWoB++ task's
train seeds), else demonstrations of the same task family (the sim suite's tasks each have one instance),
else the demonstrations whose goals are most alike (a fuzzy match, for goals outside the suite). The
evaluated instance itself is never shown: a demo of the same goal is left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from rapidfuzz import fuzz

from latent_agent import codec
from latent_agent.agent.caap.elements import format_attributes
from latent_agent.errors import ConfigError
from latent_agent.invocation import command_name

T = TypeVar("T")

#: The demo file's version; a file of another version is refused (rebuild it).
SCHEMA_VERSION = 1
#: The file name inside a demo directory.
DEMOS_FILE = "demos.json"
#: Most demonstrations one prompt shows of other tasks (of the task's family, or alike goals); every
#: demonstration of the task itself is shown.
MAX_DEMOS = 3
#: Lowest fuzzy goal similarity (0-100, rapidfuzz token-set ratio) at which a demo of another family is shown.
MIN_SIMILARITY = 55.0


@codec.shape(omit_default=("element", "params", "reason"))
@dataclass(frozen=True, slots=True)
class ScriptAction:
    """One action in script form.

    Attributes:
        name: The catalogue function (``click_element``, ``type_text``, ``open_app``, ...).
        element: The attributes of the element acted on (no id), empty when it names none.
        params: Its other arguments (``text`` typed, ``direction``, ``name`` of the app, ...).
        reason: Why it was taken (a demonstration's rationale), or empty.
    """

    name: str
    element: Mapping[str, object] = field(default_factory=dict)
    params: Mapping[str, object] = field(default_factory=dict)
    reason: str = ""

    def script(self, *, reason: bool = True) -> str:
        """``{name: click_element, arg: {type: button, X: ..., text: "OK"}, reason: "..."}``."""
        parts = [f"name: {self.name}"]
        if self.element:
            parts.append(f"arg: {format_attributes(dict(self.element))}")
        for key, value in self.params.items():
            parts.append(f"{key}: {json.dumps(value, ensure_ascii=False) if isinstance(value, str) else value}")
        if reason and self.reason:
            parts.append(f"reason: {json.dumps(self.reason, ensure_ascii=False)}")
        return "{" + ", ".join(parts) + "}"

    def to_json(self) -> dict[str, object]:
        """Its name, then its element, parameters and reason when it has them."""
        out: dict[str, object] = codec.encode(self)
        return out

    @classmethod
    def from_json(cls, raw: object, where: str) -> ScriptAction:
        """Read :meth:`to_json`'s form.

        Raises:
            ConfigError: Not such an object, naming ``where`` and the field.
        """
        return _decoded(cls, raw, where)


@dataclass(frozen=True, slots=True)
class Demo:
    """One expert demonstration.

    Attributes:
        task_id: The suite task it solves.
        goal: Its task in words.
        family: The task family, if the suite names one.
        actions: The actions, in order (the first is ``start``).
    """

    task_id: str
    goal: str
    family: str | None
    actions: tuple[ScriptAction, ...]

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = codec.encode(self)
        return out

    @classmethod
    def from_json(cls, raw: object, where: str) -> Demo:
        """Read :meth:`to_json`'s form.

        Raises:
            ConfigError: A field missing or of the wrong type, naming ``where`` and the field.
        """
        return _decoded(cls, raw, where)


def _decoded(cls: type[T], raw: object, where: str) -> T:
    """``raw`` read as ``cls`` by the codec, a bad value a :class:`ConfigError` naming ``where`` and the field."""
    try:
        return codec.decode(cls, raw)
    except codec.DecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """What the demo file says of each task of its suite."""

    id: str
    goal: str
    family: str | None = None


def goal_key(goal: str) -> str:
    """A goal compared loosely: case, spacing and a final full stop ignored."""
    return " ".join(goal.strip().rstrip(".").split()).casefold()


@dataclass(frozen=True, slots=True)
class DemoSet:
    """The demonstrations of a demo file and the suite's task list.

    Attributes:
        demos: Every demonstration.
        tasks: Every task of the suite (for the family of the evaluated task).
        source: Where it was read from (recorded with each step), or empty.
        model: The model that wrote the rationales.
        by_task: Demonstrations are chosen by task only, as the published code does (a set recorded from
            a benchmark's train-seed episodes, whose tasks each have many instances): a task without
            demonstrations of its own is shown none, never another family's or alike goals'.
    """

    demos: tuple[Demo, ...]
    tasks: tuple[TaskInfo, ...] = ()
    source: str = ""
    model: str = ""
    by_task: bool = False

    def family_of(self, task_id: str | None, goal: str) -> str | None:
        """The family of the task with id ``task_id``, else of the task whose goal is ``goal``."""
        wanted = goal_key(goal)
        for task in self.tasks:
            if (task.id == task_id) if task_id else goal_key(task.goal) == wanted:
                return task.family
        return None

    def select(self, goal: str, task_id: str | None = None, limit: int = MAX_DEMOS) -> tuple[Demo, ...]:
        """The demonstrations to show an episode on ``goal`` (of task ``task_id`` when known).

        Every demo of the same task on another instance first (in file order, all of them), else (unless
        :attr:`by_task`) up to ``limit`` of the same family, else up to ``limit`` of the most alike goals at
        or above :data:`MIN_SIMILARITY`; never a demo of the same goal (the instance being evaluated).
        """
        own = goal_key(goal)
        others = [d for d in self.demos if goal_key(d.goal) != own]
        same_task = [d for d in others if task_id is not None and d.task_id == task_id]
        if same_task or self.by_task:
            return tuple(same_task)
        family = self.family_of(task_id, goal)
        if family is not None:
            same = [d for d in others if d.family == family]
            if same:
                return tuple(same[:limit])
        scored = sorted(((fuzz.token_set_ratio(own, goal_key(d.goal)), i) for i, d in enumerate(others)),
                        key=lambda s: (-s[0], s[1]))
        return tuple(others[i] for score, i in scored[:limit] if score >= MIN_SIMILARITY)

    def to_json(self, suite: str) -> dict[str, object]:
        return {"schema_version": SCHEMA_VERSION, "suite": suite, "model": self.model, "by_task": self.by_task,
                "tasks": codec.encode(self.tasks), "demos": codec.encode(self.demos)}


def parse_demo_set(doc: object, where: str) -> DemoSet:
    """A demo set from the JSON document :meth:`DemoSet.to_json` wrote.

    Raises:
        ConfigError: Another schema version, or a malformed document, naming ``where``.
    """
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
        raise ConfigError(f"{where}: not a CAAP demo file of schema_version {SCHEMA_VERSION} "
                          f"(build one with `{command_name()} demos build`)")
    raw_tasks, raw_demos = doc.get("tasks", []), doc.get("demos")
    if not isinstance(raw_tasks, list) or not isinstance(raw_demos, list):
        raise ConfigError(f"{where}: 'tasks' and 'demos' must be lists")
    tasks: list[TaskInfo] = []
    for i, raw in enumerate(raw_tasks):
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not isinstance(raw.get("goal"), str):
            raise ConfigError(f"{where}: task {i} needs a string 'id' and 'goal'")
        family = raw.get("family")
        tasks.append(TaskInfo(raw["id"], raw["goal"], family if isinstance(family, str) else None))
    demos = tuple(Demo.from_json(d, f"{where}: demo {i}") for i, d in enumerate(raw_demos))
    model, by_task = doc.get("model", ""), doc.get("by_task", False)
    if not isinstance(by_task, bool):
        raise ConfigError(f"{where}: 'by_task' must be true or false")
    return DemoSet(demos, tuple(tasks), where, model if isinstance(model, str) else "", by_task)


def load_demos(path: Path | str) -> DemoSet:
    """Read a demo directory (its ``demos.json``) or a demo file.

    Raises:
        ConfigError: Missing, unreadable or malformed, in one line naming the path.
    """
    path = Path(path)
    file = path / DEMOS_FILE if path.is_dir() else path
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--demos {path}: no {DEMOS_FILE} there (build one with "
                          f"`{command_name()} demos build`)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--demos {path}: cannot read {file.name} ({exc})") from None
    return parse_demo_set(doc, str(file))


def reference_steps(demos: Iterable[Demo]) -> int | None:
    """The most actions any of ``demos`` took (their ``start`` not counted), or None without demos."""
    counts = [sum(1 for a in d.actions if a.name != "start") for d in demos]
    return max(counts) if counts else None
