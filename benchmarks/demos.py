"""CAAP's expert demonstrations: recorded from the sim suite's reference solutions, annotated with
LLM-written rationales that are generated once and cached.

**Recording.** For each task, a fresh simulated phone replays the task's reference ``solution``
(:mod:`latent_agent.benchmarks.steps`: each step resolved on the screen and executed through the
agent's one dispatch). Each action is kept in the method's script form
(:class:`~latent_agent.agent.caap.demos.ScriptAction`): the catalogue function, the attributes of the
element acted on (type, centre and edges, text; found under the tap on the element list of the screen
before it) and its other arguments, with the element lists before and after it. A ``scroll_to``
step becomes the scrolls it took.

**Rationales.** One call per action (purpose ``caap_rationale``, template ``caap_rationale.j2``) shows
the demo's task and actions and the element lists before and after the action, and asks for one
paragraph explaining it to a trainee. Every answer is appended to a cache (JSON lines, a header line
with the schema version, then one entry per rationale) under a key hashing the model, the template's
source and the call's inputs: a rebuild makes no call for a rationale it already has, and a changed
template, model or screen asks again. The cache is only appended to (each line flushed and synced
as it is written); a line cut short by a crash is skipped when read.

**From episodes.** A MiniWoB++ task has no reference solution: its demonstrations are the successful
episodes of a sweep on its train seeds (:mod:`latent_agent.benchmarks.demos_episodes`), recorded from their
trajectories in the published MiniWoB++ functions, with element lists read by the screen observer, and
written by :func:`write_demos` like the replayed ones (their rationale prompts speak of a web page:
:attr:`RecordedDemo.surface`).

**Output.** ``DIR/demos.json`` (:func:`latent_agent.agent.caap.demos.load_demos` reads it), written
whole through a temporary file; demonstrations of tasks not rebuilt this time are kept from the
previous file. ``DIR/rationales.jsonl`` is the default cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from latent_agent.accessibility.clean import clean_tree
from latent_agent.agent.caap.demos import (
    DEMOS_FILE,
    Demo,
    DemoSet,
    ScriptAction,
    TaskInfo,
    load_demos,
)
from latent_agent.agent.caap.elements import UIElement, build_elements, element_lines
from latent_agent.agent.caap.purposes import CAAP_RATIONALE
from latent_agent.agent.caap.scripts import element_under, script_action
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.execute import execute
from latent_agent.atomic_write import NOFOLLOW, open_append, write_atomic
from latent_agent.benchmarks.sim_tasks import Task
from latent_agent.benchmarks.steps import (
    MAX_SCROLLS,
    LongPressStep,
    ScrollToStep,
    TapStep,
    TypeStep,
    find_node,
    resolve,
)
from latent_agent.device.base import Device
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError, ElementNotFoundError, TaskSuiteError
from latent_agent.grounder.actions import Action, Click, LongPress, Scroll
from latent_agent.json_lines import record_lines
from latent_agent.llm.base import LLMClient
from latent_agent.prompts.render import environment, render
from latent_agent.safe_paths import output_path, refuse_links
from latent_agent.surfaces import SurfaceKind, surface_of

RATIONALE_TEMPLATE = "caap_rationale.j2"
RATIONALE_PURPOSE = CAAP_RATIONALE
#: The cache file's version (its header line); a cache of another version is refused, never rewritten.
CACHE_SCHEMA_VERSION = 1
CACHE_FILE = "rationales.jsonl"
#: Rationale calls in flight at once.
CONCURRENCY = 4


@dataclass(frozen=True, slots=True)
class RecordedAction:
    """One demonstrated action with the screens around it."""

    action: ScriptAction
    before: tuple[UIElement, ...]
    after: tuple[UIElement, ...]


@dataclass(frozen=True, slots=True)
class RecordedDemo:
    """A task's demonstration before its rationales are written.

    Attributes:
        task_id: The task demonstrated.
        goal: The goal it achieved (a MiniWoB++ task's utterance for the demonstrated seed).
        family: The task's family (selection falls back to it), if any.
        actions: The actions, each with the element lists before and after it.
        surface: What the demonstration was recorded on (its rationale prompt speaks of it).
    """

    task_id: str
    goal: str
    family: str | None
    actions: tuple[RecordedAction, ...]
    surface: SurfaceKind = "phone"


def _screen(device: Device) -> tuple[Any, tuple[UIElement, ...]]:
    tree = clean_tree(device.hierarchy().tree)
    return tree, build_elements(tree)


def _acted_on(elements: Sequence[UIElement], x: int, y: int, bounds: Any) -> UIElement | None:
    """The listed element a tap at ``(x, y)`` on the node with ``bounds`` acts on: the element of that node
    itself, else the smallest listed element under the point."""
    same = [e for e in elements if e.bounds == bounds]
    return same[0] if same else element_under(elements, x, y)


def _perform(device: Device, action: Action, tree: Any) -> None:
    execute(action, device, tree)
    device.wait_for_idle()


def record_demo(task: Task, device: Device) -> RecordedDemo:
    """Replay ``task``'s reference solution on ``device`` (a fresh phone) and record it in script form.

    Raises:
        TaskSuiteError: The task has no solution, or a step of it cannot be carried out on the phone.
        DeviceError: The phone failed.
    """
    if not task.solution:
        raise TaskSuiteError(f"task {task.id!r} has no reference solution to record")
    tree, elements = _screen(device)
    out: list[RecordedAction] = []
    last_field: UIElement | None = None

    def done(script: ScriptAction, action: Action, current_tree: Any, before: tuple[UIElement, ...]) -> None:
        nonlocal tree, elements
        _perform(device, action, current_tree)
        tree, elements = _screen(device)
        out.append(RecordedAction(script, before, elements))

    for number, step in enumerate(task.solution, start=1):
        where = f"task {task.id!r} step {number} ({step.kind})"
        if isinstance(step, ScrollToStep):
            for _ in range(MAX_SCROLLS + 1):
                try:
                    find_node(tree, step.label)
                    break
                except ElementNotFoundError:
                    scroll = Scroll("down")
                    done(script_action(scroll, elements), scroll, tree, elements)
            else:
                raise TaskSuiteError(f"{where}: {step.label!r} never came into view")
            continue
        try:
            action = resolve(step, tree)
        except ElementNotFoundError as exc:
            raise TaskSuiteError(f"{where}: {exc}") from None
        if isinstance(step, TapStep | LongPressStep):
            assert isinstance(action, Click | LongPress)
            node = find_node(tree, step.label)
            element = _acted_on(elements, action.x, action.y, node.bounds)
            if element is None:
                raise TaskSuiteError(f"{where}: no listed element under {step.label!r}")
            name = "click_element" if isinstance(step, TapStep) else "long_press_element"
            script = ScriptAction(name, element.attributes())
            last_field = element if element.type == "input_field" else last_field
        elif isinstance(step, TypeStep):
            field = next((e for e in elements if e.type == "input_field" and e.focused), last_field)
            script = ScriptAction("type_text", field.attributes() if field is not None else {}, {"text": step.text})
        else:  # keys, apps, system surfaces, scrolls and waits name no element: their action says it all
            script = script_action(action, elements)
        done(script, action, tree, elements)
    return RecordedDemo(task.id, task.goal, task.family, tuple(out), device.capabilities.surface)


# -- the rationale cache -----------------------------------------------------------------------


def template_digest(name: str = RATIONALE_TEMPLATE) -> str:
    """SHA-256 of a template's source (part of every cache key: a changed template asks again)."""
    env = environment()
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def cache_key(model: str, template: str, inputs: dict[str, object]) -> str:
    """The key of one rationale: a hash of the model, the template's digest and the call's inputs."""
    blob = json.dumps({"model": model, "template": template, "inputs": inputs}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class RationaleCache:
    """The append-only rationale cache file.

    Raises (on open):
        ConfigError: The file is not a rationale cache of this schema version (it is never rewritten).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, str] = {}
        self.skipped = 0
        if path.exists():
            self._read()

    def _read(self) -> None:
        try:
            lines = record_lines(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{self.path}: cannot read the rationale cache ({exc})") from None
        if not lines:
            return
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("kind") != "caap-rationale-cache":
            raise ConfigError(f"{self.path}: not a CAAP rationale cache (choose another --cache)")
        if header.get("schema_version") != CACHE_SCHEMA_VERSION:
            raise ConfigError(f"{self.path}: rationale cache of schema_version {header.get('schema_version')!r}; "
                              f"this version reads {CACHE_SCHEMA_VERSION} (choose another --cache)")
        for line in lines[1:]:
            try:
                entry = json.loads(line)
                self.entries[str(entry["key"])] = str(entry["rationale"])
            except (json.JSONDecodeError, KeyError, TypeError):
                self.skipped += 1  # a line cut short by a crash; its rationale is asked for again

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def _ends_a_line(self) -> bool:
        """Whether the cache's last byte ends a line (read without following a link)."""
        fd = os.open(self.path, os.O_RDONLY | NOFOLLOW)
        try:
            os.lseek(fd, -1, os.SEEK_END)
            return os.read(fd, 1) == b"\n"
        finally:
            os.close(fd)

    def add(self, key: str, rationale: str, **about: object) -> None:
        """Append one entry (and the header first, for a new file), flushed and synced."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        torn = not fresh and not self._ends_a_line()
        with os.fdopen(open_append(self.path), "a", encoding="utf-8") as f:  # never through a planted link
            if fresh:
                f.write(json.dumps({"kind": "caap-rationale-cache", "schema_version": CACHE_SCHEMA_VERSION}) + "\n")
            elif torn:
                f.write("\n")  # a previous write was cut short: keep it on its own (skipped) line
            f.write(json.dumps({"key": key, "rationale": rationale, **about}, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.entries[key] = rationale


def rationale_inputs(demo: RecordedDemo, index: int) -> dict[str, object]:
    """The inputs of the rationale call for action ``index`` (1-based; ``demo_action_1`` is ``start``)."""
    scripts = [ScriptAction("start"), *(a.action for a in demo.actions)]
    recorded = demo.actions[index - 2]
    return {
        "goal": demo.goal,
        "actions": [s.script(reason=False) for s in scripts],
        "index": index,
        "action": recorded.action.to_json(),
        "before": element_lines(recorded.before),
        "after": element_lines(recorded.after),
        "before_elements": [{"id": e.id, **e.attributes()} for e in recorded.before],
        "after_elements": [{"id": e.id, **e.attributes()} for e in recorded.after],
    }


@dataclass(frozen=True, slots=True)
class BuildSummary:
    """What a build did."""

    demos: int
    actions: int
    calls: int
    cached: int
    kept: int
    path: Path


async def _rationales(demos: Sequence[RecordedDemo], client: LLMClient, cache: RationaleCache,
                      progress: Callable[[str], None]) -> tuple[list[list[str]], int, int]:
    digest = template_digest()
    caller = LLMCaller(client, episode_id="demos")
    gate = asyncio.Semaphore(CONCURRENCY)
    calls = cached = 0

    async def one(demo: RecordedDemo, index: int) -> str:
        nonlocal calls, cached
        inputs = rationale_inputs(demo, index)
        key = cache_key(client.model, digest, inputs)
        known = cache.get(key)
        if known is not None:
            cached += 1
            return known
        async with gate:
            prompt = render(RATIONALE_TEMPLATE, surface_of(demo.surface), **inputs)
            answer = await caller.ask(RATIONALE_PURPOSE, prompt, inputs=inputs)
        text = " ".join((answer.texts[0] if answer.texts else "").split())
        cache.add(key, text, model=client.model, task_id=demo.task_id, index=index)
        calls += 1
        progress(f"{demo.task_id} action {index}")
        return text

    reasons = [list(await asyncio.gather(*(one(d, i) for i in range(2, len(d.actions) + 2)))) for d in demos]
    return reasons, calls, cached


def check_out_dir(out: Path) -> None:
    """Refuse an output path that is neither new, nor empty, nor a demo directory.

    Raises:
        ConfigError: In one line naming the path.
        OutputPathError: It is, or holds, a symbolic link (one planted as ``rationales.jsonl`` would take the
            cache's lines elsewhere).
    """
    refuse_links(out, "--out")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: is a file; give a directory for {DEMOS_FILE} and {CACHE_FILE}")
    if out.is_dir():
        others = sorted(p.name for p in out.iterdir() if p.name not in (DEMOS_FILE, CACHE_FILE)
                        and not p.name.startswith(f".{DEMOS_FILE}"))
        if others:
            raise ConfigError(f"--out {out}: holds other files ({', '.join(others[:3])}); give a new or empty "
                              f"directory, or one that `demos build` wrote")


def build_demos(tasks: Sequence[Task], all_tasks: Sequence[Task], client: LLMClient, out: Path, *,
                suite: str = "sim", seed: int = 1000, cache_path: Path | None = None,
                make_device: Callable[[int], Device] | None = None,
                progress: Callable[[str], None] = lambda _: None) -> BuildSummary:
    """Record ``tasks``' demonstrations, write their rationales (cached) and save ``out/demos.json``.

    Args:
        tasks: The tasks to record.
        all_tasks: Every task of the suite (listed in the file, so episodes find their family).
        client: The model that writes the rationales.
        out: The demo directory.
        suite: The suite's name (recorded).
        seed: The simulated phone's seed for recording (apart from the seeds episodes run on).
        cache_path: The rationale cache (default ``out/rationales.jsonl``).
        make_device: A fresh phone for a seed (default: the simulated phone).
        progress: Told about each rationale written.

    Raises:
        ConfigError: A bad output directory or cache, or an unreadable earlier demo file.
        TaskSuiteError: A task's solution cannot be replayed.
        LLMError: A rationale call failed (the rationales written so far stay in the cache).
    """
    check_out_dir(out)
    previous = load_demos(out) if (out / DEMOS_FILE).exists() else None
    cache = RationaleCache(cache_path or out / CACHE_FILE)
    if make_device is None:

        def make_device(s: int) -> Device:
            return SimDevice(seed=s)

    recorded = [record_demo(task, make_device(seed)) for task in tasks]
    infos = tuple(TaskInfo(t.id, t.goal, t.family) for t in all_tasks)
    return write_demos(recorded, infos, client, out, suite=suite, cache=cache, previous=previous,
                       progress=progress)


def write_demos(recorded: Sequence[RecordedDemo], infos: Sequence[TaskInfo], client: LLMClient, out: Path, *,
                suite: str, cache: RationaleCache, previous: DemoSet | None, by_task: bool = False,
                progress: Callable[[str], None] = lambda _: None) -> BuildSummary:
    """Write the rationales of ``recorded`` (cached) and save them in ``out/demos.json``, keeping the earlier
    file's demonstrations of tasks not recorded this time; ``by_task`` marks a set chosen from by task only
    (:attr:`~latent_agent.agent.caap.demos.DemoSet.by_task`).

    Raises:
        LLMError: A rationale call failed (the rationales written so far stay in the cache).
    """
    reasons, calls, cached = client.run_sync(_rationales(recorded, client, cache, progress))
    built = [Demo(r.task_id, r.goal, r.family,
                  (ScriptAction("start"), *(replace(a.action, reason=why)
                                            for a, why in zip(r.actions, rs, strict=True))))
             for r, rs in zip(recorded, reasons, strict=True)]
    rebuilt = {d.task_id for d in built}
    kept = [d for d in previous.demos if d.task_id not in rebuilt] if previous is not None else []
    order = {t.id: i for i, t in enumerate(infos)}
    demos = sorted([*kept, *built], key=lambda d: (order.get(d.task_id, len(order)), d.task_id))
    document = DemoSet(tuple(demos), tuple(infos), model=client.model, by_task=by_task).to_json(suite)
    out.mkdir(parents=True, exist_ok=True)
    target = out / DEMOS_FILE
    write_atomic(output_path(out, target, "the demonstrations"),
                 json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return BuildSummary(len(built), sum(len(r.actions) for r in recorded), calls, cached, len(kept), target)
