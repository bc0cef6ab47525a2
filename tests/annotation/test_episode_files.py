"""A planted trajectory names files outside its episode: no reader embeds, sends or remembers them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from latent_agent.agent.episode_files import saved_screenshots
from latent_agent.agent.exemplars.pieces import PieceError, screen_elements
from latent_agent.agent.pages.episode_page import render_html, screenshot_paths, write_pages
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.questions import FormKind
from latent_agent.errors import AnnotationError

SECRET = "SECRET-ON-THE-EXPORTERS-DISK"


@pytest.fixture()
def planted(sim_run: Path, tmp_path: Path) -> Path:
    """A copy of a recorded run whose first step names a screenshot and a dump from elsewhere on the disk."""
    run = tmp_path / "run"
    shutil.copytree(sim_run / "ep_roaming", run / "ep_roaming")
    Image.new("RGB", (64, 64), (255, 0, 0)).save(tmp_path / "private.png")
    (tmp_path / "private.xml").write_text(
        '<hierarchy rotation="0"><node index="0" text="' + SECRET + '" class="android.widget.Button" '
        'package="x" clickable="true" enabled="true" bounds="[0,0][500,200]"/></hierarchy>')
    path = run / "ep_roaming" / "trajectory.jsonl"
    lines = path.read_text().splitlines()
    for n, line in enumerate(lines):
        record = json.loads(line)
        if record.get("record") == "step" and record["index"] == 0:
            record["screenshot_file"] = str(tmp_path / "private.png")  # absolute
            record["screen_file"] = "../../private.xml"  # climbing out
            lines[n] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    return run


def test_rater_forms_refuse_a_screenshot_from_outside_the_episode(planted: Path, tmp_path: Path) -> None:
    with pytest.raises(AnnotationError, match=r"step 0: screenshot .* is not a relative path inside"):
        export_forms(planted, tmp_path / "forms", ExportOptions(FormKind.E2E))
    assert not (tmp_path / "forms" / "forms.json").exists()


def test_memory_building_refuses_a_dump_from_outside_the_episode(planted: Path) -> None:
    trajectory = read_trajectory(planted / "ep_roaming")
    with pytest.raises(PieceError, match=r"screen dump [^ ]+ leads outside"):
        screen_elements(trajectory, trajectory.steps[0])


def test_the_episode_page_reads_nothing_from_outside(planted: Path, tmp_path: Path) -> None:
    trajectory = read_trajectory(planted / "ep_roaming")
    paths = screenshot_paths(trajectory)
    assert paths and all(p.resolve().is_relative_to(planted.resolve()) for p in paths)
    assert "is outside the episode: not shown" in render_html(trajectory)


def test_a_link_out_of_the_episode_is_never_read(sim_run: Path, tmp_path: Path) -> None:
    episode = Path(shutil.copytree(sim_run / "ep_roaming", tmp_path / "run" / "ep_roaming"))
    Image.new("RGB", (64, 64), (255, 0, 0)).save(tmp_path / "private.png")
    link = episode / "screens" / "step_000.png"
    link.unlink()
    link.symlink_to(tmp_path / "private.png")
    assert link not in saved_screenshots(episode) and saved_screenshots(episode)
    page = tmp_path / "page.html"
    assert write_pages([(episode, page)]) == {page}
    assert "screens/step_000.png is outside the episode: not shown" in page.read_text()
    with pytest.raises(AnnotationError, match="leads outside"):
        export_forms(tmp_path / "run", tmp_path / "forms", ExportOptions(FormKind.E2E))
