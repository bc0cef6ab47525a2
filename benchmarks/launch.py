"""One episode asked for, resolved once: what runs, which check judges it and how it starts.

An :class:`EpisodeRequest` is what a person (``latent-agent run``) or a script (:mod:`latent_agent.api`) asks
for: a method, a goal or the task a device poses, a device spec, a seed or a snapshot, the settings, the
observation source, the model. :meth:`EpisodeRequest.resolve` reads the device's capabilities once and
returns a :class:`ResolvedEpisode`: the config (or, where the device's task gives the goal, how to make it
once the task is loaded), the one trial-check rule (:func:`trial_check`, which a sweep's episodes are given
too) and the start (a task loaded from its seed, a seeded reset, a reset, or the device as it is). Every
refusal is one line, before anything is written.

A sweep is asked for the same way (:class:`SweepRequest`: the suite's tasks chosen, the methods, the pool, the
settings) and resolved once into its plan: the pool is checked against the suite (:func:`check_pool`: a device
that hosts judged task pages runs only those, and a suite of such pages needs such devices), a method that judges
its trials by the task's check is kept only where the check can run (:func:`checked_methods`), and every episode
is given its check by the rule ``run`` follows (:func:`trial_check`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.agent.episode import EpisodeConfig
from latent_agent.agent.methods import Method, get_method, prepare
from latent_agent.agent.observe import ObservationSource
from latent_agent.agent.resources import MethodResources, UsesResources
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.needs import require_extras
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.benchmarks.pool import parse_devices
from latent_agent.benchmarks.suite import SUITES, BenchmarkTask, Suite, checked_tasks
from latent_agent.device.base import Device, DeviceCapabilities
from latent_agent.device.reset import reset, start_state
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import BACKENDS, DeviceSpec, capabilities_of, check_pool_noise, parse_device_spec
from latent_agent.device.task_env import task_device
from latent_agent.errors import ConfigError
from latent_agent.invocation import command_name
from latent_agent.llm.secrets import redact_url_credentials
from latent_agent.llm.spec import LLMOptions
from latent_agent.suggest import closest
from latent_agent.surfaces import surface_of

if TYPE_CHECKING:
    from latent_agent.benchmarks.sim_tasks import Task as SimTask

#: The seed a judged task starts from when the request names none.
DEFAULT_TASK_SEED = 0

#: The task's automatic check of the device at the end of a trial (True: the task is done).
TrialCheck = Callable[[Device], bool]


def trial_check(method: Method, capabilities: DeviceCapabilities, sim_task: SimTask | None) -> TrialCheck | None:
    """The one rule for the task's automatic check an episode is given (``run`` and every episode of a sweep).

    The check runs when each trial ends, for a method that judges its trials by it, and once more when the
    episode ends, recorded beside the agent's own verdict. On a device that hosts a judged task, the task's own
    reward is the check, given to a method that judges its trials by it (for the others the reward itself judges
    the episode, and the record keeps it). With a sim task on a device whose state the simulated phone's checks
    read, the sim task's check is given to every episode. Elsewhere there is none.

    Args:
        method: The episode's method.
        capabilities: What the episode's device can do.
        sim_task: The simulated phone's task the goal is, if any.
    """
    if capabilities.task_reward:
        return _rewarded if method.needs_task_check else None
    if sim_task is not None and capabilities.state_checks:
        return _SimCheck(sim_task)
    return None


def _rewarded(device: Device) -> bool:
    """The loaded task's own reward: solved (raw reward 1.0)."""
    host = task_device(device)
    return host is not None and host.task_reward().success


@dataclass(frozen=True, slots=True)
class _SimCheck:
    """A sim task's check of the simulated phone's state (False on any other device)."""

    task: SimTask

    def __call__(self, device: Device) -> bool:
        return isinstance(device, SimDevice) and self.task.succeeded(device.state)


def check_pool(suite: str, tasks: Sequence[BenchmarkTask], devices: Sequence[DeviceSpec]) -> None:
    """Refuse a device pool that cannot run a suite's tasks, before anything is written.

    A suite of task pages needs devices hosting judged tasks (each episode loads its page with its seed), and a
    device hosting judged tasks runs only its own pages, never a phone's goal (a sim task would reach it with no
    task to load, and every episode would fail the same way).

    Raises:
        ConfigError: One line naming the suite and the first device that does not fit.
    """
    not_hosting = [d for d in devices if not capabilities_of(d).task_reward]
    if not_hosting and any(t.hosted is not None for t in tasks):
        raise ConfigError(f"suite {suite}'s tasks are pages that a device hosting judged tasks loads with each "
                          f"episode's seed (e.g. --devices miniwob*4); {not_hosting[0]} hosts none")
    hosting = [d for d in devices if capabilities_of(d).task_reward]
    if hosting and any(t.hosted is None for t in tasks):
        raise ConfigError(f"suite {suite}'s tasks are goals for a phone (e.g. --devices sim*4); {hosting[0]} "
                          "hosts judged task pages and runs only those")


def checked_methods(methods: Sequence[str], named: bool, device_kinds: Sequence[str],
                    unchecked_tasks: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """Keep a method that judges its trials by the task's automatic check only where the check can run.

    Args:
        methods: The sweep's methods.
        named: Whether ``--methods`` named them (else ``all``, or the default).
        device_kinds: The devices' backends.
        unchecked_tasks: The tasks no device of the pool can check (no sim task on a device with the
            simulated phone's checks, no hosted task on a device reporting its reward).

    Returns:
        The methods to run and a note for stderr (empty when none was left out): under ``all``,
        such a method is left out, with the note, where the check cannot run.

    Raises:
        ConfigError: ``--methods`` names such a method and the check cannot run (a device other than
            the simulated phone in process, or tasks without a sim task): it would otherwise judge
            itself under its name.
    """
    needing = [m for m in methods if get_method(m).needs_task_check]
    # A trial is judged by the sim's checks or by the reward of a task page the device hosts.
    others = sorted({kind for kind in device_kinds
                     if not (BACKENDS[kind].capabilities.state_checks or BACKENDS[kind].capabilities.task_reward)})
    if not needing or not (others or unchecked_tasks):
        return tuple(methods), ""
    why = (f"which runs only on sim devices (not {', '.join(others)})" if others else
           f"and {len(unchecked_tasks)} task(s) have none (e.g. {', '.join(unchecked_tasks[:3])})")
    if named:
        raise ConfigError(f"--methods {needing[0]} judges each trial by a sim task's automatic check, {why}; "
                          "drop it, or use sim devices and tasks with sim tasks")
    return (tuple(m for m in methods if m not in needing),
            f"latent-agent: {', '.join(needing)} left out (each trial is judged by a sim task's automatic check, "
            f"{why})")


def demo_less_methods(methods: Sequence[str], named: bool,
                      resources: MethodResources) -> tuple[tuple[str, ...], str]:
    """Under ``all``, leave out the CAAP variants that would show demonstrations when no ``--demos`` is given.

    Without demonstrations such a variant runs as the one that shows none (caap as caap-no-demos, caap-no-cot as
    caap-neither), so its rows would repeat theirs under another name. Named with ``--methods``, they run as
    asked, with the notice that they show no demonstrations.

    Returns:
        The methods to run and a note for stderr (empty when none was left out).
    """
    if named or resources.get("demos") is not None:
        return tuple(methods), ""
    short = [m for m in methods if isinstance(policy := get_method(m).policy, UsesResources)
             and "demos" in policy.resources_used and policy.resources_notice(resources)]
    if not short:
        return tuple(methods), ""
    return (tuple(m for m in methods if m not in short),
            f"latent-agent: {', '.join(short)} left out: without --demos they show no demonstrations, so they would "
            "run as caap-no-demos and caap-neither do (build demonstrations with `latent-agent demos build` and "
            "pass --demos, or name the methods in --methods)")


@dataclass(frozen=True, slots=True)
class SweepRequest:
    """A sweep, as it is asked for: every (task, method, observation source, seed) episode on a pool of devices.

    Attributes:
        suite: The suite, with the tasks chosen (:meth:`~latent_agent.benchmarks.suite.Suite.select`, ...).
        devices: The pool (``sim*4``, ``adb:A,adb:B``, ``miniwob*4``, ...).
        llm: The model and what shapes its clients (its output ceiling and shapes are recorded in the plan).
        methods: The methods asked for.
        named: Whether the methods were named (else all): a named method that cannot run here is refused, one of
            all is left out with a note.
        seeds: Seeds per (task, method).
        tasks: The tasks to plan (default: the suite's runnable tasks).
        settings: What every episode is given.
        observations: The observation sources each (task, method, seed) runs under.
        noise: The simulated phone's noise.
        llm_record: The model's spec as the plan records it (None: the spec, a base URL's credentials masked).
    """

    suite: Suite
    devices: str
    llm: LLMOptions
    methods: tuple[str, ...]
    named: bool = True
    seeds: int = 1
    tasks: tuple[BenchmarkTask, ...] | None = None
    settings: EpisodeSettings = field(default_factory=EpisodeSettings)
    observations: tuple[str, ...] = ("a11y",)
    noise: NoiseConfig = field(default_factory=lambda: NoiseConfig.parse("none"))
    llm_record: str | None = None

    def resolve(self) -> ResolvedSweep:
        """Check the pool against the suite, the extras installed and the methods' resources, keep the methods that
        can run here, and plan every episode.

        Raises:
            ConfigError: A bad pool, devices that cannot run the suite's tasks, a named method that cannot run here,
                noise a device cannot have, a bad setting (one line).
            InputError: A method resource is missing or malformed.
            MissingExtraError: An extra the devices, the LLM or the observation sources need is missing.
        """
        runnable = self.tasks if self.tasks is not None else tuple(self.suite.runnable())
        devices = parse_devices(self.devices)
        require_extras(llm=self.llm.spec, device_kinds=[d.kind for d in devices], observations=self.observations)
        check_pool(self.suite.name, runnable, devices)
        kinds = [capabilities_of(d) for d in devices]
        unchecked = [t.id for t in runnable
                     if not all((t.sim_task is not None and c.state_checks) or (t.hosted is not None and c.task_reward)
                                for c in kinds)]
        methods, left_out = checked_methods(self.methods, self.named, [d.kind for d in devices], unchecked)
        methods, without_demos = demo_less_methods(methods, self.named, self.settings.resources)
        notices = prepare([get_method(name) for name in methods], self.settings.resources)
        check_pool_noise(devices, self.noise)  # sims get it; a served sim must have it; a real phone refuses it
        unscored = (f"latent-agent: suite {self.suite.name} is scored from the simulated phone's state; episodes on "
                    "other devices get success = null (for raters)"
                    if self.suite.needs_sim and not all(c.state_checks for c in kinds) else "")
        record = self.llm_record if self.llm_record is not None else redact_url_credentials(self.llm.spec)
        plan = SweepPlan.build(self.suite.name, [(t.id, t.goal) for t in runnable], methods, self.seeds, record,
                               self.settings, noise=self.noise.spec, observations=self.observations,
                               task_seeds={t.id: t.seeds for t in runnable if t.seeds},
                               llm_max_output=self.llm.output_ceiling, devices=redact_url_credentials(self.devices),
                               llm_structured=self.llm.structured)
        return ResolvedSweep(plan, self.suite, tuple(runnable), devices, notices,
                             tuple(n for n in (left_out, without_demos) if n), unscored)


@dataclass(frozen=True, slots=True)
class ResolvedSweep:
    """A sweep ready to run, every option checked.

    Attributes:
        plan: The plan.
        suite: The suite, with the tasks chosen.
        runnable: The tasks the plan holds (with the seeds they run on).
        devices: The device pool.
        notices: What the methods say of their resources (to print once every refusal is past).
        notes: Why methods were left out (full stderr lines).
        unscored: That episodes on devices other than the simulated phone will not be scored, when the suite is
            scored from its state and the pool has such devices (else empty).
    """

    plan: SweepPlan
    suite: Suite
    runnable: tuple[BenchmarkTask, ...]
    devices: tuple[DeviceSpec, ...]
    notices: tuple[str, ...]
    notes: tuple[str, ...]
    unscored: str = ""


@dataclass(frozen=True, slots=True)
class Started:
    """Where the episode started, once the device is brought there.

    Attributes:
        words: The start in words (``a fresh simulated phone (seed 0)``, ``task click-button loaded from seed 0``).
        goal: The goal the loaded task gives (None: the goal was asked for).
        task: The loaded task's name (None: none was loaded).
    """

    words: str
    goal: str | None = None
    task: str | None = None


@dataclass(frozen=True, slots=True)
class Start:
    """How the device is brought to the episode's first screen.

    Attributes:
        task_seed: Load the task the device was named with from this seed (the goal comes from the task); None:
            the goal was asked for.
        seed: Reset to the seeded start state of this seed.
        reset: Reset the device (a served sim fully; other phones go home).
        snapshot: The emulator snapshot every reset loads first.
        fresh: The device is built in this process for the episode (else it is as it was left).
    """

    task_seed: int | None = None
    seed: int | None = None
    reset: bool = False
    snapshot: str | None = None
    fresh: bool = True

    def apply(self, device: Device) -> Started:
        """Bring ``device`` to the start.

        Raises:
            ConfigError: The device names no task to load (``miniwob`` without ``:TASK``).
            DeviceError: The device does not reset, or the task does not load.
        """
        if self.task_seed is not None:
            judged = task_device(device)
            assert judged is not None, "checked by the device's capabilities"
            if judged.task is None:
                raise ConfigError("name the task to run: --device miniwob:TASK (a sweep names one per episode)")
            goal = judged.load_task(judged.task, self.task_seed)
            # A fresh start: loading the task is its reset.
            return Started(f"task {judged.task} loaded from seed {self.task_seed}", goal, judged.task)
        if self.seed is not None:
            return Started(device.reset(seed=self.seed))
        if self.reset:
            return Started(reset(device, self.snapshot))
        # A device built in this process for the run is fresh; one reached over a connection is as it was left.
        return Started(start_state(device, fresh=self.fresh))


@dataclass(frozen=True, slots=True)
class EpisodeRequest:
    """One episode, as it is asked for.

    Attributes:
        method: A registered method's name (:data:`~latent_agent.agent.methods.METHODS`).
        device: The device spec (``sim``, ``sim:SEED``, ``adb:SERIAL``, ``miniwob:TASK``, ...).
        llm: The model and what shapes its client.
        goal: What to do, in words; None on a device whose task gives the goal (``miniwob:TASK``).
        task: The benchmark task the goal is, by id (recorded; on the simulated phone its check runs); None: the
            task whose goal is the goal word for word, if any.
        seed: Start from the device's seeded start state of this seed (a judged task: its problem).
        snapshot: The emulator snapshot every reset loads first.
        reset: Reset the device before the episode (a served sim fully; other phones go home).
        settings: Step limit, grounder, stop rule, icon naming, method resources.
        observation: Where the agent's view of each screen comes from; None: the method's own on the device's
            surface (:meth:`~latent_agent.agent.methods.Method.default_observation`).
        noise: The simulated phone's noise; None: not asked for.
        out: The episode directory (None: ``runs/<time>-<method>``); it must not hold an episode yet.
        screenshots: Whether to take and keep a screenshot every step.
        force: Replace what ``out`` holds.
    """

    method: str
    device: str
    llm: LLMOptions
    goal: str | None = None
    task: str | None = None
    seed: int | None = None
    snapshot: str | None = None
    reset: bool = False
    settings: EpisodeSettings = field(default_factory=EpisodeSettings)
    observation: ObservationSource | None = None
    noise: NoiseConfig | None = None
    out: Path | None = None
    screenshots: bool = True
    force: bool = False

    def resolve(self) -> ResolvedEpisode:
        """Check the request against the method, the device's capabilities (read once) and the extras installed,
        and say what runs.

        Raises:
            ConfigError: Whatever refuses the request, in one line (a resource no method reads, a goal given to
                a device whose task gives it or none to another, a seed or snapshot the device cannot take, an
                unknown task, a method that needs the task's check where it cannot run, a bad setting).
            InputError: A method resource is missing or malformed.
            MissingExtraError: An extra the device, the model or the observation source needs is missing.
        """
        method = get_method(self.method)
        notices = prepare([method], self.settings.resources)
        spec = parse_device_spec(self.device)
        caps = capabilities_of(spec)
        observation = self.observation or method.default_observation(surface_of(caps.surface))
        from_task = self._check_goal(caps)
        self._check_seed(caps)
        sim_task = self._sim_task(caps)
        check = trial_check(method, caps, sim_task)
        if check is None and method.needs_task_check:
            raise ConfigError(self._no_check(caps))
        if self.snapshot and not (caps.remote and caps.launcher_and_apps):  # only an emulated phone has snapshots
            raise ConfigError(f"--snapshot {self.snapshot} loads an emulator snapshot; --device {self.device} resets "
                              "exactly without one (serve it as an emulator, sim serve --emulator, to try snapshots)")
        # Before the episode folder is claimed: a missing extra leaves nothing behind.
        require_extras(llm=self.llm.spec, device_kinds=[spec.kind], observations=[observation])
        start = Start(task_seed=(DEFAULT_TASK_SEED if self.seed is None else self.seed) if from_task else None,
                      seed=self.seed, reset=self.reset, snapshot=self.snapshot, fresh=not caps.remote)
        resolved = ResolvedEpisode(self, spec, caps, observation, check, start, notices,
                                   self.out or _default_out(self.method), None)
        # A goal given is checked now; a task's goal is known once its page is loaded. A goal that is a sim task's
        # is that task (its check runs), and is recorded so.
        if from_task:
            return resolved
        task_id = self.task or (sim_task.id if sim_task else None)
        return resolved.with_config(resolved.config_for(self.goal or "", task_id))

    def _check_goal(self, caps: DeviceCapabilities) -> bool:
        """Whether the device's task gives the goal; checks that a goal is given exactly when it does not.

        Raises:
            ConfigError: A goal given for a device whose task gives it, or none for any other device.
        """
        if caps.task_reward and self.goal is not None:
            raise ConfigError(f"--device {self.device} takes its goal from the task; leave out the goal "
                              f"{shorten(self.goal, 60)!r}")
        if not caps.task_reward and self.goal is None:
            raise ConfigError(f"GOAL is required with --device {self.device} (only a device whose task gives the "
                              "goal, such as miniwob:TASK, runs without one)")
        return caps.task_reward

    def _check_seed(self, caps: DeviceCapabilities) -> None:
        """Refuse a negative seed, or one for a device without a seeded start state.

        Raises:
            ConfigError: Either.
        """
        if self.seed is None:
            return
        if self.seed < 0:
            raise ConfigError(f"--seed needs an integer >= 0, not {self.seed}")
        if not caps.seeded_reset:
            raise ConfigError(f"--seed {self.seed}: --device {self.device} has no seeded start state (it is one "
                              "particular device)")

    def _sim_task(self, caps: DeviceCapabilities) -> SimTask | None:
        """The simulated phone's task the episode is: the one ``task`` names, else the one whose goal is the goal
        (None when there is none, or the device's state cannot be checked). The registered suites say which tasks
        have checks, so a suite registered from outside is checked too.

        Raises:
            ConfigError: ``task`` names no task: of the simulated phone on a device its checks read, of any suite
                elsewhere (it is recorded only there).
        """
        tasks = checked_tasks() if caps.state_checks else {}
        if self.task:
            found = tasks.get(self.task)
        elif self.goal is not None:
            found = next((t for t in tasks.values() if _goal_key(t.goal) == _goal_key(self.goal)), None)
        else:
            found = None
        if self.task is not None and found is None:
            self._unknown_task(caps, tasks)
        return found

    def _unknown_task(self, caps: DeviceCapabilities, tasks: dict[str, SimTask]) -> None:
        """Refuse a ``task`` that names no task, before anything is written.

        Raises:
            ConfigError: An unknown id.
        """
        if caps.state_checks:
            close = closest(self.task or "", tasks)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise ConfigError(f"--task {self.task!r}: the simulated phone has no task of that id{hint} "
                              f"(`{command_name()} sim tasks` lists them)")
        if not any(t.id == self.task for source in SUITES.values() for t in source.load().tasks):
            raise ConfigError(f"--task {self.task!r} is no task of any suite (`{command_name()} sim tasks` lists the "
                              "simulated phone's; a suite's ids are in results.jsonl of its sweeps)")

    def _no_check(self, caps: DeviceCapabilities) -> str:
        """Why a method that judges its trials by the task's check cannot run here: refused rather than letting the
        agent judge itself under the method's name."""
        if not caps.state_checks:
            return (f"--method {self.method} judges each trial by the sim task's automatic check, which runs only on "
                    f"--device sim (not {self.device}); use --method reflection there")
        named = f"the id {self.task!r}" if self.task else f"the goal {shorten(self.goal or '', 60)!r}"
        return (f"--method {self.method} judges each trial by a sim task's automatic check, and no sim task has "
                f"{named}; use --method reflection (the agent judges its own trials)")


@dataclass(frozen=True, slots=True)
class ResolvedEpisode:
    """A request checked, and what runs.

    Attributes:
        request: The request.
        device: Its device spec, parsed once.
        capabilities: What that device can do.
        observation: The observation source.
        trial_check: The task's automatic check (:func:`trial_check`), or None.
        start: How the device is brought to the first screen.
        notices: What the method says of its resources (no demonstrations, ...), to show.
        out: The episode directory.
        config: What the episode runs with; None while the goal is the task's, known once it is loaded
            (:meth:`config_for`).
    """

    request: EpisodeRequest
    device: DeviceSpec
    capabilities: DeviceCapabilities
    observation: ObservationSource
    trial_check: TrialCheck | None
    start: Start
    notices: tuple[str, ...]
    out: Path
    config: EpisodeConfig | None

    def config_for(self, goal: str, task_id: str | None) -> EpisodeConfig:
        """The config of the episode pursuing ``goal`` (the one asked for, or the one its loaded task gives).

        Raises:
            ConfigError: An empty or overlong goal, or a bad setting.
        """
        request = self.request
        # A loaded task records the seed it was loaded from; any other episode the seed asked for, if one was.
        seed = self.start.task_seed if self.start.task_seed is not None else request.seed
        return EpisodeConfig(goal=goal, method=request.method, task_id=request.task or task_id, seed=seed,
                             screenshots=request.screenshots, trial_check=self.trial_check,
                             reset_snapshot=request.snapshot, observation=self.observation,
                             **request.settings.as_kwargs())

    def with_config(self, config: EpisodeConfig) -> ResolvedEpisode:
        """The same with its config made."""
        return ResolvedEpisode(self.request, self.device, self.capabilities, self.observation, self.trial_check,
                               self.start, self.notices, self.out, config)


def _goal_key(text: str) -> str:
    return " ".join(text.strip().rstrip(".").split()).casefold()


def shorten(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut to ``limit`` characters (a goal echoed in a message)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _default_out(method: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return Path("runs") / f"{stamp}-{re.sub(r'[^a-z0-9]+', '', method.replace('+', 'plus'))}"
