"""Names read from files, the paths built from them, and the files written, none of which can leave their folder.

Files the project did not write itself (a sweep's ``results.jsonl`` from a copied folder, a rater's
answer file, a trajectory someone sent) name episodes, forms, raters and screenshots. A name from such a
file becomes part of a path only through this module: :func:`safe_name` accepts a plain file-name-like
identifier and nothing else, and :func:`path_inside` resolves a relative path under its root and refuses
one that ends up elsewhere (``..``, an absolute path, a symbolic link pointing out).

A copied folder can also hold symbolic links where a command writes (a sweep's ``report/`` pointing at
another folder, an ``episode.html`` pointing at another file). Writes never follow one:
:func:`refuse_links` refuses an output folder that holds a link anywhere, before anything is written,
and :func:`output_path` checks each file as it is written (no link at its name, its folders inside the
output root once resolved). :func:`read_capped` reads a file from such a folder only up to a size.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from latent_agent.errors import FileTooLargeError, InputError, OutputPathError

#: An identifier that is safe as one file name on every platform: letters, digits and ``_ . + -``,
#: starting with a letter or digit (so never ``.``, ``..`` or a hidden file), at most 128 characters.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}")


def safe_name(value: object, what: str) -> str:
    """Return ``value`` if it is a plain identifier (see :data:`NAME`), for use as one file name.

    Args:
        value: The identifier as read from a file.
        what: What it names, for the message ("form id", "rater").

    Raises:
        InputError: It is not a string matching :data:`NAME` (one line, quoting at most 60 characters).
    """
    if isinstance(value, str) and NAME.fullmatch(value) and ".." not in value:
        return value
    shown = repr(value)[:60]
    raise InputError(f"{what} {shown} is not a plain name (letters, digits and _ . + -, at most 128 characters, "
                     "starting with a letter or digit)")


def path_inside(root: Path, relative: str, what: str) -> Path:
    """``root / relative``, refused unless it stays inside ``root`` once resolved.

    Args:
        root: The folder the path must stay in.
        relative: A relative path read from a file (``/`` separated).
        what: What it names, for the message ("screenshot of step 3").

    Raises:
        InputError: ``relative`` is absolute, climbs out with ``..`` or leads out through a link.
    """
    if (not relative or "\x00" in relative or PurePosixPath(relative).is_absolute()
            or PureWindowsPath(relative).is_absolute() or PureWindowsPath(relative).drive):
        raise InputError(f"{what} {relative[:80]!r} is not a relative path inside {root}")
    path = root / relative
    if not path.resolve().is_relative_to(root.resolve()):
        raise InputError(f"{what} {relative[:80]!r} leads outside {root}")
    return path


def output_path(root: Path, path: Path, what: str) -> Path:
    """``path``, checked before it is written: not a symbolic link, and inside ``root`` once its folders are
    resolved (a folder on the way that is a link leading out is refused).

    Args:
        root: The output root the file must stay in (as the user named it, or derived from what they named).
        path: The file about to be written.
        what: What it is, for the message ("the episode page").

    Raises:
        OutputPathError: ``path`` is a link, or lies outside ``root`` through a link (one line; nothing written).
    """
    if path.is_symlink():
        raise OutputPathError(f"{what} {path} is a symbolic link; nothing is written through a link (remove it)")
    if not path.parent.resolve().is_relative_to(root.resolve()):
        raise OutputPathError(f"{what} {path} leads outside {root} through a symbolic link; nothing is written")
    return path


def first_link(root: Path) -> Path | None:
    """The first symbolic link at ``root`` or anywhere under it (not followed), or None when there is none."""
    if root.is_symlink():
        return root
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise OutputPathError(f"{folder} cannot be read ({exc.strerror or exc})") from None
        for entry in entries:
            if entry.is_symlink():
                return Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
    return None


def refuse_links(root: Path, what: str) -> None:
    """Refuse to write into ``root`` when it, or anything under it, is a symbolic link.

    A folder the project writes into again (a report, a resumed sweep, a scores folder) may come from
    someone else, with links planted where the command writes: the command would write where they point.
    Nothing the project writes is a link, so any link is refused, before anything is written.

    Args:
        root: The output folder (a missing one holds nothing).
        what: What it is, for the message ("--out", "the report folder").

    Raises:
        OutputPathError: One line naming the link.
    """
    link = first_link(root)
    if link is None:
        return
    found = "is a symbolic link" if link == root else f"holds a symbolic link, {link.relative_to(root).as_posix()!r}"
    raise OutputPathError(f"{what} {root} {found}; nothing is written through a link (remove it, or choose "
                          "another folder)")


def read_capped(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path``, refused when it holds more than ``limit`` bytes (checked before reading).

    Raises:
        FileTooLargeError: The file is larger than ``limit`` (one line with both sizes).
        InputError: It grew while it was read.
        OSError: It cannot be read.
    """
    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise FileTooLargeError(f"{what} {path} is {size / 1e6:.1f} MB, more than the {limit / 1e6:.0f} MB "
                                    "a recorded file may hold; it is not read")
        # Its size as found, and no more: read(n) sets n bytes aside before it reads any.
        data = fh.read(size)
        if fh.read(1):
            raise InputError(f"{what} {path} grew while it was read; it is not read")
    return data
