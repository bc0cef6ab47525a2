"""scripts/demo and scripts/check install only when missing or changed; packaging metadata; CI entry point."""

from __future__ import annotations

import os
import subprocess
import sys
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


def _venv_standing_in(folder: Path) -> Path:
    """A venv for the scripts that runs this interpreter, recorded as installed (so nothing is installed)."""
    bin_ = folder / "bin"
    bin_.mkdir(parents=True)
    for name, command in (("python", f'exec "{sys.executable}" "$@"'),
                          ("latent-agent", f'exec "{sys.executable}" -m latent_agent.cli "$@"')):
        (bin_ / name).write_text(f"#!/bin/sh\n{command}\n")
        (bin_ / name).chmod(0o755)
    stamp = subprocess.run(["bash", "-c", '{ cat pyproject.toml; "$1" -c "import sys; print(sys.version)"; } '
                            "| sha256sum | cut -d' ' -f1", "-", str(bin_ / "python")],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout
    (folder / ".latent-agent-installed-llm").write_text(stamp)
    return folder


def test_demo_follows_the_users_out_and_says_how_to_type_the_command(tmp_path: Path) -> None:
    """./scripts/demo --out DIR, started from another folder: the episode and its page are in DIR there."""
    venv = _venv_standing_in(tmp_path / "venv")
    user = tmp_path / "elsewhere"
    user.mkdir()
    env = {**os.environ, "LATENT_AGENT_VENV": str(venv)}
    done = subprocess.run([str(ROOT / "scripts" / "demo"), "--out", "mine", "--max-steps", "1"], cwd=user, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert (user / "mine" / "trajectory.jsonl").is_file() and (user / "mine" / "episode.html").is_file()
    lines = done.stdout.splitlines()
    assert "mine/episode.html" in lines  # show's answer, from where the user is
    assert lines[-2:] == [f"latent-agent is {venv}/bin/latent-agent; to type latent-agent as the README does, "
                          "run once in this shell:", f"  source {venv}/bin/activate"]
    # The view line of the run's summary is a command that works as written, from there.
    view = next(line for line in lines if line.strip().startswith("view"))
    command = view.split(None, 1)[1].strip()
    assert command.endswith("latent-agent show mine"), command
    shown = subprocess.run(command, shell=True, cwd=user, env=env, capture_output=True, text=True, check=False)
    assert shown.returncode == 0 and shown.stdout.strip() == "mine/episode.html", shown.stderr
