"""What some methods read besides the model: an exemplar memory and its embedder, expert demonstrations.

The registry (:mod:`latent_agent.agent.methods`) holds each method's policy as registered; the
files a run was given (``--memory``, ``--embedder``, ``--demos``) travel as a :class:`MethodResources`
value in the episode's config, and the loop asks a policy that reads them
(:class:`UsesResources`) for the policy configured with them. So nothing global changes when a
run or sweep is given resources, a sweep's manifest records them (a resumed sweep runs its
remaining episodes with the same files), and two runs in one process cannot see each other's.

Loading is each policy's own business; the policies here cache what they load per process, so
configuring a policy once per episode costs a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from latent_agent.agent.methods import METHODS
from latent_agent.errors import ConfigError, InputError

if TYPE_CHECKING:
    from latent_agent.agent.methods import Method
    from latent_agent.agent.policy import Policy
    from latent_agent.llm.embed.registry import EmbedderOptions

#: The command-line option of each resource, for messages.
OPTIONS = {"memory": "--memory", "embedder": "--embedder", "demos": "--demos"}


@dataclass(frozen=True, slots=True)
class MethodResources:
    """The resources one run or sweep was given.

    Attributes:
        memory: The exemplar memory directory (``latent-agent memory build``), or None.
        embedder: The embedder spec the memory is queried with (None: the one it was built with).
        demos: The CAAP expert demonstrations (``latent-agent demos build``), or None.
        embedder_options: What a remote embedder needs (key, endpoint); never recorded.
    """

    memory: Path | None = None
    embedder: str | None = None
    demos: Path | None = None
    embedder_options: EmbedderOptions | None = field(default=None, compare=False, repr=False)

    def given(self) -> tuple[str, ...]:
        """The names of the resources that are set (``memory``, ``embedder``, ``demos``)."""
        return tuple(name for name in OPTIONS if getattr(self, name) is not None)

    def to_json(self) -> dict[str, str]:
        """The resources for a manifest: absolute paths and the embedder spec (keys are never written)."""
        out: dict[str, str] = {}
        if self.memory is not None:
            out["memory"] = str(self.memory.resolve())
        if self.embedder is not None:
            out["embedder"] = self.embedder
        if self.demos is not None:
            out["demos"] = str(self.demos.resolve())
        return out

    @classmethod
    def from_json(cls, obj: object, where: str) -> MethodResources:
        """Read :meth:`to_json`'s output.

        Raises:
            InputError: Not an object of strings, or an unknown entry (naming ``where``).
        """
        if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
            raise InputError(f"{where}: 'resources' must be an object of strings")
        unknown = sorted(set(obj) - set(OPTIONS))
        if unknown:
            raise InputError(f"{where}: unknown resource(s) {', '.join(unknown)}")
        return cls(memory=Path(obj["memory"]) if "memory" in obj else None, embedder=obj.get("embedder"),
                   demos=Path(obj["demos"]) if "demos" in obj else None)

    def resumed(self, planned: MethodResources) -> MethodResources:
        """The resources for resuming a sweep planned with ``planned``: the planned ones, where these
        are not given; the same ones, where they are.

        Raises:
            ConfigError: A resource is given that differs from the planned one (its episodes would not
                be comparable with those already run).
        """
        merged = {}
        for f in fields(self):
            name = f.name
            if name == "embedder_options":
                continue
            mine, theirs = getattr(self, name), getattr(planned, name)
            if mine is not None and theirs is not None and _key(mine) != _key(theirs):
                raise ConfigError(f"{OPTIONS[name]} {mine} differs from the sweep's own ({theirs}); resume without "
                                  f"it, or start a new sweep in another --out")
            merged[name] = mine if mine is not None else theirs
        return MethodResources(merged["memory"], merged["embedder"], merged["demos"], self.embedder_options)


def _key(value: Path | str) -> str:
    return str(value.resolve()) if isinstance(value, Path) else value


@runtime_checkable
class UsesResources(Protocol):
    """A policy that reads some of :class:`MethodResources`."""

    @property
    def resources_used(self) -> frozenset[str]:
        """Which resources it reads (names of :class:`MethodResources` fields)."""
        ...

    def configured(self, resources: MethodResources) -> Policy:
        """The policy set up with ``resources`` (loaded once per process; unchanged fields kept).

        Raises:
            ConfigError: A resource is unusable (another embedder, a malformed file).
            InputError: A resource is missing or malformed.
        """
        ...

    def resources_notice(self, resources: MethodResources) -> str:
        """One line to tell the user when ``resources`` leave the method short (e.g. no demos), else ""."""
        ...


def policy_for(method: Method, resources: MethodResources) -> Policy:
    """``method``'s policy, configured with ``resources`` when it reads them."""
    policy = method.policy
    return policy.configured(resources) if isinstance(policy, UsesResources) else policy


def prepare(methods: Sequence[Method], resources: MethodResources) -> tuple[str, ...]:
    """Check ``resources`` against the methods of a run or sweep before any episode, loading each once.

    Returns:
        The notices to show (one per kind of shortfall, naming the methods it concerns).

    Raises:
        ConfigError: A resource is given that none of ``methods`` reads (naming the methods that do),
            or a resource is unusable.
        InputError: A resource is missing or malformed.
    """
    readers = [m for m in methods if isinstance(m.policy, UsesResources)]
    for name in resources.given():
        if not any(name in m.policy.resources_used for m in readers if isinstance(m.policy, UsesResources)):
            users = [m.name for m in METHODS.values()
                     if isinstance(m.policy, UsesResources) and name in m.policy.resources_used]
            raise ConfigError(f"{OPTIONS[name]} is for the method(s) {', '.join(users) or '(none registered)'}; "
                              f"none of {', '.join(m.name for m in methods)} reads it")
    said: dict[str, list[str]] = {}  # one line per notice, naming every method it concerns
    for method in readers:
        assert isinstance(method.policy, UsesResources)
        method.policy.configured(resources)
        notice = method.policy.resources_notice(resources)
        if notice:
            said.setdefault(notice, []).append(method.name)
    return tuple(f"{', '.join(names)}: {notice}" for notice, names in said.items())
