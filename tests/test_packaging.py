"""The distribution: one import root, ``latent_agent``, holding every module and data file of the repository's
top-level folders (the folders are linked into the root package; the build follows the links)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.test_layers import FOLDERS, PACKAGE, ROOT


def _tracked_package_files() -> set[str]:
    listed = subprocess.run(["git", "ls-files", *FOLDERS, PACKAGE], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    out = set()
    for name in listed:
        if (ROOT / name).is_symlink() or "/__pycache__/" in name:
            continue
        out.add(name if name.startswith(f"{PACKAGE}/") else f"{PACKAGE}/{name}")
    return out


def test_the_wheel_holds_one_import_root_and_every_file(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path),
                            str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {PACKAGE}
    missing = sorted(_tracked_package_files() - names)
    assert not missing, f"not in the wheel: {missing[:10]}"


def test_each_top_level_folder_is_linked_into_the_root_package() -> None:
    for folder in FOLDERS:
        link = ROOT / PACKAGE / folder
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), folder
