"""docs/first-real-run.md is copy-paste ready: its ``latent-agent`` lines are commands the parser takes."""

from __future__ import annotations

import re
import shlex

import pytest

from tests.cli.helpers import ROOT

DOC = ROOT / "docs" / "first-real-run.md"


def _doc_commands() -> list[str]:
    """Every ``latent-agent ...`` command of the page's bash blocks, continuation lines joined."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            command = line.split("  #")[0].split(" #")[0].strip().removesuffix("&").strip()
            if command.startswith("latent-agent "):
                commands.append(command)
    return commands


def test_every_command_of_the_walkthrough_is_taken_by_the_command_line() -> None:
    from latent_agent.cli.main import build_parser

    commands = _doc_commands()
    # From the phone to the first run: describe, ping, run, show, the dry run, the rehearsal.
    for wanted in ("latent-agent describe window.xml", "latent-agent llm ping --llm gemini:gemini-2.5-flash",
                   "latent-agent show runs/first"):
        assert wanted in commands
    assert any(c.startswith("latent-agent run ") and "--device adb:SERIAL" in c for c in commands)
    assert any(c.startswith("latent-agent sweep ") and c.endswith("--dry-run") for c in commands)
    parser = build_parser()
    for command in commands:
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit:
            pytest.fail(f"docs/first-real-run.md's {command!r} is refused")


def test_the_walkthrough_starts_at_the_emulator_and_adb_devices_and_the_readme_links_it() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "emulator -avd NAME" in text and "\nadb devices\n" in text
    assert "(docs/first-real-run.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
