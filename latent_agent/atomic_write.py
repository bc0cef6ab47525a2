"""Writing a file so that a kill leaves either the old file (or none) or the whole new one.

A command killed half-way through a plain write leaves a torn file that the next run then trusts
(a report folder without its report, a scores folder with half an answer file). Every such file is
written to a temporary file in the same folder, flushed to disk, and renamed over its name, which the
file system does in one step; the folder is flushed too, so the rename itself survives a power cut.

Neither way of writing follows a symbolic link at the file's name (a copied folder can plant one where
a command writes): :func:`write_atomic` refuses a name that is a link, and :func:`open_append` opens
with ``O_NOFOLLOW``, which fails on one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from latent_agent.errors import OutputPathError

#: Makes ``os.open`` fail on a symbolic link at the name (0 where the platform has no such flag: Windows,
#: whose links need privileges to create).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # Windows cannot open a folder; its renames are durable once done
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: str | bytes, *, exclusive: bool = False) -> None:
    """Write ``data`` to ``path`` whole or not at all.

    Args:
        path: The file to write; its folder must exist.
        data: Text (written as UTF-8) or bytes.
        exclusive: Refuse to replace an existing ``path`` (the new file is linked into place, which
            fails if the name is taken, so two writers cannot both succeed).

    Raises:
        FileExistsError: ``exclusive`` and ``path`` exists; nothing was written.
        OutputPathError: ``path`` is a symbolic link (the rename would replace the link, not write where it
            points, but a link where an output goes was planted); nothing was written.
        OSError: The file cannot be written; nothing was written.
    """
    if path.is_symlink():
        raise OutputPathError(f"{path} is a symbolic link; nothing is written through a link (remove it)")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    mode = _mode_for(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        # mkstemp makes the file private (0600); the file keeps the mode a plain write would give it.
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            _link_new(tmp, path)
        else:
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    fsync_dir(path.parent)


def _mode_for(path: Path) -> int:
    """The permissions a plain ``open(path, "w")`` would leave: the existing file's, else 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux), else set and restored
    (``os.umask`` only answers by setting one: a file another thread creates in that instant is 0600 at worst)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o077)
    os.umask(current)
    return current


def _link_new(tmp: Path, path: Path) -> None:
    """Give ``tmp`` the name ``path`` unless that name is taken."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        # A file system without hard links: check, then rename (a race only between two importers).
        if path.exists():
            raise FileExistsError(path) from None
        os.replace(tmp, path)


def open_append(path: Path) -> int:
    """A file descriptor appending to ``path`` (created if missing), never through a symbolic link.

    Raises:
        OutputPathError: ``path`` is a symbolic link; nothing was opened.
        OSError: It cannot be opened.
    """
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o644)
    except OSError:
        if path.is_symlink():  # ELOOP on Linux, EMLINK or EFTYPE elsewhere
            raise OutputPathError(f"{path} is a symbolic link; nothing is written through a link (remove it)") from None
        raise
