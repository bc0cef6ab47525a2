"""An episode's folder, sent from the machine that ran it to the one process that records it.

A sweep on Ray runs its episodes on other machines, but one process, the driver, writes the sweep directory
(:mod:`latent_agent.benchmarks.ray_executor`). A worker packs the folder its episode wrote (the trajectory, the
dumps and screenshots, ``error.txt``) into a :class:`PackedEpisode`, each regular file's path in the folder and
its bytes, which goes back through Ray's object store, so no file system is shared. The driver unpacks it into
``episodes/KEY`` before it writes the episode's result line, and trusts none of it:

- every path is relative and each of its parts a plain name (:func:`latent_agent.safe_paths.safe_name`: no
  ``..``, no absolute path, nothing hidden), so nothing lands outside the episode's folder;
- a link or a special file is never packed, and a file is never written through a link (``O_NOFOLLOW``) nor
  over another (``O_EXCL``: a path sent twice is refused);
- the folder appears whole or not at all: the files are written and flushed in a staging folder beside it,
  which is renamed into place once complete. A driver killed half-way leaves only the staging folder, which
  the next ``--resume`` moves to ``attempts/`` as it does any folder no result names.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from latent_agent.atomic_write import NOFOLLOW, fsync_dir
from latent_agent.errors import InputError, OutputPathError
from latent_agent.safe_paths import safe_name


@dataclass(frozen=True, slots=True)
class PackedFile:
    """One file of a packed episode.

    Attributes:
        path: Its path inside the episode's folder, ``/``-separated (``screens/step_000.png``).
        data: Its bytes.
    """

    path: str
    data: bytes


@dataclass(frozen=True, slots=True)
class PackedEpisode:
    """An episode's folder as sent: its folders (empty ones included) and its regular files.

    Attributes:
        folders: The paths of its folders, parents before children.
        files: Its files.
    """

    folders: tuple[str, ...]
    files: tuple[PackedFile, ...]


def pack_episode(folder: Path) -> PackedEpisode:
    """Pack the episode written in ``folder`` (nothing, if the runner wrote no folder).

    Raises:
        InputError: The folder holds a symbolic link or something that is neither a file nor a folder (an
            episode writes neither; none is sent).
    """
    folders: list[str] = []
    files: list[PackedFile] = []
    if not folder.is_dir():
        return PackedEpisode((), ())

    def walk(current: Path, prefix: str) -> None:
        for entry in sorted(current.iterdir()):
            relative = f"{prefix}{entry.name}"
            mode = entry.lstat().st_mode
            if stat.S_ISDIR(mode):
                folders.append(relative)
                walk(entry, f"{relative}/")
            elif stat.S_ISREG(mode):
                files.append(PackedFile(relative, entry.read_bytes()))
            else:
                raise InputError(f"{entry} is not a regular file or folder; an episode's folder holds none, and "
                                 "nothing else is sent")

    walk(folder, "")
    return PackedEpisode(tuple(folders), tuple(files))


def _parts(path: str, what: str) -> tuple[str, ...]:
    """The parts of a relative ``/``-separated path, each a plain name.

    Raises:
        InputError: The path is empty or absolute, or a part is not a plain name (``..``, a hidden name,
            a separator of another platform).
    """
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or str(pure) != path:
        raise InputError(f"{what} {path[:80]!r} is not a plain relative path")
    return tuple(safe_name(part, what) for part in pure.parts)


def unpack_episode(packed: PackedEpisode, target: Path) -> None:
    """Write ``packed`` as the new folder ``target``, whole or not at all.

    Args:
        packed: The episode as a worker sent it.
        target: The episode's folder in the sweep directory; it must not exist, its parent must.

    Raises:
        OutputPathError: ``target`` exists (a folder is never written into).
        InputError: A path of ``packed`` is not a plain relative path, or names a file twice or a file
            where a folder is; nothing is left at ``target``.
        OSError: A file cannot be written; nothing is left at ``target``.
    """
    if target.exists() or target.is_symlink():
        raise OutputPathError(f"{target} exists already; an episode's folder is written once")
    staging = target.with_name(f".{target.name}.incoming-{uuid.uuid4().hex[:8]}")
    staging.mkdir()
    try:
        for folder in packed.folders:
            parts = _parts(folder, "a folder of the episode")
            with contextlib.suppress(FileExistsError):
                os.mkdir(staging.joinpath(*parts))
        for packed_file in packed.files:
            parts = _parts(packed_file.path, "a file of the episode")
            destination = staging.joinpath(*parts)
            _make_folders(staging, parts[:-1])
            _write_new(destination, packed_file.data)
        for made in sorted({staging.joinpath(*_parts(f, "")) for f in packed.folders} | {staging}, reverse=True):
            fsync_dir(made)
        os.rename(staging, target)  # refused by the system if target appeared meanwhile and holds anything
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # the staging folder is this call's own
        raise
    fsync_dir(target.parent)


def _make_folders(root: Path, parts: tuple[str, ...]) -> None:
    """Create the folders ``root/parts...`` that are missing; refuse a file or a link where one is."""
    current = root
    for part in parts:
        current = current / part
        try:
            os.mkdir(current)
        except FileExistsError:
            if current.is_symlink() or not current.is_dir():
                raise InputError(f"the episode names {part!r} both as a file and as a folder") from None


def _write_new(path: Path, data: bytes) -> None:
    """Write ``data`` to the new file ``path``, flushed; never through a link, never over a file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)
    except FileExistsError:
        raise InputError(f"the episode sends {path.name!r} twice, or as a file where a folder is") from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
