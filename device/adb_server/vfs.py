"""A small in-memory file system standing in for the phone's storage.

Only what the adb services need: regular files and directories with modes and
modification times, absolute POSIX paths, and the directories a stock phone has
(``/sdcard``, ``/data/local/tmp``, ...). ``/sdcard`` is a directory of its own
here rather than a symlink; nothing the backends do depends on the difference.
"""

from __future__ import annotations

import posixpath
import stat
import threading
import time
from dataclasses import dataclass, field

#: Directories every simulated phone starts with.
DEFAULT_DIRS = ("/data", "/data/local", "/data/local/tmp", "/sdcard", "/sdcard/Download", "/sdcard/Pictures",
                "/storage", "/storage/emulated", "/storage/emulated/0", "/system", "/system/bin", "/dev",
                "/proc", "/vendor")

FILE_MODE = stat.S_IFREG | 0o660
DIR_MODE = stat.S_IFDIR | 0o771


class VfsError(Exception):
    """A file operation failed; ``str()`` is the message a shell would print after the path."""


@dataclass(slots=True)
class _Entry:
    mode: int
    mtime: int
    data: bytearray = field(default_factory=bytearray)


@dataclass(frozen=True, slots=True)
class FileStat:
    """What ``stat`` reports about a path.

    Attributes:
        mode: ``st_mode`` bits (type and permissions).
        size: Size in bytes (0 for directories).
        mtime: Modification time in whole seconds since the epoch.
    """

    mode: int
    size: int
    mtime: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


def normalize(path: str, cwd: str = "/") -> str:
    """Absolute, normalized form of ``path`` relative to ``cwd``."""
    if not path:
        raise VfsError("No such file or directory")
    joined = posixpath.join(cwd, path)
    norm = posixpath.normpath(joined)
    # normpath keeps a leading "//"; POSIX allows it, the phone does not care.
    return "/" + norm.lstrip("/")


class VirtualFS:
    """Thread-safe tree of files and directories keyed by absolute path."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        now = int(time.time())
        self._entries: dict[str, _Entry] = {"/": _Entry(DIR_MODE, now)}
        for d in DEFAULT_DIRS:
            self._entries[d] = _Entry(DIR_MODE, now)

    def _parent_dir(self, path: str) -> None:
        parent = self._entries.get(posixpath.dirname(path))
        if parent is None:
            raise VfsError("No such file or directory")
        if not stat.S_ISDIR(parent.mode):
            raise VfsError("Not a directory")

    def stat(self, path: str) -> FileStat | None:
        """Stat ``path``; ``None`` when it does not exist."""
        with self._lock:
            e = self._entries.get(normalize(path))
            return None if e is None else FileStat(e.mode, len(e.data), e.mtime)

    def read(self, path: str) -> bytes:
        """Contents of a regular file.

        Raises:
            VfsError: If it does not exist or is a directory.
        """
        with self._lock:
            e = self._entries.get(normalize(path))
            if e is None:
                raise VfsError("No such file or directory")
            if stat.S_ISDIR(e.mode):
                raise VfsError("Is a directory")
            return bytes(e.data)

    def write(self, path: str, data: bytes, *, append: bool = False, mode: int | None = None,
              mtime: int | None = None) -> None:
        """Create or replace (or append to) a regular file.

        Raises:
            VfsError: If the parent directory is missing or ``path`` is a directory.
        """
        p = normalize(path)
        with self._lock:
            self._parent_dir(p)
            e = self._entries.get(p)
            if e is not None and stat.S_ISDIR(e.mode):
                raise VfsError("Is a directory")
            when = int(time.time()) if mtime is None else mtime
            perm = (mode & 0o7777) if mode else 0o660
            if e is None or not append:
                self._entries[p] = _Entry(stat.S_IFREG | perm, when, bytearray(data))
            else:
                e.data.extend(data)
                e.mtime = when

    def mkdir(self, path: str, *, parents: bool = False) -> None:
        """Create a directory.

        Raises:
            VfsError: If it exists (unless ``parents``) or its parent is missing.
        """
        p = normalize(path)
        with self._lock:
            if p in self._entries:
                if parents and stat.S_ISDIR(self._entries[p].mode):
                    return
                raise VfsError("File exists")
            if parents:
                missing = []
                cur = p
                while cur not in self._entries:
                    missing.append(cur)
                    cur = posixpath.dirname(cur)
                if not stat.S_ISDIR(self._entries[cur].mode):
                    raise VfsError("Not a directory")
                for d in reversed(missing):
                    self._entries[d] = _Entry(DIR_MODE, int(time.time()))
                return
            self._parent_dir(p)
            self._entries[p] = _Entry(DIR_MODE, int(time.time()))

    def remove(self, path: str, *, recursive: bool = False) -> None:
        """Delete a file, or a directory with ``recursive``.

        Raises:
            VfsError: If it does not exist, or is a directory without ``recursive``.
        """
        p = normalize(path)
        with self._lock:
            e = self._entries.get(p)
            if e is None:
                raise VfsError("No such file or directory")
            if p == "/":
                raise VfsError("Device or resource busy")
            if stat.S_ISDIR(e.mode):
                if not recursive:
                    raise VfsError("Is a directory")
                prefix = p + "/"
                for k in [k for k in self._entries if k.startswith(prefix)]:
                    del self._entries[k]
            del self._entries[p]

    def listdir(self, path: str) -> list[tuple[str, FileStat]]:
        """Names and stats of a directory's entries, sorted by name.

        Raises:
            VfsError: If ``path`` is missing or not a directory.
        """
        p = normalize(path)
        with self._lock:
            e = self._entries.get(p)
            if e is None:
                raise VfsError("No such file or directory")
            if not stat.S_ISDIR(e.mode):
                raise VfsError("Not a directory")
            prefix = "/" if p == "/" else p + "/"
            out = []
            for k, v in self._entries.items():
                if k != p and k.startswith(prefix) and "/" not in k[len(prefix):]:
                    out.append((k[len(prefix):], FileStat(v.mode, len(v.data), v.mtime)))
            return sorted(out)

    def copy_entries(self) -> dict[str, tuple[int, int, bytes]]:
        """Every path with its mode, time and contents (what an emulator snapshot keeps of the disk)."""
        with self._lock:
            return {k: (v.mode, v.mtime, bytes(v.data)) for k, v in self._entries.items()}

    def restore_entries(self, entries: dict[str, tuple[int, int, bytes]]) -> None:
        """Replace every path with ``entries`` (from :meth:`copy_entries`)."""
        with self._lock:
            self._entries = {k: _Entry(mode, mtime, bytearray(data)) for k, (mode, mtime, data) in entries.items()}
