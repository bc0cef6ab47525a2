"""docs/python-api.md's examples run as they are written: one episode read back, and a sweep with its report."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from latent_agent import api
from latent_agent.benchmarks.launch import EpisodeRequest
from latent_agent.errors import ConfigError
from latent_agent.llm.spec import LLMOptions

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def _run(source: str, where: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Execute ``source`` as a script in ``where``; what it printed."""
    monkeypatch.chdir(where)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, str(DOC), "exec"), {"__name__": "__main__"})
    return printed.getvalue()


def test_the_episode_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    example = _examples()[0]
    assert len(example.splitlines()) <= 15
    lines = _run(example, tmp_path, monkeypatch).splitlines()
    assert lines[0] == "completed True 4"  # what the document says it prints
    assert [line.split()[0] for line in lines[1:]] == ["0", "1", "2", "3"]
    assert lines[1] == "0 Open the Settings app OpenApp(app_name='Settings', action_type='open_app')"
    trajectory = api.load_trajectory(tmp_path / "runs" / "dark-theme")
    assert trajectory.end is not None and trajectory.end.task_check is True and trajectory.header.method == "zero-shot+"


def test_the_sweep_example_runs_as_written_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    printed = _run(_examples()[1], tmp_path, monkeypatch)
    assert printed.splitlines()[0] == "4 episodes run, 0 errored"
    assert (tmp_path / "runs" / "two-tasks" / "report" / "report.md").is_file()
    assert printed.splitlines()[1] == str(Path("runs/two-tasks/report/report.md"))


def test_a_request_is_refused_in_one_line_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "ep"
    request = EpisodeRequest(method="zero-shot+", device="miniwob:click-button", llm=LLMOptions("demo"),
                             goal="Turn on dark theme", out=out)
    with pytest.raises(ConfigError, match="takes its goal from the task") as refused:
        api.run_episode(request)
    assert "\n" not in str(refused.value) and not out.exists()
