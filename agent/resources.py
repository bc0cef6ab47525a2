"""What some methods read besides the model (an exemplar memory and its embedder, expert demonstrations), each
declared by the method's package with the option that names it.

A method package declares each file or spec it reads as a :class:`Resource` (:func:`declare_resource`): its
name, the command-line option that names it (``--memory``), whether it is a path, and what of a value read from a
file only the user may choose. ``run`` and ``sweep`` add one option per declared resource, and a sweep's manifest
records them by name, so a method from elsewhere adds its own file without touching this module.

The registry (:mod:`latent_agent.agent.methods`) holds each method's policy as registered; the
files a run was given travel as a :class:`MethodResources` value in the episode's config, and the loop asks a
policy that reads them (:class:`UsesResources`) for the policy configured with them. So nothing global changes
when a run or sweep is given resources, a sweep's manifest records them (a resumed sweep runs its
remaining episodes with the same files), and two runs in one process cannot see each other's.

Loading is each policy's own business; the policies here cache what they load per process, so
configuring a policy once per episode costs a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from latent_agent.errors import ConfigError, InputError

if TYPE_CHECKING:
    from latent_agent.agent.policy import Policy
    from latent_agent.llm.embed.registry import EmbedderOptions


@dataclass(frozen=True, slots=True)
class Resource:
    """A file or a spec some method reads besides the model, and the option that names it.

    Attributes:
        name: Its name in :class:`MethodResources` and in a sweep's manifest (``memory``); the option's destination.
        option: The command-line option that names it (``--memory``).
        metavar: The option's value in help (``M``).
        help: The option's help.
        path: It names a file or a folder (recorded absolute, compared resolved); else a spec, recorded as written.
        user_only: What a value read from a file (a resumed sweep's manifest) names that only the user's command line
            may choose, in words (an embedder that sends texts with the user's key), or None; None: nothing of
            the kind.
    """

    name: str
    option: str
    metavar: str
    help: str
    path: bool = True
    user_only: Callable[[str], str | None] | None = None


#: Every declared resource, by name (:func:`declare_resource`).
RESOURCES: dict[str, Resource] = {}


def declare_resource(resource: Resource) -> Resource:
    """Declare ``resource`` (declaring the same again is harmless); returns it.

    Raises:
        ConfigError: Its name is declared already as another resource.
    """
    if RESOURCES.get(resource.name, resource) != resource:
        raise ConfigError(f"method resource {resource.name!r} is declared already")
    RESOURCES[resource.name] = resource
    return resource


def resource(name: str, where: str = "") -> Resource:
    """The resource declared as ``name``.

    Raises:
        InputError: None is (a manifest naming a resource no registered method reads), naming ``where``.
    """
    try:
        return RESOURCES[name]
    except KeyError:
        raise InputError(f"{where}: unknown resource {name!r}".lstrip(": ")) from None


@dataclass(frozen=True, slots=True, init=False)
class MethodResources:
    """The resources one run or sweep was given, by name (:class:`Resource`).

    Made as ``MethodResources(memory=Path("runs/memory"), demos=Path("runs/demos"))``: a resource given None is
    not given.

    Attributes:
        entries: The resources given, ``(name, value)`` sorted by name.
        embedder_options: What a remote embedder needs (key, endpoint); never recorded.
    """

    entries: tuple[tuple[str, Path | str], ...]
    embedder_options: EmbedderOptions | None = field(default=None, compare=False, repr=False)

    def __init__(self, *, embedder_options: EmbedderOptions | None = None, **given: Path | str | None) -> None:
        self._set(given, embedder_options)

    def _set(self, given: Mapping[str, Path | str | None], embedder_options: EmbedderOptions | None) -> None:
        object.__setattr__(self, "entries", tuple(sorted((n, v) for n, v in given.items() if v is not None)))
        object.__setattr__(self, "embedder_options", embedder_options)

    @classmethod
    def of(cls, given: Mapping[str, Path | str | None],
           embedder_options: EmbedderOptions | None = None) -> MethodResources:
        """The resources ``given`` by name (a name given None is not given)."""
        made = cls()
        made._set(given, embedder_options)
        return made

    def given(self) -> tuple[str, ...]:
        """The names of the resources that are set."""
        return tuple(name for name, _ in self.entries)

    def get(self, name: str) -> Path | str | None:
        """The resource ``name`` as given, or None."""
        return next((value for n, value in self.entries if n == name), None)

    def path(self, name: str) -> Path | None:
        """The file or folder ``name`` names, or None."""
        value = self.get(name)
        return Path(value) if value is not None else None

    def spec(self, name: str) -> str | None:
        """The spec ``name`` gives, or None."""
        value = self.get(name)
        return str(value) if value is not None else None

    def to_json(self) -> dict[str, str]:
        """The resources for a manifest: absolute paths and specs as written (keys are never written)."""
        return {name: str(Path(value).resolve()) if resource(name).path else str(value) for name, value in self.entries}

    @classmethod
    def from_json(cls, obj: object, where: str) -> MethodResources:
        """Read :meth:`to_json`'s output.

        Raises:
            InputError: Not an object of strings, or a resource no registered method declares (naming ``where``).
        """
        if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
            raise InputError(f"{where}: 'resources' must be an object of strings")
        unknown = sorted(set(obj) - set(RESOURCES))
        if unknown:
            raise InputError(f"{where}: unknown resource(s) {', '.join(unknown)}")
        return cls.of({name: Path(value) if RESOURCES[name].path else value for name, value in obj.items()})

    def resumed(self, planned: MethodResources) -> MethodResources:
        """The resources for resuming a sweep planned with ``planned``: the planned ones, where these
        are not given; the same ones, where they are.

        Raises:
            ConfigError: A resource is given that differs from the planned one (its episodes would not
                be comparable with those already run).
        """
        merged = dict(planned.entries)
        for name, mine in self.entries:
            theirs = merged.get(name)
            if theirs is not None and _key(mine) != _key(theirs):
                raise ConfigError(f"{resource(name).option} {mine} differs from the sweep's own ({theirs}); resume "
                                  "without it, or start a new sweep in another --out")
            merged[name] = mine
        return MethodResources.of(merged, self.embedder_options)


def _key(value: Path | str) -> str:
    return str(value.resolve()) if isinstance(value, Path) else value


@runtime_checkable
class UsesResources(Protocol):
    """A policy that reads some of :class:`MethodResources`."""

    @property
    def resources_used(self) -> frozenset[str]:
        """Which resources it reads (the names its package declared, :func:`declare_resource`)."""
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
