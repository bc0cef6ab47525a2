"""The episode loop: observe, estimate latent state, select a step, ground it, act; until a stop rule.

Public entry point::

    result = await run_episode(EpisodeConfig(goal="Turn off data roaming", method="zero-shot+"),
                               device, client, Path("runs/ep-1"))

(:func:`run_episode_sync` for callers without an event loop). Each step:

1. observe the screen (dump, screenshot, description, element list);
2. ``+`` agents: estimate previous action, screen summary, progression and mistakes, in that
   order (:mod:`latent_agent.agent.latent`); the previous action is estimated for the step commanded last
   time even when it could not be grounded or executed (the model has to notice that nothing
   happened; the error is recorded beside the estimate);
3. the action selector chooses the next step in words;
4. ``-`` agents stop if the step says "done" (the stop rule, :data:`latent_agent.agent.selection.STOP_RULES`);
   ``+`` agents estimate completion for the step while it is grounded (both depend only on
   the step) and stop if the estimate begins with "Yes";
5. the grounded action is executed; three identical actions in a row stop the episode.

The episode also stops at ``max_steps``, when the LLM budget is spent, on an LLM failure
and on a device failure; the reason is written as the trajectory's last record. Every
step is written (and fsync'ed) as soon as it ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from latent_agent.agent.aio import both
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.execute import execute
from latent_agent.agent.goal import normalize_goal
from latent_agent.agent.latent import LatentInputs, estimate_completion, estimate_latent, is_complete
from latent_agent.agent.methods import Method, get_method
from latent_agent.agent.observe import Observation, observe
from latent_agent.agent.selection import STOP_RULES, UNKNOWN, ReactTurn, SelectionContext, says_done
from latent_agent.agent.trajectory import (
    EpisodeEnd,
    EpisodeHeader,
    LatentState,
    LLMCall,
    LLMUsage,
    StepRecord,
    StepTiming,
    StopReason,
    StopRule,
    TrajectoryWriter,
    prepare_directory,
)
from latent_agent.device.base import Device
from latent_agent.device.spec import noise_record
from latent_agent.errors import (
    AppNotFoundError,
    ConfigError,
    DeviceError,
    LLMBudgetExceededError,
    LLMError,
)
from latent_agent.grounder.actions import action_to_json
from latent_agent.grounder.base import Grounder, Grounding
from latent_agent.grounder.registry import GROUNDERS, make_grounder
from latent_agent.llm.accounting import Accountant
from latent_agent.llm.base import LLMClient
from latent_agent.llm.budget import Budget

#: Identical actions in a row that end an episode.
REPEAT_LIMIT = 3
#: Longest goal accepted. Every prompt of every step repeats the goal, so a pasted document would
#: multiply the cost of each call; real goals (AitW, AndroidWorld) are a few hundred characters at most.
MAX_GOAL_CHARS = 2000

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class EpisodeConfig:
    """What to run.

    Attributes:
        goal: The user's goal, as given.
        method: Agent name (see :data:`latent_agent.agent.methods.METHODS`).
        grounder: ``paper`` (default: the method's grounder), ``paper-history``, ``llm`` or ``hybrid``.
        max_steps: Most steps before stopping.
        task_id: The benchmark task, if any (recorded only).
        seed: The device seed, if any (recorded only).
        screenshots: Whether to take and keep a screenshot every step.
        stop_rule: When a ``-`` agent stops: ``paper`` (the method's rule, the default: "done"
            anywhere in the selected action, so "You should be done." stops) or ``strict`` (the
            action says only that it is done; "Tap Done" does not stop). ``+`` agents always stop
            on their completion estimate.
    """

    goal: str
    method: str
    grounder: str = "paper"
    max_steps: int = 20
    task_id: str | None = None
    seed: int | None = None
    screenshots: bool = True
    stop_rule: str = "paper"

    def __post_init__(self) -> None:
        if not self.goal.strip():
            raise ConfigError("the goal is empty")
        if len(self.goal) > MAX_GOAL_CHARS:
            raise ConfigError(f"the goal is {len(self.goal):,} characters long; at most {MAX_GOAL_CHARS:,} "
                              f"are accepted (it is repeated in every prompt)")
        get_method(self.method)
        if self.grounder not in GROUNDERS:
            raise ConfigError(f"unknown grounder {self.grounder!r}; choose one of {', '.join(GROUNDERS)}")
        if self.stop_rule not in STOP_RULES:
            raise ConfigError(f"unknown stop rule {self.stop_rule!r}; choose one of {', '.join(STOP_RULES)}")
        if self.max_steps < 1:
            raise ConfigError(f"max_steps must be >= 1, got {self.max_steps}")


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """How an episode ended.

    Attributes:
        directory: The episode directory (holds ``trajectory.jsonl`` and ``screens/``).
        stop_reason: Why it ended.
        steps: Steps recorded.
        usage: LLM cost of the whole episode (goal normalization included).
        duration_s: Wall time.
        normalized_goal: The goal as the agent rephrased it.
        detail: More about the stop reason (the error message of a failure).
    """

    directory: Path
    stop_reason: StopReason
    steps: int
    usage: LLMUsage
    duration_s: float
    normalized_goal: str
    detail: str = ""


class _Stop(Exception):
    """Raised inside a step to end the episode after recording it."""

    def __init__(self, reason: StopReason, detail: str = "", rule: StopRule | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.rule = rule


@dataclass(slots=True)
class _Memory:
    """What the agent carries from step to step.

    ``inferred`` is the numbered list of inferred previous actions (one per step from the
    second on); ``history`` holds every commanded step, executed or not.
    """

    previous: Observation | None = None
    previous_step: str | None = None
    previous_error: str | None = None
    inferred: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    turns: list[ReactTurn] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Clock:
    """Per-step phase timings."""

    start: float = field(default_factory=time.perf_counter)
    device_s: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, seconds: float) -> None:
        self.phases[phase] = self.phases.get(phase, 0.0) + seconds


def _describe_device(device: Device) -> str:
    seed = getattr(device, "seed", None)
    return f"{type(device).__name__}(seed={seed})" if isinstance(seed, int) else type(device).__name__


class _Episode:
    def __init__(self, config: EpisodeConfig, device: Device, client: LLMClient, out_dir: Path,
                 caller: LLMCaller, on_step: Callable[[StepRecord], None] | None) -> None:
        self.config = config
        self.method: Method = get_method(config.method)
        self.grounder: Grounder = make_grounder(config.grounder)
        self.device = device
        self.client = client
        self.out_dir = out_dir
        self.caller = caller
        self.on_step = on_step
        self.memory = _Memory()
        self.goal = config.goal
        self.usage = LLMUsage()
        self.steps = 0
        self._step_recorded = True
        self.apps: Mapping[str, str] = {}

    async def step(self, index: int, writer: TrajectoryWriter) -> StepRecord:
        clock = _Clock()
        self.caller.begin(index)
        self._step_recorded = False
        memory = self.memory
        obs = observe(self.device, self.apps, screenshot=self.config.screenshots)
        clock.device_s += obs.device_s
        clock.add("observe", time.perf_counter() - clock.start)
        screen_file, shot_file = writer.save_screen(index, obs.raw, obs.screenshot)

        latent: LatentState | None = None
        if self.method.plus:
            t = time.perf_counter()
            latent = await self._latent(obs)
            clock.add("latent", time.perf_counter() - t)

        t = time.perf_counter()
        context = SelectionContext(goal=self.goal, description=obs.description, history=tuple(memory.history),
                                   latent=latent, turns=tuple(memory.turns))
        selection = await self.method.selector.select(self.caller, context)
        clock.add("select", time.perf_counter() - t)
        step_text = selection.step or UNKNOWN

        grounding: Grounding | None = None
        stop: _Stop | None = None
        rule = STOP_RULES[self.config.stop_rule]
        if not self.method.plus and says_done(step_text, rule):
            stop = _Stop(StopReason.DONE, f"the selector answered {step_text!r}", rule)
        elif self.method.plus:
            assert latent is not None
            completion, grounding = await both(
                self._timed("complete", clock, estimate_completion(self.caller, self.goal, latent, step_text)),
                self._timed("ground", clock, self._ground(step_text, obs)),
            )
            latent = replace(latent, completion=completion)
            if is_complete(completion):
                stop = _Stop(StopReason.COMPLETED, f"completion estimate: {completion}", StopRule.COMPLETION_YES)
        else:
            t = time.perf_counter()
            grounding = await self._ground(step_text, obs)
            clock.add("ground", time.perf_counter() - t)

        executed, detail, exec_error = False, "", None
        if stop is None and grounding is not None and grounding.action is not None:
            t = time.perf_counter()
            try:
                detail = execute(grounding.action, self.device, obs.tree)
                executed = True
                self.device.wait_for_idle()
            except AppNotFoundError as exc:
                exec_error = str(exc)
            except DeviceError as exc:
                # Recorded with the step (its calls and grounded action are kept), then the episode ends.
                exec_error = f"{type(exc).__name__}: {exc}"
                stop = _Stop(StopReason.DEVICE_ERROR, f"step {index}: {exec_error}")
            elapsed = time.perf_counter() - t
            clock.device_s += elapsed
            clock.add("execute", elapsed)

        grounding_error = self._grounding_error(grounding, step_text, stop)
        memory.previous, memory.previous_step = obs, step_text
        memory.previous_error = None if executed else (exec_error or grounding_error)
        if latent is not None and latent.previous_action is not None:
            memory.inferred.append(latent.previous_action)
        memory.turns.append(ReactTurn(obs.description, selection.thought, step_text))
        memory.history.append(step_text)
        if executed:
            assert grounding is not None and grounding.action is not None
            memory.actions.append(str(action_to_json(grounding.action)))
            if stop is None and len(memory.actions) >= REPEAT_LIMIT and len(set(memory.actions[-REPEAT_LIMIT:])) == 1:
                stop = _Stop(StopReason.REPEATED_ACTIONS,
                             f"the same action {memory.actions[-1]} was performed {REPEAT_LIMIT} times in a row")

        total = time.perf_counter() - clock.start
        llm_s = self.caller.busy_s()
        timing = StepTiming(
            observe_s=clock.phases.get("observe", 0.0), latent_s=clock.phases.get("latent", 0.0),
            select_s=clock.phases.get("select", 0.0), ground_s=clock.phases.get("ground", 0.0),
            complete_s=clock.phases.get("complete", 0.0), execute_s=clock.phases.get("execute", 0.0),
            llm_s=llm_s, device_s=clock.device_s, overhead_s=max(0.0, total - llm_s - clock.device_s),
            total_s=total,
        )
        usage = self.caller.usage()
        record = StepRecord(
            index=index, screen_file=screen_file, screenshot_file=shot_file, foreground_package=obs.package,
            description=obs.description, latent=latent, selected_step=step_text, samples=selection.samples,
            action=grounding.action if grounding is not None else None,
            grounding_error=grounding_error, executed=executed,
            usage=usage, duration_s=total, executed_detail=detail, execution_error=exec_error,
            grounder=grounding.source if grounding is not None else None, calls=self.caller.calls,
            timing=timing,
        )
        writer.step(record)
        self._step_recorded = True
        self.usage = self.usage + usage
        self.steps += 1
        if self.on_step is not None:
            self.on_step(record)
        if stop is not None:
            raise stop
        return record

    def settle_usage(self) -> None:
        """Count the calls of a step that ended without a record (a failure or an interruption)."""
        if not self._step_recorded:
            self.usage = self.usage + self.caller.usage()
            self._step_recorded = True

    @staticmethod
    def _grounding_error(grounding: Grounding | None, step_text: str, stop: _Stop | None) -> str | None:
        if grounding is not None:
            return grounding.error
        if stop is None and step_text == UNKNOWN:
            return "the selector's answer had no action"
        return None

    @staticmethod
    async def _timed(phase: str, clock: _Clock, coro: Coroutine[Any, Any, T]) -> T:
        t = time.perf_counter()
        try:
            return await coro
        finally:
            clock.add(phase, time.perf_counter() - t)

    async def _ground(self, step_text: str, obs: Observation) -> Grounding:
        if step_text == UNKNOWN:
            return Grounding(None, "the selector's answer had no action", "llm", 0)
        return await self.grounder.ground(step_text, obs.screen, self.caller)

    async def _latent(self, obs: Observation) -> LatentState:
        memory = self.memory
        inputs = LatentInputs(
            goal=self.goal, description=obs.description,
            previous_description=memory.previous.description if memory.previous is not None else None,
            commanded=memory.previous_step, inferred=tuple(memory.inferred), previous_error=memory.previous_error,
        )
        return await estimate_latent(self.caller, inputs)


async def run_episode(
    config: EpisodeConfig,
    device: Device,
    client: LLMClient,
    out_dir: Path,
    *,
    accountant: Accountant | None = None,
    budget: Budget | None = None,
    on_step: Callable[[StepRecord], None] | None = None,
) -> EpisodeResult:
    """Run one episode and write its trajectory into ``out_dir`` (the episode directory).

    Args:
        config: Goal, agent, grounder, limits.
        device: The phone, in the state the episode starts from.
        client: The model.
        out_dir: Episode directory; created, and must not hold a trajectory yet.
        accountant: Records every call in addition to the client's own accountant.
        budget: Limits this episode in addition to the client's own budget; when spent the
            episode stops with ``budget_exhausted``.
        on_step: Called with each step's record right after it is written.

    Returns:
        How the episode ended. Failures of the LLM or the device end the episode with a
        recorded reason instead of raising.

    Raises:
        ConfigError: Unknown method or grounder.
        OutputPathError: ``out_dir`` already holds a trajectory or cannot be created (checked before
            any LLM call).
    """
    start = time.perf_counter()
    started_at = time.time()
    prepare_directory(out_dir)
    caller = LLMCaller(client, episode_id=out_dir.name, budget=budget, accountant=accountant)
    episode = _Episode(config, device, client, out_dir, caller, on_step)
    reason, detail = StopReason.MAX_STEPS, f"reached the step limit ({config.max_steps})"
    rule: StopRule | None = None
    normalized = config.goal.strip()
    setup_calls: tuple[LLMCall, ...] = ()
    caller.begin(None)
    try:
        normalized = await normalize_goal(caller, config.goal)
    except LLMBudgetExceededError as exc:
        reason, detail = StopReason.BUDGET_EXHAUSTED, str(exc)
    except LLMError as exc:
        reason, detail = StopReason.LLM_ERROR, f"goal normalization: {exc}"
    setup_calls = caller.calls
    episode.usage = caller.usage()
    episode.goal = normalized
    header = EpisodeHeader(
        episode_id=out_dir.name, goal=config.goal, normalized_goal=normalized, method=config.method,
        grounder=config.grounder, llm=client.name, device=_describe_device(device), max_steps=config.max_steps,
        started_at=started_at, task_id=config.task_id, seed=config.seed, setup_calls=setup_calls,
        stop_rule=config.stop_rule, noise=noise_record(device),
    )
    writer = TrajectoryWriter(out_dir, header)
    try:
        if reason is StopReason.MAX_STEPS:
            reason, detail, rule = await _loop(episode, writer, config.max_steps)
    except (asyncio.CancelledError, KeyboardInterrupt):
        episode.settle_usage()
        writer.end(EpisodeEnd(StopReason.INTERRUPTED, episode.steps, time.perf_counter() - start, episode.usage,
                              f"interrupted during step {episode.steps}"))
        raise
    except BaseException:
        writer.close()
        raise
    duration = time.perf_counter() - start
    writer.end(EpisodeEnd(reason, episode.steps, duration, episode.usage, detail, rule))
    return EpisodeResult(out_dir, reason, episode.steps, episode.usage, duration, normalized, detail)


async def _loop(episode: _Episode, writer: TrajectoryWriter,
                max_steps: int) -> tuple[StopReason, str, StopRule | None]:
    try:
        episode.apps = dict(episode.device.launcher_apps())
        for index in range(max_steps):
            await episode.step(index, writer)
    except _Stop as stop:
        return stop.reason, stop.detail, stop.rule
    except LLMBudgetExceededError as exc:
        episode.settle_usage()
        return StopReason.BUDGET_EXHAUSTED, f"step {episode.steps}: {exc}", None
    except LLMError as exc:
        episode.settle_usage()
        return StopReason.LLM_ERROR, f"step {episode.steps}: {type(exc).__name__}: {exc}", None
    except DeviceError as exc:
        episode.settle_usage()
        return StopReason.DEVICE_ERROR, f"step {episode.steps}: {type(exc).__name__}: {exc}", None
    return StopReason.MAX_STEPS, f"reached the step limit ({max_steps})", None


def run_episode_sync(
    config: EpisodeConfig,
    device: Device,
    client: LLMClient,
    out_dir: Path,
    *,
    accountant: Accountant | None = None,
    budget: Budget | None = None,
    on_step: Callable[[StepRecord], None] | None = None,
) -> EpisodeResult:
    """:func:`run_episode` for callers without a running event loop.

    Runs on the client's own loop (:meth:`LLMClient.run_sync`), so its connections are
    reused from one episode to the next.
    """
    return client.run_sync(
        run_episode(config, device, client, out_dir, accountant=accountant, budget=budget, on_step=on_step)
    )
