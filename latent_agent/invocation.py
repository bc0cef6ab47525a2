"""How the user reaches this installation: the command to type, and the command that adds an extra.

Every command the project prints for the user to run (``latent-agent show DIR``, the resume command
of a sweep, the install command of a missing extra) is spelled so that it works as written where the
user is: a checkout set up by ``./scripts/demo`` has its command in ``.venv/bin``, which is not on
``PATH`` until the venv is activated, and its package is on no index, so ``pip install
'latent-agent[ocr]'`` would fail there.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import latent_agent

#: The distribution's name, and its console script's.
COMMAND = "latent-agent"


def _shown(path: Path) -> str:
    """``path`` as short as it can be written from the working directory (relative below it)."""
    try:
        relative = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    return str(relative) if relative.parts else "."


def _on_path(executable: Path, name: str) -> bool:
    """Whether typing ``name`` runs ``executable`` (the same file, found on ``PATH``)."""
    found = shutil.which(name)
    try:
        return found is not None and Path(found).resolve() == executable.resolve()
    except OSError:
        return False


def _script_beside_python(name: str) -> Path | None:
    """The console script or tool ``name`` installed beside the running interpreter, if there is one."""
    # Not resolved: a venv's python is a link to the base interpreter, and its scripts sit beside the link.
    candidate = Path(sys.executable).parent / name
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def command_name() -> str:
    """The command that runs this installation's ``latent-agent``, as the user can type it now.

    ``latent-agent`` when that name on ``PATH`` is this installation's command (an activated venv, or
    an installed package); else the path of the command beside the running interpreter (such as
    ``.venv/bin/latent-agent`` from a checkout's root); else ``python -m latent_agent.cli``.
    """
    script = _script_beside_python(COMMAND)
    if script is not None:
        return COMMAND if _on_path(script, COMMAND) else shlex.quote(_shown(script.absolute()))
    if shutil.which(COMMAND) is not None and Path(sys.argv[0]).name == COMMAND:
        return COMMAND  # an installation whose scripts live elsewhere (pipx, a user install)
    return f"{shlex.quote(_shown(Path(sys.executable).absolute()))} -m latent_agent.cli"


def checkout_root() -> Path | None:
    """The source checkout this package is imported from (an editable install), or None when installed.

    A checkout holds ``pyproject.toml`` beside the ``latent_agent`` folder; an installed wheel does not.
    """
    root = Path(latent_agent.__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() else None


def install_command(extra: str) -> str:
    """The command that installs the optional ``extra`` into this environment, where the user is.

    In a checkout: ``.venv/bin/pip install -e '.[ocr]'`` (the project is on no index, so the checkout is
    installed again with the extra); an installed package: ``pip install 'latent-agent[ocr]'``. ``pip``
    is the running environment's own, written as a path unless it is the one on ``PATH``.
    """
    pip = _script_beside_python("pip")
    if pip is None:
        installer = f"{shlex.quote(_shown(Path(sys.executable).absolute()))} -m pip"
    else:
        installer = "pip" if _on_path(pip, "pip") else shlex.quote(_shown(pip.absolute()))
    root = checkout_root()
    if root is None:
        return f"{installer} install {shlex.quote(f'{COMMAND}[{extra}]')}"
    return f"{installer} install -e {shlex.quote(f'{_shown(root)}[{extra}]')}"
