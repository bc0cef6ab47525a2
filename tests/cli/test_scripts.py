"""scripts/demo and scripts/check install only when missing or changed; packaging metadata; CI entry point."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/usr/bin/env bash
# Stands in for the venv's python: logs pip calls, answers the version query.
echo "$*" >> "$(dirname "$0")/../calls.log"
case "$*" in
  "-c import sys; print(sys.version)") echo "3.11.7 (fake)";;
  *"pip install"*) touch "$(dirname "$0")/latent-agent"; chmod +x "$(dirname "$0")/latent-agent";;
esac
"""


def _ensure(project: Path, venv: Path, *extras: str) -> list[str]:
    """Run ``ensure_installed EXTRAS...`` from scripts/venv.sh in ``project``; the pip calls it made."""
    log = venv / "calls.log"
    log.unlink(missing_ok=True)
    subprocess.run(["bash", "-c", f'source "{ROOT / "scripts" / "venv.sh"}" && ensure_installed "$@"', "-", *extras],
                   cwd=project, env={"PATH": "/usr/bin:/bin", "LATENT_AGENT_VENV": str(venv)}, check=True,
                   capture_output=True, text=True)
    return [line for line in log.read_text().splitlines() if "pip" in line] if log.exists() else []


def test_install_only_when_missing_or_changed(tmp_path: Path) -> None:
    project, venv = tmp_path / "project", tmp_path / "venv"
    project.mkdir()
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(FAKE_PYTHON)
    (venv / "bin" / "python").chmod(0o755)
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')

    assert _ensure(project, venv, "llm", "all,test") == ["-m pip install --quiet -e .[llm]"]
    assert _ensure(project, venv, "llm", "all,test") == []  # the second run installs nothing
    assert _ensure(project, venv, "all,test") == ["-m pip install --quiet -e .[all,test]"]
    (project / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2"\n')
    assert _ensure(project, venv, "llm", "all,test") == ["-m pip install --quiet -e .[llm]"]  # changed: again
    assert _ensure(project, venv, "all,test") == ["-m pip install --quiet -e .[all,test]"]
    (venv / ".latent-agent-installed-llm").unlink()
    assert _ensure(project, venv, "llm", "all,test") == []  # the superset install covers the demo's


def test_scripts_use_the_stamp_and_ci_runs_exactly_check() -> None:
    for name in ("demo", "check"):
        text = (ROOT / "scripts" / name).read_text()
        assert "source scripts/venv.sh" in text and "ensure_installed" in text and "pip install" not in text
    check = (ROOT / "scripts" / "check").read_text()
    assert check.index("installing it with apt-get") < check.index("apt-get install")  # says so first
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == "./scripts/check"


def test_license_is_an_spdx_expression_with_its_file() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    assert project["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().split()[:3] == ["Apache", "License", "Version"]
    floor = next(r for r in project["build-system"]["requires"] if r.startswith("setuptools"))
    assert floor == "setuptools>=77"  # the first setuptools that reads the SPDX string without a deprecation banner
