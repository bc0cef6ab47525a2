"""One overwrite policy for every path a command writes.

Every output (``run --out``, ``sweep --out``, ``report --out``, ``annotate export|import --out``,
``show -o``, ``--llm-record``) is checked here before the command does any work:

* a path that does not exist, or an empty directory, is used;
* a path that holds what the same kind of command wrote (recognized by a file only that kind
  writes, or by the first bytes of a file) is handled by the kind's :class:`Reuse` rule: a
  derived output (a report, an episode page) is written again, a collection (a cassette, a
  scores directory) is added to, and data (an episode, a sweep, forms) is refused;
* anything else - a file where a directory is wanted, a folder holding other files, a text
  file named as a page or a cassette - is refused, in one line naming what is there;
* a symbolic link is refused, as the output itself or anywhere inside a folder that is written into
  again (a copied sweep's ``report/episodes`` pointing elsewhere): nothing is ever written through one
  (:func:`latent_agent.safe_paths.refuse_links`);
* ``--force`` removes what is there first, except a directory a file was asked for, the
  working directory or one of its parents, the home directory, and anything that is or holds
  one of the command's inputs.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from latent_agent.errors import OutputPathError
from latent_agent.safe_paths import first_link

#: How many bytes of an existing file are read to recognize it.
_HEAD_BYTES = 4096


class Reuse(StrEnum):
    """What a command does with an output it wrote itself before."""

    REFUSE = "refuse"  # data (an episode, a sweep, forms): refused unless --force
    REPLACE = "replace"  # derived (a report, a page): written again in place
    ADD = "add"  # a collection (a cassette, a scores directory): added to


@dataclass(frozen=True, slots=True)
class OutputKind:
    """A kind of output and how to recognize it.

    Attributes:
        what: The output in words ("an episode", "a report").
        noun: The same without an article ("episode"), for "holds no ...".
        option: The option that names it, for messages (``--out``, ``-o``).
        reuse: What to do with one written before.
        directory: Whether the output is a directory (else a file).
        signature: Directories: names of which any one, present, marks this kind.
        head: Files: text that one of this kind holds within its first bytes (all of them).
    """

    what: str
    noun: str
    option: str
    reuse: Reuse
    directory: bool = True
    signature: tuple[str, ...] = ()
    head: tuple[bytes, ...] = ()


EPISODE = OutputKind("an episode", "episode", "--out", Reuse.REFUSE, signature=("trajectory.jsonl",))
SWEEP = OutputKind("a sweep", "sweep", "--out", Reuse.REFUSE, signature=("manifest.json", "results.jsonl"))
REPORT = OutputKind("a report", "report", "--out", Reuse.REPLACE, signature=("report.md", "report.html"))
FORMS = OutputKind("rating forms", "forms", "--out", Reuse.REFUSE, signature=("forms.json",))
SCORES = OutputKind("imported answers", "answers", "--out", Reuse.ADD, signature=("answers", "scores.json"))
EPISODE_PAGE = OutputKind("an episode page", "episode page", "-o", Reuse.REPLACE, directory=False,
                          head=(b"<!DOCTYPE html>", b"<title>Episode "))
CASSETTE = OutputKind("an LLM cassette", "cassette", "--llm-record", Reuse.ADD, directory=False,
                      head=(b'{"schema": "latent-agent/llm-cassette"',))


def holds_kind(path: Path, kind: OutputKind) -> bool:
    """Whether ``path`` holds an output of ``kind`` (written by the same kind of command)."""
    if kind.directory:
        return path.is_dir() and any((path / name).exists() for name in kind.signature)
    if not path.is_file():
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    return all(marker in head for marker in kind.head)


def claim(path: Path, kind: OutputKind, *, force: bool = False, inputs: Sequence[Path] = ()) -> Path:
    """Check (and with ``force`` clear) ``path`` for an output of ``kind``, before any work.

    Args:
        path: The output path as given.
        kind: What will be written there.
        force: Remove what is there if the policy would refuse it.
        inputs: Paths the command reads; ``force`` never removes them or a folder holding them.

    Returns:
        ``path``.

    Raises:
        OutputPathError: The path is refused (one line: what is there and what to do).
    """
    reason = _refusal(path, kind)
    if reason is None:
        return path
    if not force:
        raise OutputPathError(f"{kind.option} {path} {reason}; choose another path or pass --force to replace it")
    if not kind.directory and path.is_dir():
        raise OutputPathError(f"{kind.option} {path} is a directory; name a file")
    _remove(path, kind, inputs)
    return path


def _refusal(path: Path, kind: OutputKind) -> str | None:
    """Why ``path`` cannot take ``kind`` as it is, or None when it can."""
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink():
        return "is a symbolic link; outputs are never written through a link"
    if kind.directory:
        if not path.is_dir():
            return f"is a file, not a directory for {kind.what}"
        if holds_kind(path, kind):
            if kind.reuse is Reuse.REFUSE:
                return f"already holds {kind.what}"
            link = first_link(path)  # written into again: a link planted inside would take the writes elsewhere
            return (None if link is None else
                    f"holds a symbolic link, {link.relative_to(path).as_posix()!r}; outputs are never written "
                    "through a link")
        try:
            found = sorted(p.name for p in path.iterdir())
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if not found:
            return None
        shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        return f"is not empty and holds no {kind.noun} (found {shown})"
    if path.is_dir():
        return "is a directory; name a file"
    try:
        empty = path.stat().st_size == 0
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if empty:
        return None
    if holds_kind(path, kind):
        return f"already holds {kind.what}" if kind.reuse is Reuse.REFUSE else None
    return f"exists and is not {kind.what}"


def _remove(path: Path, kind: OutputKind, inputs: Sequence[Path]) -> None:
    if path.is_symlink():  # the link goes, never what it points to
        try:
            path.unlink()
        except OSError as exc:
            raise OutputPathError(f"{kind.option} {path}: cannot remove it ({exc.strerror or exc})") from None
        return
    target = path.resolve()
    protected = [Path.cwd().resolve(), Path.home().resolve()]
    if any(target == p or target in p.parents for p in protected) or target == Path(target.anchor):
        raise OutputPathError(f"{kind.option} {path} is the working or home directory (or holds it); "
                              "--force does not remove it")
    for source in inputs:
        resolved = source.resolve()
        if resolved == target or target in resolved.parents:
            raise OutputPathError(f"{kind.option} {path} holds the input {source}; --force does not remove it")
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError as exc:
        raise OutputPathError(f"{kind.option} {path}: cannot remove it ({exc.strerror or exc})") from None
