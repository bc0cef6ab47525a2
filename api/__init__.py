"""The Python API: run an episode or a sweep, read a trajectory, write a report, as the command line does.

``latent-agent run``, ``sweep`` and ``report`` are this module behind argparse; a script or a notebook calls it
directly (docs/python-api.md)::

    from latent_agent.api import EpisodeRequest, LLMOptions, load_trajectory, run_episode

    result = run_episode(EpisodeRequest(method="zero-shot+", goal="Turn on dark theme", device="sim",
                                        llm=LLMOptions("demo"), out=Path("runs/dark")))
    trajectory = load_trajectory(result.directory)

- :func:`run_episode` runs one :class:`EpisodeRequest` (``latent-agent run``);
- :func:`sweep` runs a :class:`SweepRequest` on its pool into a sweep directory (``latent-agent sweep``);
- :func:`load_trajectory` reads an episode directory (steps, calls, the end record);
- :func:`report` writes a sweep's report (``latent-agent report``).

Every refusal is a :class:`~latent_agent.errors.LatentAgentError` whose message is one line, raised before
anything is written. The demo stand-in (``LLMOptions("demo")``) is registered when this module is imported.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.episode import EpisodeConfig, EpisodeResult, run_episode_sync
from latent_agent.agent.goal import GoalChoice
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.agent.trajectory import StepRecord, Trajectory, read_trajectory
from latent_agent.benchmarks.episodes import EpisodeRunner, agent_runner
from latent_agent.benchmarks.launch import EpisodeRequest, ResolvedEpisode, Started, SweepRequest
from latent_agent.benchmarks.ratings import load_ratings
from latent_agent.benchmarks.report import ReportFiles, build_report, load_sweep
from latent_agent.benchmarks.suite import load_named_suite
from latent_agent.benchmarks.sweep import SweepExecutor, SweepOptions, SweepSummary, run_local, run_sweep
from latent_agent.demo.client import check_playable, stand_in_notice
from latent_agent.demo.client import register as register_demo
from latent_agent.device.base import Device
from latent_agent.device.spec import load_device, noise_record
from latent_agent.errors import ConfigError
from latent_agent.extras import require
from latent_agent.llm.base import LLMClient
from latent_agent.llm.budget import Budget
from latent_agent.llm.spec import LLMOptions
from latent_agent.outputs import EPISODE, REPORT, claim

__all__ = ["EpisodeRequest", "EpisodeResult", "EpisodeSettings", "LLMOptions", "Launched", "ReportFiles",
           "ResolvedEpisode", "SweepOptions", "SweepRequest", "SweepSummary", "Trajectory", "Watch",
           "load_named_suite", "load_trajectory", "report", "run_episode", "sweep"]

register_demo()


@dataclass(frozen=True, slots=True)
class Launched:
    """An episode about to take its first step: what it runs with and where it started.

    Attributes:
        config: What it runs with (its goal is the one asked for, or the loaded task's).
        started: Where it started, in words.
        llm: The model's name (``demo demo-oracle``, ``gemini gemini-2.5-flash``).
        noise: The device's noise in words: its knobs, ``none``, or ``of a real phone``.
        stand_in: That the model is a scripted stand-in, when it is one (None: a language model).
        notices: What the method's resources leave out (no demonstrations, ...).
    """

    config: EpisodeConfig
    started: Started
    llm: str
    noise: str
    stand_in: str | None
    notices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Watch:
    """What to call as an episode goes (each optional).

    Attributes:
        on_start: Once the device is at its start, before the first step.
        on_goal: With the goal in use (and why a rephrasing was refused), before the first step.
        on_step: With each step's record, right after it is written.
    """

    on_start: Callable[[Launched], None] | None = None
    on_goal: Callable[[GoalChoice], None] | None = None
    on_step: Callable[[StepRecord], None] | None = None


def run_episode(request: EpisodeRequest | ResolvedEpisode, watch: Watch | None = None) -> EpisodeResult:
    """Run one episode and write its trajectory into the request's ``out`` (see ``latent-agent run``).

    Args:
        request: The episode asked for, or one already resolved (:meth:`EpisodeRequest.resolve`).
        watch: What to call as the episode goes.

    Returns:
        How the episode ended (its directory holds ``trajectory.jsonl``).

    Raises:
        ConfigError, InputError, MissingExtraError: The request is refused (one line; nothing written).
        OutputPathError: ``out`` cannot take the episode.
        DeviceError: The device cannot be reached or brought to its start.
        LLMError: The model refused before the episode started (a key, a goal the demo does not play).
    """
    resolved = request.resolve() if isinstance(request, EpisodeRequest) else request
    watch = watch or Watch()
    asked = resolved.request
    out = claim(resolved.out, EPISODE, force=asked.force)
    asked.llm.claim_record(force=asked.force)
    with ExitStack() as stack:
        # Cheap checks first (key, goal, device), so a bad argument fails before any call starts.
        client = asked.llm.open()
        stack.callback(client.close)
        if resolved.config is not None:
            check_playable(client, [resolved.config.goal])
        device = stack.enter_context(load_device(resolved.device, asked.noise))
        started = resolved.start.apply(device)
        config = resolved.config
        if config is None:  # the goal is the loaded task's
            assert started.goal is not None, "a device whose task gives the goal loads it"
            config = resolved.config_for(started.goal, started.task)
            check_playable(client, [config.goal])
        if watch.on_start is not None:
            watch.on_start(Launched(config, started, client.name, _noise_words(device), stand_in_notice(client),
                                    resolved.notices))
        return run_episode_sync(config, device, client, out, on_step=watch.on_step, on_goal=watch.on_goal)


def _noise_words(device: Device) -> str:
    """The device's noise in words: its knobs, ``none``, or that a real phone's is unknown."""
    caps = device.capabilities
    # A phone reached over a connection has noise of its own, unknown; a page in a remote browser has none.
    return noise_record(device) or ("of a real phone" if caps.remote and caps.launcher_and_apps else "none")



def client_factory(llm: LLMOptions, goals: Sequence[str], *, what: str,
                   budget: Budget | None = None) -> tuple[Callable[[], closing[LLMClient]], str | None]:
    """How each device worker of a sweep opens its own client (its connections; ``demo``: its own stand-in), once
    one client has been opened and closed to check the model.

    Every client gets the sweep's budget, which they share (the clients apply it, once per call).

    Args:
        llm: The model.
        goals: The goals the sweep pursues (a scripted stand-in plays only its own).
        what: The goals' suite, for messages.
        budget: The sweep's budget.

    Returns:
        The factory, and what to tell the user of a scripted stand-in (None: a language model).

    Raises:
        ConfigError: A bad spec or a missing key (checked now, before any device is touched), or goals the model
            cannot play.
    """
    with closing(llm.open()) as client:
        check_playable(client, goals, what=what)
        notice = stand_in_notice(client)
    # A function of this module, not a closure: a Ray device actor unpickles it by name (importing this module,
    # which registers the demo provider) and opens its client where it runs.
    return functools.partial(open_client, llm, budget), notice


def open_client(llm: LLMOptions, budget: Budget | None) -> closing[LLMClient]:
    """One worker's client, closed when the worker ends (:func:`client_factory`)."""
    return closing(llm.open(budget=budget))


def sweep(request: SweepRequest, out: Path, options: SweepOptions | None = None, *, budget: Budget | None = None,
          runner: EpisodeRunner = agent_runner, executor: SweepExecutor = run_local) -> SweepSummary:
    """Plan the sweep ``request`` asks for and run every episode not yet recorded in ``out`` (see ``latent-agent
    sweep``; ``options.resume`` continues the same sweep planned there).

    Args:
        request: The suite's tasks, the methods, the pool, the model, the settings.
        out: The sweep directory (``manifest.json``, ``results.jsonl``, ``episodes/``).
        options: Resume, retries, reset policy, screenshots, progress bar, pause after consecutive failures.
        budget: An LLM budget for the whole run, shared by every worker.
        runner: Runs one episode (the agent).
        executor: Runs the episodes on the pool: threads here (the default), or a Ray cluster's device actors
            (:class:`~latent_agent.benchmarks.ray_cluster.RayExecutor`).

    Returns:
        What the run did (episodes run, errored, still to run).

    Raises:
        ConfigError, InputError, MissingExtraError: The request is refused (one line; nothing written).
        SweepStateError: ``out`` holds another sweep, or one and ``options.resume`` is off.
        ConsecutiveErrorsError: The same failure ended too many episodes in a row (the sweep paused).
    """
    resolved = request.resolve()
    factory, _ = client_factory(request.llm, [t.goal for t in resolved.runnable], what=repr(resolved.suite.name),
                                budget=budget)
    return run_sweep(out, resolved.suite, resolved.plan, resolved.devices, client_factory=factory,
                     options=options or SweepOptions(), runner=runner, executor=executor)


def load_trajectory(directory: Path | str) -> Trajectory:
    """Read an episode directory: its header, every step (with its LLM calls), its trials and its end record.

    Raises:
        InputError: The directory holds no trajectory, or a malformed one.
    """
    return read_trajectory(Path(directory))


def report(sweep_directory: Path, out: Path | None = None, *, ratings: Path | None = None,
           resamples: int = 20_000, episode_pages: bool = True, force: bool = False) -> ReportFiles:
    """Write the report of a sweep (``report.md``, ``report.html``, charts, episode pages; see ``latent-agent
    report``).

    Args:
        sweep_directory: The sweep directory.
        out: The report directory (default ``sweep_directory/report``).
        ratings: Rater scores (ratings JSONL), applied to the episodes they rate.
        resamples: Permutation-test resamples (exact enumeration when 2^pairs <= resamples).
        episode_pages: Render each episode's page (else link its trajectory).
        force: Replace what ``out`` holds if it is not a report.

    Raises:
        ConfigError: ``resamples`` < 1.
        MissingExtraError: The stats extra is missing.
        SweepStateError: ``sweep_directory`` is not a sweep directory.
        OutputPathError: ``out`` cannot take the report.
    """
    if resamples < 1:
        raise ConfigError(f"--resamples must be >= 1, got {resamples}")
    require("stats", "latent-agent report")  # its tests and charts; checked before anything is read or written
    load_sweep(sweep_directory)  # a wrong directory is the one message, and gets no report folder
    claim(out or sweep_directory / "report", REPORT, force=force, inputs=(sweep_directory,))
    rated = load_ratings(ratings) if ratings else None
    return build_report(sweep_directory, out, ratings=rated, n_resamples=resamples, render_episodes=episode_pages)
