"""Names read from files, and the paths built from them, that cannot leave their folder.

Files the project did not write itself (a sweep's ``results.jsonl`` from a copied folder, a rater's
answer file, a trajectory someone sent) name episodes, forms, raters and screenshots. A name from such a
file becomes part of a path only through this module: :func:`safe_name` accepts a plain file-name-like
identifier and nothing else, and :func:`path_inside` resolves a relative path under its root and refuses
one that ends up elsewhere (``..``, an absolute path, a symbolic link pointing out).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from latent_agent.errors import InputError

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
