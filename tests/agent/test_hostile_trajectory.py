"""A trajectory edited by someone else: values of the wrong type are refused, and never reach a page raw."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from latent_agent.agent.pages.episode_page import render_html
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.cli import main
from latent_agent.demo.episodes import record_sim_episode
from latent_agent.errors import InputError

SCRIPT = "<script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_sim_episode(tmp_path_factory.mktemp("hostile") / "ep", "settings_roaming_off", seed=1)


def _planted(recorded: Path, tmp_path: Path, record: str, field: str, value: object) -> Path:
    copy = Path(shutil.copytree(recorded, tmp_path / "ep"))
    path = copy / "trajectory.jsonl"
    lines = path.read_text().splitlines()
    for n, line in enumerate(lines):
        obj = json.loads(line)
        if obj["record"] == record:
            obj[field] = value
            lines[n] = json.dumps(obj)
            break
    path.write_text("\n".join(lines) + "\n")
    return copy


@pytest.mark.parametrize(("record", "field", "value"), [
    ("step", "index", SCRIPT), ("step", "index", True), ("step", "trial", "1"), ("step", "description", 7),
    ("episode", "max_steps", SCRIPT), ("end", "steps", [1]),
])
def test_a_value_of_the_wrong_type_is_refused_in_one_line(recorded: Path, tmp_path: Path, record: str, field: str,
                                                          value: object, capsys: pytest.CaptureFixture[str]) -> None:
    episode = _planted(recorded, tmp_path, record, field, value)
    with pytest.raises(InputError, match=rf"trajectory\.jsonl:\d+: malformed record \({field} is a"):
        read_trajectory(episode)
    assert main(["show", str(episode), "-o", str(tmp_path / "page.html")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "malformed record" in err[0]
    assert not (tmp_path / "page.html").exists()


def test_every_value_is_escaped_where_the_page_writes_it(recorded: Path) -> None:
    # Past the reader (a caller building records itself): the page still writes text, never markup.
    trajectory = read_trajectory(recorded)
    steps = tuple(dataclasses.replace(s, index=SCRIPT) for s in trajectory.steps)  # type: ignore[arg-type]
    page = render_html(dataclasses.replace(trajectory, steps=steps))
    assert "<script>document" not in page
    assert "&lt;script&gt;document.title" in page
