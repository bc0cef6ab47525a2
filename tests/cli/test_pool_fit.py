"""A sweep whose devices cannot run its suite's tasks is refused in one line, before anything is written
(issue 33 item 2, issue 30's acceptance): both ways round."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.cli import main


@pytest.mark.parametrize(("suite", "tasks", "devices", "expected"), [
    ("sim", "settings_r*", "miniwob*2", "suite sim's tasks are goals for a phone (e.g. --devices sim*4); miniwob "
     "hosts judged task pages and runs only those"),
    ("miniwob", "click-button", "sim*2", "suite miniwob's tasks are pages that a device hosting judged tasks loads"),
])
def test_devices_that_cannot_run_the_suite_are_refused(suite: str, tasks: str, devices: str, expected: str,
                                                       tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(["sweep", "--suite", suite, "--tasks", tasks, "--methods", "zero-shot+", "--devices", devices,
                 "--llm", "demo", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and expected in err, err
    assert not out.exists()
