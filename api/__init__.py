"""The Python API: run an episode or a sweep, read a trajectory, write a report, as the command line does.

``latent-agent run`` and ``latent-agent sweep`` are this module behind argparse; a script or a notebook calls it
directly (docs/python-api.md)::

    from latent_agent.api import EpisodeRequest, LLMOptions, load_trajectory, run_episode

    result = run_episode(EpisodeRequest(method="zero-shot+", goal="Turn on dark theme", device="sim",
                                        llm=LLMOptions("demo"), out=Path("runs/dark")))
    trajectory = load_trajectory(result.directory)

Every refusal is a :class:`~latent_agent.errors.LatentAgentError` whose message is one line, raised before
anything is written. The demo stand-in (``LLMOptions("demo")``) is registered when this module is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass

from latent_agent.agent.episode import EpisodeConfig, EpisodeResult, run_episode_sync
from latent_agent.agent.goal import GoalChoice
from latent_agent.agent.trajectory import StepRecord
from latent_agent.benchmarks.launch import EpisodeRequest, ResolvedEpisode, Started
from latent_agent.demo.client import check_playable, stand_in_notice
from latent_agent.demo.client import register as register_demo
from latent_agent.device.base import Device
from latent_agent.device.spec import load_device, noise_record
from latent_agent.llm.spec import LLMOptions
from latent_agent.outputs import EPISODE, claim

__all__ = ["EpisodeRequest", "EpisodeResult", "LLMOptions", "Launched", "ResolvedEpisode", "Watch", "run_episode"]

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

