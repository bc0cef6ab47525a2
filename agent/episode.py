"""The episode loop: observe, estimate latent state, select a step, ground it, act; until a stop rule.

Public entry point::

    result = await run_episode(EpisodeConfig(goal="Turn off data roaming", method="zero-shot+"),
                               device, client, Path("runs/ep-1"))

(:func:`run_episode_sync` for callers without an event loop). The loop knows nothing of any
method: the method's policy (:mod:`latent_agent.agent.policy`, chosen by name from
:mod:`latent_agent.agent.methods`) decides each step. Each step:

1. observe the screen (dump, screenshot, description, element list), less the elements the policy
   asks to hide (:class:`~latent_agent.agent.policy.HidesElements`);
2. the policy decides the next step in words (and records its own state and phases);
3. if the decision stops the episode, the step is recorded ungrounded; otherwise it is grounded,
   beside the policy's stop check when it has one (the ``+`` agents' completion estimate: both
   depend only on the step), and the check may stop the episode; a step the policy grounded itself
   (``Decision.grounding``: CAAP's answers name element ids of the screen) skips the grounder;
4. the grounded action is executed; for a method whose paper has the rule (``Method.repeat_limit``: the
   latent-state agents), three identical actions in a row stop the episode, and so do three
   identical steps in a row none of which could be grounded or executed (a model repeating the same
   unusable answer would otherwise run to the step limit: the paper's rule counts identical actions, and
   the same step failing the same way is the same action, attempted);
5. the policy is told what became of the step.

When a trial ends on its own or at the step limit, a method that tries again
(:class:`~latent_agent.agent.policy.Retrying`) is asked whether to; if so the phone is reset
(``Device.reset``), a ``trial`` record is written and the next trial begins.

The episode also stops at ``max_steps``, when the LLM budget is spent, on an LLM failure
and on a device failure; the reason is written as the trajectory's last record, with the LLM calls
of a step cut short (the finished ones and the failing one, prompt and error included). Every
step is written (and fsync'ed) as soon as it ends.

Goal normalization comes first; its rewrite is used only when it keeps the goal's content
(:mod:`latent_agent.agent.goal_guard`), and ``on_goal`` hears the goal in use before the first step.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.agent.aio import both
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.execute import execute
from latent_agent.agent.goal import GoalChoice, normalize_goal
from latent_agent.agent.hidden_elements import hide_elements, tapped_element
from latent_agent.agent.methods import Method, get_method, policy_for
from latent_agent.agent.observe import Observation, check_source, observe, observe_named, settle
from latent_agent.agent.policy import (
    STOP_RULES,
    Decision,
    EpisodeSetup,
    HidesElements,
    Outcome,
    Phases,
    PolicyRun,
    Retrying,
    StepInput,
    TrialEnd,
    Verdict,
)
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.agent.trajectory import (
    EpisodeEnd,
    EpisodeHeader,
    LLMCall,
    LLMUsage,
    PolicyState,
    StepRecord,
    StepTiming,
    StopReason,
    StopRule,
    TrajectoryWriter,
    TrialRecord,
    prepare_directory,
)
from latent_agent.device.base import Device
from latent_agent.device.spec import noise_record
from latent_agent.device.task_env import TaskReward, task_device
from latent_agent.errors import (
    ActionNotSupportedError,
    AppNotFoundError,
    ConfigError,
    DeviceActionError,
    DeviceError,
    LLMBudgetExceededError,
    LLMError,
    ParseError,
)
from latent_agent.grounder.actions import Action, action_to_json
from latent_agent.grounder.base import Grounder, Grounding
from latent_agent.grounder.registry import make_grounder
from latent_agent.llm.base import LLMClient
from latent_agent.surfaces import surface_of

#: The grounding error of a step whose model answer named no action (nothing is grounded or executed).
NO_ACTION = "the selector's answer had no action"
#: Most trials of one episode, whatever a retrying method asks (one that always asks again is a bug).
MAX_TRIALS = 10
#: How a trial may end for a retrying method to try again; the others (failures, a spent budget) end the episode.
RETRYABLE = frozenset({StopReason.DONE, StopReason.COMPLETED, StopReason.GAVE_UP, StopReason.MAX_STEPS,
                       StopReason.METHOD_CAP, StopReason.REPEATED_ACTIONS, StopReason.TASK_ENDED})
#: Longest goal accepted. Every prompt of every step repeats the goal, so a pasted document would
#: multiply the cost of each call; real goals (AitW, AndroidWorld) are a few hundred characters at most.
MAX_GOAL_CHARS = 2000
# Marks a step that was not executed in the list the repeat rule reads (an action's JSON never starts so).
_FAILED = "not carried out: "
# Separates an action from the page it was taken on, in that list (an action's JSON never holds it).
_ON_PAGE = " @page "

@dataclass(frozen=True, slots=True)
class EpisodeConfig(EpisodeSettings):
    """What to run: the settings (:class:`~latent_agent.agent.settings.EpisodeSettings`: step limit, grounder,
    stop rule, icon naming, method resources) and the episode they are given to.

    Attributes:
        goal: The user's goal, as given.
        method: Agent name (see :data:`latent_agent.agent.methods.METHODS`).
        task_id: The benchmark task, if any (recorded only).
        seed: The device seed, if any (recorded only).
        screenshots: Whether to take and keep a screenshot every step.
        trial_check: The task's automatic check of the phone, run when a trial ends and handed to a
            retrying method (:attr:`~latent_agent.agent.policy.TrialEnd.checked`) that asks for oracle
            feedback; None when the goal has no check. It runs once more when the episode ends, and what it
            says then is recorded (:attr:`EpisodeEnd.task_check`) beside the agent's own verdict.
        reset_snapshot: The emulator snapshot every reset between trials loads first (``run|sweep
            --snapshot``; :meth:`~latent_agent.device.base.Device.reset`), or None.
        observation: Where each step's tree comes from: ``a11y`` (the dump, the default), ``screen`` (the
            screenshot alone, read by the screenshot observer; the dump is never requested) or ``both``
            (the dump plus what only the screenshot shows). See :mod:`latent_agent.agent.observe`.
    """

    goal: str
    method: str
    task_id: str | None = None
    seed: int | None = None
    screenshots: bool = True
    trial_check: Callable[[Device], bool] | None = None
    reset_snapshot: str | None = None
    observation: str = "a11y"

    def __post_init__(self) -> None:
        if not self.goal.strip():
            raise ConfigError("the goal is empty")
        if len(self.goal) > MAX_GOAL_CHARS:
            raise ConfigError(f"the goal is {len(self.goal):,} characters long; at most {MAX_GOAL_CHARS:,} "
                              f"are accepted (it is repeated in every prompt)")
        get_method(self.method)
        EpisodeSettings.__post_init__(self)
        if check_source(self.observation) == "a11y" and self.name_icons:
            raise ConfigError("naming icons reads them from the screenshot: it needs --observation screen or both")


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """How an episode ended.

    Attributes:
        directory: The episode directory (holds ``trajectory.jsonl`` and ``screens/``).
        stop_reason: Why it ended.
        steps: Steps recorded.
        usage: LLM cost of the whole episode (goal normalization included).
        duration_s: Wall time.
        normalized_goal: The goal in use: the agent's rephrasing, or the user's goal when that was refused.
        detail: More about the stop reason (the error message of a failure).
        goal_rejected: Why the rephrasing was refused, if it was.
        reward: The judged task's own reward at the end, on a device that hosts one (else None); success
            there is a raw reward of 1.0 with the task ended (:attr:`TaskReward.success`).
        task_check: What the task's automatic check (``EpisodeConfig.trial_check``) said of the phone at the
            end, when the episode was given one (else None).
    """

    directory: Path
    stop_reason: StopReason
    steps: int
    usage: LLMUsage
    duration_s: float
    normalized_goal: str
    detail: str = ""
    goal_rejected: str | None = None
    reward: TaskReward | None = None
    task_check: bool | None = None


class _Stop(Exception):
    """Raised inside a step to end the episode after recording it."""

    def __init__(self, reason: StopReason, detail: str = "", rule: StopRule | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.rule = rule

    @classmethod
    def of(cls, verdict: Verdict) -> _Stop:
        return cls(verdict.reason, verdict.detail, verdict.rule)


def _task_ended(device: Device) -> _Stop | None:
    """The stop of an episode whose judged task has ended (its done flag), checked after each action; else None.

    Raises:
        DeviceError: The device does not answer.
    """
    judged = task_device(device)
    if judged is None:
        return None
    reward = judged.task_reward()
    if not reward.done:
        return None
    return _Stop(StopReason.TASK_ENDED,
                 f"the task ended: raw reward {reward.raw:g} (time-scaled {reward.time_scaled:g})")


def _final_reward(device: Device) -> TaskReward | None:
    """The judged task's reward as the episode ends (None on a device without one, or one that no longer answers)."""
    judged = task_device(device)
    if judged is None:
        return None
    try:
        return judged.task_reward()
    except DeviceError:
        return None


def _final_check(check: Callable[[Device], bool] | None, device: Device) -> bool | None:
    """The task's automatic check of the phone as the episode ends (None without one, or on a device that no
    longer answers: an unknown outcome, not a failure)."""
    if check is None:
        return None
    try:
        return bool(check(device))
    except DeviceError:
        return None


def _describe_device(device: Device) -> str:
    return f"{type(device).__name__}(seed={device.seed})" if device.seed is not None else type(device).__name__


@dataclass(slots=True)
class _Grounded:
    """What grounding a decision produced: the action (if any), the final state and a stop, if any."""

    grounding: Grounding | None
    state: PolicyState | None
    stop: _Stop | None = None


@dataclass(slots=True)
class _TrialMemory:
    """What the episode remembers within one trial (a new trial starts afresh).

    Attributes:
        previous: The screen of the last step, as observed (to tell whether it changed).
        actions: What each step did, for the repeat rule: an action's JSON, or the step that was not carried out.
        opened: The apps that were in front, which a reset between trials closes.
    """

    previous: Observation | None = None
    actions: list[str] = field(default_factory=list)
    opened: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Executed:
    """What carrying out a step's action did: whether it was sent, what was sent, why it failed, the stop it
    caused (the task's end, a device failure) and the time it took."""

    executed: bool = False
    detail: str = ""
    error: str | None = None
    stop: _Stop | None = None
    device_s: float = 0.0


class _Episode:
    def __init__(self, config: EpisodeConfig, device: Device, caller: LLMCaller,
                 on_step: Callable[[StepRecord], None] | None) -> None:
        self.config = config
        self.method: Method = get_method(config.method)
        self.grounder: Grounder = make_grounder(config.grounder)
        self.device = device
        self.caller = caller
        self.on_step = on_step
        self.run: PolicyRun | None = None
        self.memory = _TrialMemory()
        self.trial = 0
        self.usage = LLMUsage()
        self.steps = 0
        # What the task's check said when the last trial ended (the phone is left as it was, so the episode's
        # end needs no second look); None until a trial has ended.
        self.last_check: bool | None = None
        self.source = check_source(config.observation)
        self.surface = surface_of(device.capabilities.surface)
        # One observer per episode, so the OCR models load once (on the first screen).
        self.observer = ScreenObserver() if self.source != "a11y" else None
        self._step_recorded = True
        self.apps: Mapping[str, str] = {}
        #: The calls of a step that ended without its record (kept in the end record).
        self.unrecorded: tuple[LLMCall, ...] = ()

    def begin(self, goal: str) -> None:
        """Start the method's episode on the normalized goal."""
        policy = policy_for(self.method, self.config.resources)
        self.run = policy.begin(EpisodeSetup(goal, STOP_RULES[self.config.stop_rule], self.config.max_steps,
                                             self.config.task_id, given_goal=self.config.goal.strip(),
                                             surface=self.surface))

    async def step(self, index: int, writer: TrajectoryWriter) -> StepRecord:
        """Observe, decide, ground, act and record one step.

        Raises:
            _Stop: The step ends the trial (raised once the step is recorded).
            LLMError, DeviceError: A call or the device failed before the step could be recorded.
        """
        assert self.run is not None, "begin() starts the policy's episode"
        start = time.perf_counter()
        phases = Phases()
        self.caller.begin(index)
        self._step_recorded = False
        seen = await self._observe(phases)
        screen_file, shot_file = writer.save_screen(index, seen.raw, seen.screenshot)
        self.memory.opened.add(seen.package)
        changed = self.memory.previous is None or self.memory.previous.description != seen.description
        # What the run asks to hide is gone from what it decides on, what is grounded and what is recorded.
        obs = hide_elements(seen, self.run.hidden_elements()) if isinstance(self.run, HidesElements) else seen
        decision = await self.run.decide(StepInput(index, obs, changed, self.caller, phases))
        grounded = await self._ground_decision(decision, obs, phases)
        grounding = grounded.grounding
        # On a page that scores itself (a judged task), a stop check's "complete" does not discard the step's
        # own action: the page ends only by what is done on it, and the step judged complete is most often
        # the last one ("Click Submit"). Elsewhere (a phone) the check stops before the action, as the paper.
        finish = grounded.stop is not None and decision.stop is None and task_device(self.device) is not None
        done = self._execute(index, grounding, obs, phases) if grounded.stop is None or finish else _Executed()
        stop = done.stop or grounded.stop if finish else grounded.stop or done.stop
        grounding_error = self._grounding_error(grounding, decision, stop)
        self.memory.previous = seen
        self.run.record(Outcome(obs, decision, grounded.state, done.executed,
                                None if done.executed else (done.error or grounding_error),
                                tapped_element(obs.tree, grounding.action) if grounding is not None else None))
        stop = self._repeat_rule(grounding.action if done.executed and grounding is not None else None,
                                 decision.step, stop, obs.description)
        total = time.perf_counter() - start
        record = StepRecord(
            index=index, screen_file=screen_file, screenshot_file=shot_file, foreground_package=obs.package,
            description=obs.description, state=grounded.state, selected_step=decision.step, samples=decision.samples,
            action=grounding.action if grounding is not None else None, grounding_error=grounding_error,
            executed=done.executed, usage=self.caller.usage(), duration_s=total, executed_detail=done.detail,
            execution_error=done.error, grounder=grounding.source if grounding is not None else None,
            calls=self.caller.calls, timing=self._timing(phases, seen.device_s + done.device_s, total),
            trial=self.trial,
        )
        self._write(record, writer)
        if stop is not None:
            raise stop
        return record

    async def _observe(self, phases: Phases) -> Observation:
        """The screen as the step's source shows it (icons named by a call, when asked)."""
        start = time.perf_counter()
        if self.config.name_icons:
            obs = await observe_named(self.device, self.apps, self.caller, source=self.source, observer=self.observer)
        else:
            obs = observe(self.device, self.apps, screenshot=self.config.screenshots, source=self.source,
                          observer=self.observer)
        phases.add("observe", time.perf_counter() - start)
        return obs

    def _execute(self, index: int, grounding: Grounding | None, obs: Observation, phases: Phases) -> _Executed:
        """Carry out the grounded action, if there is one, and see whether the judged task ended."""
        if grounding is None or grounding.action is None:
            return _Executed()
        start = time.perf_counter()
        executed, detail, error, stop = False, "", None, None
        try:
            detail = execute(grounding.action, self.device, obs.tree)
            executed = True
            settle(self.device, self.source)
            stop = _task_ended(self.device)
        except (AppNotFoundError, ActionNotSupportedError, DeviceActionError) as exc:
            # Recorded with the step, and the episode goes on: the agent may choose another action. The device
            # is well; the action did not fit it (an unknown app, Back on a page, typing with no field focused,
            # a point off the screen), as a person's wrong tap would not.
            error = str(exc)
        except DeviceError as exc:
            # Recorded with the step (its calls and grounded action are kept), then the episode ends.
            error = f"{type(exc).__name__}: {exc}"
            stop = _Stop(StopReason.DEVICE_ERROR, f"step {index}: {error}")
        elapsed = time.perf_counter() - start
        phases.add("execute", elapsed)
        return _Executed(executed, detail, error, stop, elapsed)

    def _repeat_rule(self, action: Action | None, step: str, stop: _Stop | None, screen: str) -> _Stop | None:
        """Count the step for the repeat rule; the stop that ends the trial (``stop``, when there is one already).

        On a web page an action repeats only on the same page: a spinner's arrow, a counter or a "next"
        button is clicked several times in a row by design, each click changing the page (use-spinner is
        solved so), while the same click on an unchanged page is the stuck agent the rule is for. On a phone
        the rule is the paper's: identical actions, whatever the screen.

        Args:
            action: The action carried out, or None when the step was not carried out.
            step: The step in words.
            stop: The step's stop so far.
            screen: The description of the screen the step was decided on.
        """
        if action is not None:
            where = f"{_ON_PAGE}{hashlib.sha1(screen.encode('utf-8')).hexdigest()[:12]}" if self.surface.web else ""
            self.memory.actions.append(str(action_to_json(action)) + where)
        elif stop is None:
            # The same step failing again is the same action attempted again (see the module's docstring).
            self.memory.actions.append(f"{_FAILED}{step}")
        # The rule is the method's own (Method.repeat_limit): the related methods' papers have none.
        limit = self.method.repeat_limit
        actions = self.memory.actions
        if stop is not None or limit is None or len(actions) < limit or len(set(actions[-limit:])) != 1:
            return stop
        last, _, page = actions[-1].partition(_ON_PAGE)
        if last.startswith(_FAILED):
            return _Stop(StopReason.REPEATED_ACTIONS,
                         f"the same step {last[len(_FAILED):]!r} could not be carried out {limit} times in a row")
        return _Stop(StopReason.REPEATED_ACTIONS, f"the same action {last} was performed {limit} times in a row"
                     + (" on an unchanged page" if page else ""))

    def _timing(self, phases: Phases, device_s: float, total: float) -> StepTiming:
        """Where the step's time went: its phases, the model, the device and the rest."""
        llm_s = self.caller.busy_s()
        return StepTiming(phases=dict(phases.seconds), llm_s=llm_s, device_s=device_s,
                          overhead_s=max(0.0, total - llm_s - device_s), total_s=total)

    def _write(self, record: StepRecord, writer: TrajectoryWriter) -> None:
        """Write the step, count it and its calls, and tell ``on_step``."""
        writer.step(record)
        self._step_recorded = True
        self.usage = self.usage + record.usage
        self.steps += 1
        if self.on_step is not None:
            self.on_step(record)

    async def again(self, ended: TrialEnd, writer: TrajectoryWriter) -> bool:
        """Ask a retrying method whether to try again; if so, reset the phone and start the next trial.

        Raises:
            LLMError: The method's call failed (its calls are counted first).
            DeviceError: Resetting the phone failed.
        """
        run = self.run
        if not isinstance(run, Retrying) or ended.trial + 1 >= MAX_TRIALS:
            return False
        self.caller.begin(None)
        self._step_recorded = False
        more = await run.again(ended, self.caller)
        reset = ""
        if more:
            # The next trial starts from the same state, but a simulated phone's noise is drawn anew.
            reset = self.device.reset(seed=self.config.seed, opened=sorted(self.memory.opened - {""}),
                                      snapshot=self.config.reset_snapshot, trial=self.trial + 1)
            self.apps = dict(self.device.launcher_apps())
        usage = self.caller.usage()
        writer.trial(TrialRecord(ended.trial, self.steps, ended.verdict.reason, ended.verdict.detail, more, reset,
                                 self.caller.calls, usage, checked=ended.checked, reward=ended.reward))
        self.usage = self.usage + usage
        self._step_recorded = True
        if more:
            self.trial += 1
            self.memory = _TrialMemory()
        return more

    async def _ground_decision(self, decision: Decision, obs: Observation, phases: Phases) -> _Grounded:
        if decision.stop is not None:
            return _Grounded(None, decision.state, _Stop.of(decision.stop))
        if decision.check is None:
            return _Grounded(await phases.timed("ground", self._ground(decision, obs)), decision.state)
        checked, grounding = await both(phases.timed(decision.check_phase, decision.check()),
                                        phases.timed("ground", self._ground(decision, obs)))
        return _Grounded(grounding, checked.state, _Stop.of(checked.stop) if checked.stop is not None else None)

    def settle_usage(self) -> None:
        """Count and keep the calls of a step that ended without a record (a failure or an interruption)."""
        if not self._step_recorded:
            self.usage = self.usage + self.caller.usage()
            self.unrecorded = self.caller.calls
            self._step_recorded = True

    @staticmethod
    def _grounding_error(grounding: Grounding | None, decision: Decision, stop: _Stop | None) -> str | None:
        if grounding is not None:
            return grounding.error
        if stop is None and not decision.has_action:
            return NO_ACTION
        return None

    async def _ground(self, decision: Decision, obs: Observation) -> Grounding:
        if decision.grounding is not None:
            return decision.grounding  # the policy grounded the step itself (an element id of this screen)
        if not decision.has_action:
            return Grounding(None, NO_ACTION, self.grounder.name, 0)
        return await self.grounder.ground(decision.step, obs.screen, self.caller)


async def run_episode(
    config: EpisodeConfig,
    device: Device,
    client: LLMClient,
    out_dir: Path,
    *,
    on_step: Callable[[StepRecord], None] | None = None,
    on_goal: Callable[[GoalChoice], None] | None = None,
) -> EpisodeResult:
    """Run one episode and write its trajectory into ``out_dir`` (the episode directory).

    Args:
        config: Goal, agent, grounder, limits.
        device: The phone, in the state the episode starts from.
        client: The model; its budget and accountant, if any, apply (a spent budget stops the
            episode with ``budget_exhausted``).
        out_dir: Episode directory; created, and must not hold a trajectory yet.
        on_step: Called with each step's record right after it is written.
        on_goal: Called with the goal in use (and why a rephrasing was refused) before the first step.

    Returns:
        How the episode ended. Failures of the LLM or the device end the episode with a
        recorded reason instead of raising.

    Raises:
        ConfigError: Unknown method or grounder, or a method configured to judge its trials by the task's
            check given no ``trial_check`` (checked before anything is written).
        OutputPathError: ``out_dir`` already holds a trajectory or cannot be created (checked before
            any LLM call).
    """
    if get_method(config.method).needs_task_check and config.trial_check is None:
        # Never let such a method judge itself silently under its name: its results would read as oracle-judged.
        raise ConfigError(f"method {config.method} judges each trial by the task's automatic check, and this "
                          f"episode has none (EpisodeConfig.trial_check is None)")
    start = time.perf_counter()
    started_at = time.time()
    prepare_directory(out_dir)
    caller = LLMCaller(client, episode_id=out_dir.name)
    episode = _Episode(config, device, caller, on_step)
    reason: StopReason | None = None  # set when the goal's normalization fails; else the loop says why it ended
    detail = ""
    rule: StopRule | None = None
    choice = GoalChoice(config.goal.strip())
    setup_calls: tuple[LLMCall, ...] = ()
    caller.begin(None)
    try:
        choice = await normalize_goal(caller, config.goal, episode.surface)
    except LLMBudgetExceededError as exc:
        reason, detail = StopReason.BUDGET_EXHAUSTED, str(exc)
    except LLMError as exc:
        reason, detail = StopReason.LLM_ERROR, f"goal normalization: {exc}"
    setup_calls = caller.calls
    episode.usage = caller.usage()
    normalized = choice.goal
    episode.begin(normalized)
    server = await client.discover()  # asked once per client; the setup calls usually asked already
    header = EpisodeHeader(
        episode_id=out_dir.name, goal=config.goal, normalized_goal=normalized, method=config.method,
        grounder=config.grounder, llm=client.name, device=_describe_device(device), max_steps=config.max_steps,
        started_at=started_at, task_id=config.task_id, seed=config.seed, setup_calls=setup_calls,
        stop_rule=config.stop_rule, noise=noise_record(device), observation=config.observation,
        goal_rejected=choice.rejected, llm_server=server.to_json() if server is not None else None,
        llm_structured=client.structured,
    )
    writer = TrajectoryWriter(out_dir, header)
    if on_goal is not None:
        on_goal(choice)
    try:
        if reason is None:
            reason, detail, rule = await _loop(episode, writer, config.max_steps)
    except (asyncio.CancelledError, KeyboardInterrupt):
        episode.settle_usage()
        writer.end(EpisodeEnd(StopReason.INTERRUPTED, episode.steps, time.perf_counter() - start, episode.usage,
                              f"interrupted during step {episode.steps}", calls=episode.unrecorded))
        raise
    except BaseException:
        writer.close()
        raise
    duration = time.perf_counter() - start
    reward = _final_reward(device)
    checked = episode.last_check if episode.last_check is not None else _final_check(config.trial_check, device)
    writer.end(EpisodeEnd(reason, episode.steps, duration, episode.usage, detail, rule, calls=episode.unrecorded,
                          reward=reward, task_check=checked))
    return EpisodeResult(out_dir, reason, episode.steps, episode.usage, duration, normalized, detail,
                         choice.rejected, reward, checked)


async def _trial(episode: _Episode, writer: TrajectoryWriter, max_steps: int) -> Verdict:
    """Steps until the trial stops on its own or reaches ``max_steps`` (failures propagate)."""
    try:
        for _ in range(max_steps):
            await episode.step(episode.steps, writer)
    except _Stop as stop:
        return Verdict(stop.reason, stop.detail, stop.rule)
    return Verdict(StopReason.MAX_STEPS, f"reached the step limit ({max_steps})")


async def _loop(episode: _Episode, writer: TrajectoryWriter,
                max_steps: int) -> tuple[StopReason, str, StopRule | None]:
    try:
        episode.apps = dict(episode.device.launcher_apps())
        while True:
            first = episode.steps
            verdict = await _trial(episode, writer, max_steps)
            check = episode.config.trial_check
            judged = task_device(episode.device)
            ended = TrialEnd(episode.trial, verdict, episode.steps - first,
                             check(episode.device) if check is not None else None,
                             judged.task_reward() if judged is not None else None)
            # A task that ended solved is never tried again, whatever the method judges or is told: the
            # papers on such pages stopped at the first success, and a retry could only undo it.
            solved = ended.reward is not None and ended.reward.success
            if verdict.reason not in RETRYABLE or solved or not await episode.again(ended, writer):
                episode.last_check = ended.checked
                return verdict.reason, verdict.detail, verdict.rule
    except LLMBudgetExceededError as exc:
        episode.settle_usage()
        return StopReason.BUDGET_EXHAUSTED, f"step {episode.steps}: {exc}", None
    except LLMError as exc:
        episode.settle_usage()
        return StopReason.LLM_ERROR, f"step {episode.steps}: {type(exc).__name__}: {exc}", None
    except DeviceError as exc:
        episode.settle_usage()
        return StopReason.DEVICE_ERROR, f"step {episode.steps}: {type(exc).__name__}: {exc}", None
    except ParseError as exc:
        # The device sent a screen no agent can use (a screenshot larger than any screen, a dump the parser
        # refuses): the device's failure, recorded as one, so the trajectory still gets its end record.
        episode.settle_usage()
        return StopReason.DEVICE_ERROR, f"step {episode.steps}: the device's screen cannot be used: {exc}", None


P = ParamSpec("P")
R = TypeVar("R")


def _on_the_clients_loop(run: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, R]:
    """``run`` for callers without a running event loop, with its own signature: it runs on the loop of the client
    it is given (its ``client`` argument; :meth:`LLMClient.run_sync`), so the client's connections are reused from
    one episode to the next."""
    signature = inspect.signature(run)

    @functools.wraps(run)
    def synchronous(*args: P.args, **kwargs: P.kwargs) -> R:
        client: LLMClient = signature.bind(*args, **kwargs).arguments["client"]
        return client.run_sync(run(*args, **kwargs))

    synchronous.__name__ = synchronous.__qualname__ = f"{run.__name__}_sync"
    synchronous.__doc__ = (f":func:`{run.__name__}` for callers without a running event loop, on the client's own "
                           "loop (its connections are reused from one episode to the next).")
    return synchronous


#: :func:`run_episode` for callers without a running event loop (the same arguments).
run_episode_sync = _on_the_clients_loop(run_episode)
