"""The files a recorded step names (its screen dump and screenshot), read only from inside its episode.

A trajectory is a file like any other: one copied from someone else can name ``/home/me/.ssh/id_rsa`` or
``../../other/screen.png`` as a step's screenshot. Every reader of a step's files (the episode page,
rater forms, memory building) gets the path here, which refuses a name that is absolute or leads out of
the episode's folder (a symbolic link included), so nothing from elsewhere on the disk is embedded, sent
to raters or remembered.

A copied episode can also be huge: a 200 MB label in a dump took memory building 30 s and 850 MB before
the parser cut it to its 4,000 characters. What is built from copied episodes (a memory, demonstrations)
reads a trajectory only up to :data:`MAX_TRAJECTORY_BYTES` and a dump only up to :data:`MAX_SCREEN_BYTES`
(:func:`check_sizes`, :func:`read_screen`); the labels in a dump are then cut as a run's are.
"""

from __future__ import annotations

from pathlib import Path

from latent_agent.agent.trajectory import TRAJECTORY_FILE, StepRecord, Trajectory
from latent_agent.errors import FileTooLargeError, InputError
from latent_agent.safe_paths import path_inside, read_capped

#: The largest trajectory file read from a copied episode: a 1,000-step episode writes 17 MB.
MAX_TRAJECTORY_BYTES = 64_000_000
#: The largest screen dump read from a copied episode: the parser's 100,000 nodes in a few hundred bytes each.
MAX_SCREEN_BYTES = 32_000_000


def screen_path(directory: Path, step: StepRecord) -> Path:
    """The file of the screen dump ``step`` was decided on, inside the episode ``directory``.

    Raises:
        InputError: The trajectory names a file outside the episode.
    """
    return path_inside(directory, step.screen_file, f"step {step.index}: screen dump")


def screenshot_path(directory: Path, step: StepRecord) -> Path | None:
    """The file of ``step``'s screenshot inside the episode ``directory``, or None if it has none.

    Raises:
        InputError: The trajectory names a file outside the episode.
    """
    if step.screenshot_file is None:
        return None
    return path_inside(directory, step.screenshot_file, f"step {step.index}: screenshot")


def saved_screenshots(directory: Path) -> list[Path]:
    """The screenshots in the episode's ``screens/`` folder (where the writer puts them), links out left out."""
    inside = []
    for path in (directory / "screens").glob("*.png"):
        try:
            inside.append(path_inside(directory, path.relative_to(directory).as_posix(), "screenshot"))
        except InputError:
            continue  # a link to elsewhere: never read
    return inside


def check_trajectory_size(directory: Path) -> None:
    """Refuse an episode whose trajectory file is larger than :data:`MAX_TRAJECTORY_BYTES` (before reading it).

    Raises:
        FileTooLargeError: It is larger (one line with both sizes). A missing file is left to the reader.
    """
    path = directory / TRAJECTORY_FILE
    try:
        size = path.stat().st_size
    except OSError:
        return
    if size > MAX_TRAJECTORY_BYTES:
        raise FileTooLargeError(f"trajectory {path} is {size / 1e6:.1f} MB, more than the "
                         f"{MAX_TRAJECTORY_BYTES / 1e6:.0f} MB a recorded episode may hold; it is not read")


def check_sizes(trajectory: Trajectory) -> None:
    """Refuse an episode whose steps name a screen dump outside it or larger than :data:`MAX_SCREEN_BYTES`.

    Raises:
        InputError: The first such dump (one line): outside the episode, or larger (:class:`FileTooLargeError`).
    """
    for step in trajectory.steps:
        path = screen_path(trajectory.directory, step)
        try:
            size = path.stat().st_size
        except OSError:
            continue  # a missing dump is its reader's to report
        if size > MAX_SCREEN_BYTES:
            raise FileTooLargeError(f"step {step.index}: screen dump {path} is {size / 1e6:.1f} MB, more than the "
                             f"{MAX_SCREEN_BYTES / 1e6:.0f} MB a recorded screen may hold; it is not read")


def read_screen(directory: Path, step: StepRecord) -> bytes:
    """The bytes of ``step``'s screen dump, inside the episode and at most :data:`MAX_SCREEN_BYTES`.

    Raises:
        InputError: The dump is outside the episode, or too large (:class:`FileTooLargeError`).
        OSError: It cannot be read.
    """
    return read_capped(screen_path(directory, step), MAX_SCREEN_BYTES, f"step {step.index}: screen dump")
