"""The MiniWoB++ task pages: found in the installed ``miniwob`` distribution, named by their file.

Only the distribution's ``html/`` folder is used (its Python environment and Selenium are not): it is located
without importing ``miniwob`` (whose ``__init__`` imports gymnasium), through the import system's finder.
``LATENT_AGENT_MINIWOB_HTML`` names another such folder (a checkout of MiniWoB++'s ``miniwob/html``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

from rapidfuzz import process

from latent_agent.errors import ConfigError
from latent_agent.extras import error_for

#: The folder of the task pages inside the distribution's ``html/``.
TASKS_FOLDER = "miniwob"
#: Close matches named when a task is unknown.
CLOSE_MATCHES = 3
#: Fuzzy score (0-100, rapidfuzz WRatio) a task name must reach to be offered as a close match.
CLOSE_MATCH_SCORE = 70.0
#: Names a folder of task pages to use instead of the installed distribution's.
HTML_ENV = "LATENT_AGENT_MINIWOB_HTML"


@functools.cache
def html_root() -> Path:
    """The distribution's ``html/`` folder (or the one :data:`HTML_ENV` names).

    Raises:
        ConfigError: If ``miniwob`` is not installed (the message says how to install it), or the folder
            named is not one of task pages.
    """
    named = os.environ.get(HTML_ENV)
    if named:
        root = Path(named).expanduser().resolve()
        if not (root / TASKS_FOLDER).is_dir():
            raise ConfigError(f"{HTML_ENV}={named} holds no {TASKS_FOLDER}/ folder of MiniWoB++ task pages")
        return root
    spec = importlib.util.find_spec("miniwob")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    for location in locations:
        root = Path(location) / "html"
        if (root / "core" / "core.js").is_file():
            return root
    raise error_for("miniwob", ["miniwob"], "MiniWoB++'s task pages")


@functools.cache
def task_names() -> tuple[str, ...]:
    """Every task page the distribution ships, sorted (``click-button``, ...)."""
    return tuple(sorted(p.stem for p in (html_root() / TASKS_FOLDER).glob("*.html")))


def task_page(task: str) -> Path:
    """The page of ``task``.

    Raises:
        ConfigError: For an unknown task; the message names close matches.
    """
    if task in task_names():
        return html_root() / TASKS_FOLDER / f"{task}.html"

    close = [name for name, _, _ in process.extract(task, task_names(), limit=CLOSE_MATCHES,
                                                     score_cutoff=CLOSE_MATCH_SCORE)]
    hint = f"; close matches: {', '.join(close)}" if close else f"; {len(task_names())} tasks, e.g. click-button"
    raise ConfigError(f"unknown MiniWoB++ task {task!r}{hint}")
