"""What the README says of the exit status is what the code does (issue 33 item 6)."""

from __future__ import annotations

import re

from latent_agent.agent.trajectory import StopReason
from latent_agent.exit_codes import ExitCode, for_stop_reason
from tests.cli.helpers import ROOT


def test_the_readme_names_every_stop_reason_of_status_0() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| 0 |"))
    named = set(re.findall(r"`([a-z_]+)`", row)) - {"run"}
    zero = {r.value for r in StopReason if for_stop_reason(r.value) == ExitCode.OK}
    assert named == zero
