"""The settings every episode of a run or a sweep is given: one record, one way to compare and merge them.

:class:`EpisodeSettings` holds the knobs that are the same for every episode of a sweep and that ``run``
takes as well: the step limit, the grounder, the ``-`` agents' stop rule, whether icons are named, and
the files the methods read besides the model. What names an episode (goal, task, method, seed,
observation source) is not a setting: a sweep plans those per episode. The records that carry settings
*are* this record plus what they add (:class:`~latent_agent.agent.episode.EpisodeConfig`,
:class:`~latent_agent.benchmarks.plan.SweepPlan`, :class:`~latent_agent.benchmarks.episodes.EpisodeJob`),
so a field added here reaches all of them, the manifest (written and read by :mod:`latent_agent.codec`
under the fields' names), the comparison a resume makes and (through :mod:`latent_agent.cli.settings`) the
options of both commands.

The device's noise and the model's output ceiling are not here: they are set where the device and the
client are built (``--noise``, ``--llm-max-output``), and the sweep's plan records them beside these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from latent_agent import codec
from latent_agent.agent.policy import STOP_RULES
from latent_agent.agent.resources import MethodResources
from latent_agent.errors import ConfigError, InputError
from latent_agent.grounder.registry import DEFAULT_GROUNDER, GROUNDERS

#: The step limit unless told otherwise (per trial, for a method that tries again).
DEFAULT_MAX_STEPS = 20
#: The ``-`` agents' stop rule unless told otherwise: the method's own (see :data:`STOP_RULES`).
DEFAULT_STOP_RULE = "paper"


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeSettings:
    """What every episode of a run or a sweep is given.

    Attributes:
        max_steps: Most steps before stopping (per trial, for a method that tries again).
        grounder: A name of :data:`~latent_agent.grounder.registry.GROUNDERS` (default: the method's grounder).
        stop_rule: When a ``-`` agent stops (:data:`~latent_agent.agent.policy.STOP_RULES`): ``paper`` (the
            method's rule, the default: "done" anywhere in the selected action, so "You should be done."
            stops) or ``strict`` (the action says only that it is done; "Tap Done" does not stop). ``+``
            agents always stop on their completion estimate.
        name_icons: On a screen source, name the unlabelled icons the screenshot shows by one multimodal call
            per step (purpose ``name_icons``, :func:`latent_agent.agent.observe.observe_named`).
        resources: What the methods read besides the model (``--memory``, ``--embedder``, ``--demos``;
            :mod:`latent_agent.agent.resources`).
    """

    max_steps: int = DEFAULT_MAX_STEPS
    grounder: str = DEFAULT_GROUNDER
    stop_rule: str = DEFAULT_STOP_RULE
    name_icons: bool = False
    resources: MethodResources = field(default_factory=MethodResources)

    def __post_init__(self) -> None:
        if self.grounder not in GROUNDERS:
            raise ConfigError(f"unknown grounder {self.grounder!r}; choose one of {', '.join(GROUNDERS)}")
        if self.stop_rule not in STOP_RULES:
            raise ConfigError(f"unknown stop rule {self.stop_rule!r}; choose one of {', '.join(STOP_RULES)}")
        if self.max_steps < 1:
            raise ConfigError(f"max_steps (--max-steps) must be >= 1, got {self.max_steps}")

    @property
    def settings(self) -> EpisodeSettings:
        """The settings alone, of a record that is the settings plus more."""
        return EpisodeSettings(**self.as_kwargs())

    def as_kwargs(self) -> dict[str, Any]:
        """The settings as keyword arguments, to build a record that is the settings plus more."""
        return {f.name: getattr(self, f.name) for f in fields(EpisodeSettings)}

    def merged(self, given: Mapping[str, Any]) -> EpisodeSettings:
        """These settings (a resumed sweep's planned ones) with those ``given`` again in their place.

        A value of None is not given. The method resources are the exception: one given that differs from
        the planned one is refused rather than replacing it (:meth:`MethodResources.resumed`).

        Raises:
            ConfigError: A name that is no setting, a bad value, or a resource that differs from the planned one.
        """
        unknown = set(given) - {f.name for f in fields(EpisodeSettings)}
        if unknown:
            raise ConfigError(f"not an episode setting: {', '.join(sorted(unknown))}")
        chosen = {name: value for name, value in given.items() if value is not None}
        if "resources" in chosen:
            chosen["resources"] = chosen["resources"].resumed(self.resources)
        return replace(self.settings, **chosen)

    def differences_to(self, other: EpisodeSettings) -> list[str]:
        """What differs between these settings (planned) and ``other`` (asked), in words; empty when the same."""
        out = [f"{f.name}: planned {getattr(self, f.name)!r}, asked {getattr(other, f.name)!r}"
               for f in fields(EpisodeSettings)
               if f.name != "resources" and getattr(self, f.name) != getattr(other, f.name)]
        if self.resources.to_json() != other.resources.to_json():
            out.append(f"resources: planned {self.resources.to_json()!r}, asked {other.resources.to_json()!r}")
        return out


def _read_resources(obj: Any) -> MethodResources:
    try:
        return MethodResources.from_json(obj, "the sweep's resources")
    except InputError as exc:
        raise codec.mismatch(f"is not a set of method resources ({exc})") from None


# Written as manifests have always held them (absolute paths and the embedder spec; keys never).
codec.register(MethodResources, MethodResources.to_json, _read_resources)
