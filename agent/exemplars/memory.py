"""The exemplar memory: successful demonstrations cut into pieces, with the keys that retrieve them.

A memory is a directory (see ``docs/memory.md`` for the format in full)::

    M/manifest.json    what it is: schema version, embedder (name, model, dimension), counts, source runs
    M/exemplars.jsonl  one Exemplar a line
    M/keys.jsonl       one GoalKey a line: a goal string, its task family, the exemplar it came from (if any)
    M/vectors.npy      float32 (n_keys, dimension), row i the unit vector of key i

It is written once (by ``latent-agent memory build``) and read whole; nothing edits it in place.
Reading checks every line and names the file and line of the first problem, and refuses a memory
built with another embedder than the one it will be queried with.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from latent_agent import codec
from latent_agent.errors import ConfigError, GroundingError, InputError, OutputPathError
from latent_agent.grounder.actions import Action
from latent_agent.llm.embed.base import EmbedderInfo, Vectors

SCHEMA_VERSION = 1
#: The manifest's ``kind``: how a directory is recognized as a memory.
KIND = "latent-agent/exemplar-memory"
MANIFEST = "manifest.json"
EXEMPLARS = "exemplars.jsonl"
KEYS = "keys.jsonl"
VECTORS = "vectors.npy"
FILES = (MANIFEST, EXEMPLARS, KEYS, VECTORS)


class MemoryFormatError(InputError):
    """A memory file is missing, malformed, or inconsistent with the others (names the file and line)."""

    def __init__(self, reason: str, *, path: Path, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True, slots=True)
class ExemplarStep:
    """One executed step of a demonstration.

    Attributes:
        words: The step in words, as the agent chose it (``Tap "Network & internet"``).
        action: The grounded action that was executed.
        screen_changed: Whether the screen description differed after the step.
    """

    words: str
    action: Action
    screen_changed: bool


#: ``task`` is left out while None, so the memories written before it read and write as before.
@codec.shape(omit_default=("task",))
@dataclass(frozen=True, slots=True)
class Piece:
    """The steps of a demonstration decided on one observation.

    Attributes:
        screen: The state the piece starts on: the screen description (accessibility description text) on a
            phone, the task area's raw HTML on a web page (Synapse's raw state).
        observation: The abstracted, task-relevant observation of that state, when one exists.
        steps: The steps, in order (at least one): in words on a phone, Synapse's commands on a web page.
        task: The task as it was restated explicitly for this piece (Synapse's task reformulation), when it was.
    """

    screen: str
    observation: str | None
    steps: tuple[ExemplarStep, ...]
    task: str | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """Where an exemplar came from.

    Attributes:
        run: The sweep (or run) directory it was harvested from, as given to ``memory build``.
        episode: The episode id within it.
        task: The task id (``None`` for a goal run without a task).
        method: The method that played the episode.
        checked: Whether the task's automatic check passed (harvesting keeps only those).
        split: The task's split (``train``); evaluation-split episodes are never harvested.
        seed: The episode's seed, when it had one.
    """

    run: str
    episode: str
    task: str | None
    method: str
    checked: bool
    split: str
    seed: int | None = None


#: The order ``exemplars.jsonl`` has always written: the source before the pieces.
@codec.shape(leading=("id", "goal", "family", "source"))
@dataclass(frozen=True, slots=True)
class Exemplar:
    """A successful demonstration of one goal, cut into pieces.

    Attributes:
        id: Unique within the memory.
        goal: The goal the demonstration achieved.
        family: The task family (template) it belongs to: what retrieval votes on.
        pieces: The pieces, in order (at least one).
        source: Where it came from.
    """

    id: str
    goal: str
    family: str
    pieces: tuple[Piece, ...]
    source: Source

    @property
    def steps(self) -> tuple[ExemplarStep, ...]:
        """Every step of every piece, in order."""
        return tuple(step for piece in self.pieces for step in piece.steps)


@dataclass(frozen=True, slots=True)
class GoalKey:
    """One retrieval key: a goal string labelled with its family.

    Attributes:
        text: The goal string that is embedded.
        family: The family a match votes for.
        exemplar: The id of the exemplar whose goal this is; ``None`` for a paraphrase the suite lists.
    """

    text: str
    family: str
    exemplar: str | None = None


# ---------------------------------------------------------------- JSON forms


def exemplar_to_json(exemplar: Exemplar) -> dict[str, Any]:
    """The JSON object of one ``exemplars.jsonl`` line."""
    return {"schema_version": SCHEMA_VERSION, **codec.encode(exemplar)}


def _need(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in obj:
        raise ValueError(f"{what} has no {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"{what}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _text(obj: Mapping[str, Any], key: str, what: str) -> str:
    value: str = _need(obj, key, str, what)
    _filled(value, f"{what}: {key!r}")
    return value


def _filled(value: str, what: str) -> None:
    """Refuse an empty text the type alone allows (a goal or a step of only spaces)."""
    if not value.strip():
        raise ValueError(f"{what} is empty")


def exemplar_from_json(obj: Mapping[str, Any]) -> Exemplar:
    """Read one ``exemplars.jsonl`` object.

    Raises:
        ValueError: Another schema version, or a text, piece or step list that is empty (naming it).
        InputError: A field is missing or has the wrong type, or a step's action is not an action (the
            message names the field).
    """
    _check_version(obj)
    exemplar = codec.decode(Exemplar, {k: v for k, v in obj.items() if k != "schema_version"})
    for name in ("id", "goal", "family"):
        _filled(getattr(exemplar, name), f"exemplar: {name!r}")
    if not exemplar.pieces:
        raise ValueError("exemplar has no pieces")
    for i, piece in enumerate(exemplar.pieces):
        if not piece.steps:
            raise ValueError(f"piece {i} has no steps")
        for j, step in enumerate(piece.steps):
            _filled(step.words, f"piece {i} step {j}: 'words'")
    return exemplar


def key_to_json(key: GoalKey) -> dict[str, Any]:
    """The JSON object of one ``keys.jsonl`` line."""
    return {"schema_version": SCHEMA_VERSION, **codec.encode(key)}


def key_from_json(obj: Mapping[str, Any]) -> GoalKey:
    """Read one ``keys.jsonl`` object (raises ValueError naming the bad field)."""
    _check_version(obj)
    try:
        key = codec.decode(GoalKey, {k: v for k, v in obj.items() if k != "schema_version"})
    except codec.DecodeError as exc:
        raise ValueError(str(exc)) from None
    _filled(key.text, "key: 'text'")
    _filled(key.family, "key: 'family'")
    return key


def _check_version(obj: Mapping[str, Any]) -> None:
    version = obj.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"schema_version {version!r} is not supported (this version reads {SCHEMA_VERSION})")


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise MemoryFormatError("missing (not a complete memory)", path=path)
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                # Every line the writer writes ends in a newline: one without is a cut-off file.
                raise MemoryFormatError("last line is cut off (the file was not written completely)",
                                        path=path, line=number)
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise MemoryFormatError(f"not JSON ({exc.msg})", path=path, line=number) from None
            if not isinstance(obj, dict):
                raise MemoryFormatError("not a JSON object", path=path, line=number)
            yield number, obj


# ---------------------------------------------------------------- the memory


@dataclass(frozen=True, slots=True, eq=False)
class ExemplarMemory:
    """A loaded memory: the exemplars, the keys with their vectors, and the embedder that made them.

    Attributes:
        exemplars: Every exemplar, in the order they were harvested.
        keys: The retrieval keys; ``vectors[i]`` belongs to ``keys[i]``.
        vectors: ``(len(keys), embedder.dimension)`` float32, unit rows.
        embedder: Which embedder made the vectors.
        runs: The run directories the exemplars were harvested from.
        created_at: When the memory was built (Unix time).
    """

    exemplars: tuple[Exemplar, ...]
    keys: tuple[GoalKey, ...]
    vectors: Vectors
    embedder: EmbedderInfo
    runs: tuple[str, ...] = ()
    created_at: float = field(default_factory=time.time)
    _by_family: dict[str, tuple[Exemplar, ...]] = field(init=False, repr=False)
    _by_id: dict[str, Exemplar] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.vectors.shape != (len(self.keys), self.embedder.dimension):
            raise ValueError(f"vectors have shape {self.vectors.shape}, expected "
                             f"({len(self.keys)}, {self.embedder.dimension}) for {len(self.keys)} keys")
        by_id: dict[str, Exemplar] = {}
        by_family: dict[str, list[Exemplar]] = {}
        for exemplar in self.exemplars:
            if exemplar.id in by_id:
                raise ValueError(f"exemplar id {exemplar.id!r} appears twice")
            by_id[exemplar.id] = exemplar
            by_family.setdefault(exemplar.family, []).append(exemplar)
        for key in self.keys:
            if key.exemplar is not None and key.exemplar not in by_id:
                raise ValueError(f"key {key.text!r} names exemplar {key.exemplar!r}, which the memory does not hold")
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_by_family", {f: tuple(xs) for f, xs in by_family.items()})

    @property
    def families(self) -> tuple[str, ...]:
        """The families that have exemplars, sorted."""
        return tuple(sorted(self._by_family))

    def exemplars_of(self, family: str) -> tuple[Exemplar, ...]:
        """The exemplars of ``family`` in harvest order (empty for a family the memory does not hold)."""
        return self._by_family.get(family, ())

    def exemplar(self, exemplar_id: str) -> Exemplar:
        """The exemplar with this id.

        Raises:
            InputError: The memory holds no such exemplar.
        """
        try:
            return self._by_id[exemplar_id]
        except KeyError:
            raise InputError(f"the memory holds no exemplar {exemplar_id!r}") from None

    def manifest(self) -> dict[str, Any]:
        """The JSON object of ``manifest.json``."""
        return {
            "kind": KIND,
            "schema_version": SCHEMA_VERSION,
            "embedder": self.embedder.to_json(),
            "counts": {"exemplars": len(self.exemplars), "keys": len(self.keys),
                       "families": len(self._by_family),
                       "pieces": sum(len(x.pieces) for x in self.exemplars),
                       "steps": sum(len(x.steps) for x in self.exemplars)},
            "runs": list(self.runs),
            "created_at": self.created_at,
        }

    # ------------------------------------------------------------ writing

    def save(self, path: Path) -> None:
        """Write the memory to the directory ``path``, which must not exist or be empty.

        The files are written under temporary names and renamed into place, the manifest last, so a
        directory with a manifest holds a complete memory. Nothing is ever overwritten here: callers
        that allow replacing a memory clear the directory first (``latent_agent.outputs.claim``).

        Raises:
            OutputPathError: ``path`` is a file, or a directory that already holds something.
        """
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise OutputPathError(f"{path} already exists and is not an empty directory; the memory was not written")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputPathError(f"cannot create {path}: {exc.strerror or exc}") from None
        _write_lines(path / EXEMPLARS, (exemplar_to_json(x) for x in self.exemplars))
        _write_lines(path / KEYS, (key_to_json(k) for k in self.keys))
        tmp = path / (VECTORS + ".tmp")
        with tmp.open("wb") as fh:
            np.save(fh, np.ascontiguousarray(self.vectors, dtype=np.float32), allow_pickle=False)
        os.replace(tmp, path / VECTORS)
        _write_text(path / MANIFEST, json.dumps(self.manifest(), indent=2, ensure_ascii=False) + "\n")

    # ------------------------------------------------------------ reading

    @classmethod
    def load(cls, path: Path, *, embedder: EmbedderInfo | None = None) -> ExemplarMemory:
        """Read the memory in directory ``path``.

        Args:
            path: The memory directory.
            embedder: The embedder the memory will be queried with; a memory built with another one
                (name, model or dimension) is refused. None: accept whatever it was built with.

        Raises:
            MemoryFormatError: A file is missing, malformed (file and line named) or inconsistent.
            ConfigError: The memory was built with another embedder (both are named).
        """
        if not path.is_dir():
            raise MemoryFormatError("not a memory directory (it does not exist or is a file)", path=path)
        manifest_path = path / MANIFEST
        manifest = _read_manifest(manifest_path)
        built_with = manifest["embedder"]
        if embedder is not None and built_with != embedder:
            raise ConfigError(f"memory {path} was built with embedder {built_with.spec} "
                              f"(dimension {built_with.dimension}); it cannot be queried with {embedder.spec} "
                              f"(dimension {embedder.dimension}): rebuild it with --embedder {embedder.spec}")
        exemplars_path = path / EXEMPLARS
        exemplars: list[Exemplar] = []
        seen: set[str] = set()
        for number, obj in _read_jsonl(exemplars_path):
            try:
                exemplar = exemplar_from_json(obj)
            except (ValueError, InputError, GroundingError) as exc:
                raise MemoryFormatError(str(exc), path=exemplars_path, line=number) from None
            if exemplar.id in seen:
                raise MemoryFormatError(f"exemplar id {exemplar.id!r} appears twice", path=exemplars_path,
                                        line=number)
            seen.add(exemplar.id)
            exemplars.append(exemplar)
        # Counted before the keys are read: a lost line says "incomplete", not "unknown exemplar".
        _check_count(manifest, "exemplars", len(exemplars), exemplars_path)
        keys_path = path / KEYS
        keys: list[GoalKey] = []
        for number, obj in _read_jsonl(keys_path):
            try:
                key = key_from_json(obj)
            except ValueError as exc:
                raise MemoryFormatError(str(exc), path=keys_path, line=number) from None
            if key.exemplar is not None and key.exemplar not in seen:
                raise MemoryFormatError(f"key names exemplar {key.exemplar!r}, which {EXEMPLARS} does not hold",
                                        path=keys_path, line=number)
            keys.append(key)
        _check_count(manifest, "keys", len(keys), keys_path)
        vectors = _read_vectors(path / VECTORS, rows=len(keys), dimension=built_with.dimension)
        return cls(exemplars=tuple(exemplars), keys=tuple(keys), vectors=vectors, embedder=built_with,
                   runs=tuple(manifest["runs"]), created_at=manifest["created_at"])


def _check_count(manifest: Mapping[str, Any], name: str, actual: int, path: Path) -> None:
    expected = manifest["counts"].get(name)
    if expected != actual:
        raise MemoryFormatError(f"holds {actual} {name} but {MANIFEST} counts {expected} (the memory is incomplete)",
                                path=path)


def _read_manifest(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise MemoryFormatError("missing (not a memory directory, or one whose build did not finish)", path=path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MemoryFormatError(f"not JSON ({exc})", path=path) from None
    if not isinstance(obj, dict) or obj.get("kind") != KIND:
        raise MemoryFormatError(f"not an exemplar memory manifest (its kind is not {KIND!r})", path=path)
    if obj.get("schema_version") != SCHEMA_VERSION:
        raise MemoryFormatError(f"schema_version {obj.get('schema_version')!r} is not supported "
                                f"(this version reads {SCHEMA_VERSION})", path=path)
    emb = obj.get("embedder")
    try:
        if not isinstance(emb, dict):
            raise ValueError("'embedder' is not an object")
        info = EmbedderInfo(name=_text(emb, "name", "embedder"), model=_text(emb, "model", "embedder"),
                            dimension=_need(emb, "dimension", int, "embedder"))
        if info.dimension < 1:
            raise ValueError("embedder dimension must be positive")
        counts = _need(obj, "counts", dict, "manifest")
        runs = _need(obj, "runs", list, "manifest")
        if not all(isinstance(r, str) for r in runs):
            raise ValueError("'runs' must be a list of strings")
        created = _need(obj, "created_at", (int, float), "manifest")
    except ValueError as exc:
        raise MemoryFormatError(str(exc), path=path) from None
    return {"embedder": info, "counts": counts, "runs": runs, "created_at": float(created)}


def _read_vectors(path: Path, *, rows: int, dimension: int) -> Vectors:
    if not path.is_file():
        raise MemoryFormatError("missing (not a complete memory)", path=path)
    try:
        arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise MemoryFormatError(f"not a readable .npy array ({exc})", path=path) from None
    if arr.dtype != np.float32 or arr.shape != (rows, dimension):
        raise MemoryFormatError(f"holds {arr.dtype} {arr.shape}, expected float32 ({rows}, {dimension}): "
                                f"one row per key of {KEYS}", path=path)
    if rows and not np.allclose(np.linalg.norm(arr, axis=1), 1.0, atol=1e-3):
        raise MemoryFormatError("rows are not unit vectors", path=path)
    return np.ascontiguousarray(arr)


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _write_lines(path: Path, objects: Iterable[dict[str, Any]]) -> None:
    _write_text(path, "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in objects))
