"""The plan of a sweep: every (task, method, observation source, seed) episode, fixed in ``manifest.json``
before anything runs.

The manifest is written once, atomically; ``--resume`` checks that the sweep
asked for is the one planned, so a resumed sweep can neither lose nor add
episodes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latent_agent import codec
from latent_agent.agent.methods import METHODS
from latent_agent.agent.observe import OBSERVATION_SOURCES
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.atomic_write import write_atomic
from latent_agent.device.sim.noise import describe_noise
from latent_agent.errors import ConfigError, InputError, SweepStateError
from latent_agent.suggest import unknown_value

SCHEMA_VERSION = 1
MANIFEST_FILE = "manifest.json"


def parse_methods(text: str) -> tuple[str, ...]:
    """Parse ``--methods`` (comma-separated; ``all`` for every registered method, :mod:`latent_agent.agent.methods`).

    Raises:
        ConfigError: For an unknown or repeated method.
    """
    if text.strip() == "all":
        return tuple(METHODS)
    names = tuple(m.strip() for m in text.split(",") if m.strip())
    if not names:
        raise ConfigError("--methods is empty; use e.g. zero-shot+,zero-shot- or all")
    for name in names:
        if name not in METHODS:
            raise ConfigError(f"--methods: {unknown_value('method', name, [*METHODS, 'all'])}")
    if len(set(names)) != len(names):
        raise ConfigError(f"--methods repeats a method: {text}")
    return names


def parse_observations(text: str) -> tuple[str, ...]:
    """Parse ``--observation``: one source (``a11y``, ``screen``, ``both``) or several, comma-separated.

    Several sources run every (task, method, seed) under each, as several methods do, so the report
    compares them on the same episodes.

    Raises:
        ConfigError: For an empty list, an unknown or a repeated source.
    """

    names = tuple(s.strip() for s in text.split(",") if s.strip())
    if not names:
        raise ConfigError("--observation is empty; use a11y, screen, both, or several, e.g. a11y,screen")
    for name in names:
        if name not in OBSERVATION_SOURCES:
            raise ConfigError(f"unknown observation source {name!r} in --observation; use "
                              f"{', '.join(OBSERVATION_SOURCES)} (or several, comma-separated)")
    if len(set(names)) != len(names):
        raise ConfigError(f"--observation repeats a source: {text}")
    return names


@dataclass(frozen=True, slots=True)
class PlannedEpisode:
    """One episode of the plan (``observation``: where the agent's view of each screen comes from)."""

    task_id: str
    method: str
    seed: int
    goal: str
    observation: str = "a11y"

    @property
    def key(self) -> str:
        """Unique name in the sweep, also the episode directory's name.

        The dump (``a11y``) adds nothing, so the keys of sweeps planned before the source could be
        chosen stay as they were; another source is named after the method (``__screen``).
        """
        source = "" if self.observation == "a11y" else f"__{self.observation}"
        return f"{self.task_id}__{self.method}{source}__s{self.seed}"


@codec.shape(leading=("suite", "methods", "seeds", "llm"))
@dataclass(frozen=True, slots=True)
class SweepPlan(EpisodeSettings):
    """What a sweep runs: the settings every episode is given (:class:`~latent_agent.agent.settings.EpisodeSettings`:
    step limit, grounder, stop rule, icon naming, method resources) and what the sweep adds.

    Attributes:
        suite: Suite name.
        methods: Agent variants.
        seeds: Seeds per (task, method): 0 .. seeds-1, or the first ``seeds`` of a task's own seeds (a
            task of a MiniWoB++ suite is evaluated on its suite's seeds).
        llm: The ``--llm`` spec (for the record; keys never appear in specs).
        episodes: Every planned episode, in scheduling order.
        noise: The simulated phone's noise (``NoiseConfig.spec``; ``none`` in manifests written before noise
            could be set).
        observations: The observation sources each (task, method, seed) runs under (``a11y`` only in
            manifests written before the source could be chosen).
        llm_max_output: ``--llm-max-output``, the ceiling on every call's output cap (None: the call kinds'
            own caps, also in manifests written before it could be set); a resumed sweep keeps it.
        llm_structured: ``--llm-structured on``: every call kind's answer held to its shape where the server takes
            one (False: free answers, also in manifests written before it could be set); a resumed sweep keeps it.
        devices: The ``--devices`` pool it was planned on, which ``--resume`` uses when given none (None in
            manifests written before it was recorded). Not part of what the sweep is: a resume may run on
            another pool.
    """

    suite: str
    methods: tuple[str, ...]
    seeds: int
    llm: str
    episodes: tuple[PlannedEpisode, ...]
    noise: str = "none"
    observations: tuple[str, ...] = ("a11y",)
    llm_max_output: int | None = None
    devices: str | None = None
    llm_structured: bool = False

    @classmethod
    def build(cls, suite: str, tasks: Sequence[tuple[str, str]], methods: Sequence[str], seeds: int, llm: str,
              settings: EpisodeSettings | None = None, *, noise: str = "none",
              observations: Sequence[str] = ("a11y",), task_seeds: Mapping[str, Sequence[int]] | None = None,
              llm_max_output: int | None = None, devices: str | None = None,
              llm_structured: bool = False) -> SweepPlan:
        """Plan every (task, method, observation source, seed); ``tasks`` are (id, goal) pairs.

        A task listed in ``task_seeds`` runs on the first ``seeds`` of its own seeds (fewer when it has
        fewer); the others on 0 .. seeds-1. Episodes are ordered seed-major (the n-th seed of every task
        before the next), then task, then method, then source, so a partial sweep has compared the
        methods (and each method's sources) on the same tasks.

        Raises:
            ConfigError: For no tasks or seeds < 1, or icons to name with no screen source.
        """
        settings = settings or EpisodeSettings()
        if settings.name_icons and not set(observations) - {"a11y"}:
            raise ConfigError("--name-icons reads icons from the screenshot: it needs --observation screen or both "
                              "(e.g. a11y,screen)")
        if seeds < 1:
            raise ConfigError(f"--seeds must be >= 1, got {seeds}")
        if not tasks:
            raise ConfigError(f"suite {suite!r}: no runnable task")
        own = task_seeds or {}
        episodes = tuple(
            PlannedEpisode(task_id, method, own[task_id][n] if task_id in own else n, goal, source)
            for n in range(seeds) for task_id, goal in tasks if task_id not in own or n < len(own[task_id])
            for method in methods for source in observations
        )
        return cls(suite=suite, methods=tuple(methods), seeds=seeds, llm=llm, episodes=episodes, noise=noise,
                   observations=tuple(observations), llm_max_output=llm_max_output, devices=devices,
                   llm_structured=llm_structured, **settings.as_kwargs())

    @property
    def noise_label(self) -> str:
        """The noise for people: ``paper (knob=level,...)``, ``none``, or the knobs."""

        return describe_noise(self.noise)

    def to_json(self) -> dict[str, Any]:
        """The manifest (:mod:`latent_agent.codec`; the settings under their own names)."""
        return {"schema_version": SCHEMA_VERSION, **codec.encode(self)}

    @classmethod
    def from_json(cls, obj: Any, where: str) -> SweepPlan:
        """Read a manifest; what one written before a field existed lacks reads as the field's default.

        Raises:
            SweepStateError: Not a manifest of this schema version, or a malformed one.
        """
        if not isinstance(obj, dict) or obj.get("schema_version") != SCHEMA_VERSION:
            raise SweepStateError(f"{where}: not a sweep manifest of schema_version {SCHEMA_VERSION}")
        try:
            plan: SweepPlan = codec.decode(cls, {k: v for k, v in obj.items() if k != "schema_version"})
        except InputError as exc:
            raise SweepStateError(f"{where}: malformed manifest ({exc})") from None
        return plan

    def differences(self, other: SweepPlan) -> list[str]:
        """What differs between two plans, in words (empty when they are the same sweep)."""

        def differing(*names: str) -> list[str]:
            return [f"{name}: planned {getattr(self, name)!r}, asked {getattr(other, name)!r}"
                    for name in names if getattr(self, name) != getattr(other, name)]

        out = [*differing("suite", "methods", "seeds"), *self.differences_to(other),
               *differing("llm", "noise", "observations", "llm_max_output", "llm_structured")]
        if not out and self.episodes != other.episodes:
            mine, theirs = {e.key for e in self.episodes}, {e.key for e in other.episodes}
            out.append(f"episodes: {len(mine - theirs)} planned but not asked, {len(theirs - mine)} asked but "
                       "not planned (the task list or a goal changed)")
        return out


def write_manifest(directory: Path, plan: SweepPlan) -> None:
    write_atomic(directory / MANIFEST_FILE, json.dumps(plan.to_json(), indent=1, ensure_ascii=False) + "\n")


def read_manifest(directory: Path) -> SweepPlan:
    """Read ``DIR/manifest.json``.

    Raises:
        SweepStateError: If missing or malformed.
    """
    path = directory / MANIFEST_FILE
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepStateError(f"{directory} is not a sweep directory (no {MANIFEST_FILE})") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise SweepStateError(f"{path}: cannot read ({exc})") from None
    return SweepPlan.from_json(obj, str(path))
