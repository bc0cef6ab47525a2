"""`./scripts/demo --all` installs every extra the README's commands use before its run (issue 33 item 1)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.cli.test_scripts import FAKE_PYTHON, ROOT


def _demo(project: Path, venv: Path, *args: str) -> list[str]:
    """Run scripts/demo in a copy of its scripts whose venv's python only logs; the pip calls it made."""
    log = venv / "calls.log"
    log.unlink(missing_ok=True)
    subprocess.run(["bash", str(project / "scripts" / "demo"), *args], cwd=project,
                   env={"PATH": "/usr/bin:/bin", "LATENT_AGENT_VENV": str(venv)}, capture_output=True, text=True,
                   check=False)
    return [line for line in log.read_text().splitlines() if "pip install" in line] if log.exists() else []


def test_demo_all_installs_every_extra_and_plain_demo_only_its_own(tmp_path: Path) -> None:
    project, venv = tmp_path / "project", tmp_path / "venv"
    (project / "scripts").mkdir(parents=True)
    for name in ("demo", "venv.sh"):
        shutil.copy(ROOT / "scripts" / name, project / "scripts" / name)
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(FAKE_PYTHON)
    (venv / "bin" / "python").chmod(0o755)
    assert _demo(project, venv) == ["-m pip install --quiet -e .[llm]"]
    assert _demo(project, venv, "--all") == ["-m pip install --quiet -e .[all,local,model]"]
    # Once every extra is in, the plain demo installs nothing more (all covers llm).
    (venv / ".latent-agent-installed-llm").unlink()
    assert _demo(project, venv) == []
    assert "--all" in (ROOT / "README.md").read_text(encoding="utf-8")
