"""The files a recorded step names (its screen dump and screenshot), read only from inside its episode.

A trajectory is a file like any other: one copied from someone else can name ``/home/me/.ssh/id_rsa`` or
``../../other/screen.png`` as a step's screenshot. Every reader of a step's files (the episode page,
rater forms, memory building) gets the path here, which refuses a name that is absolute or leads out of
the episode's folder (a symbolic link included), so nothing from elsewhere on the disk is embedded, sent
to raters or remembered.
"""

from __future__ import annotations

from pathlib import Path

from latent_agent.agent.trajectory import StepRecord
from latent_agent.errors import InputError
from latent_agent.safe_paths import path_inside


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
