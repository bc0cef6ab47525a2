"""Suites: every registered suite loads, ids are unique, provenance is complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.benchmarks.suite import DATA, SUITES, load_named_suite, load_task_params, webshop_subgoals
from latent_agent.errors import ConfigError

SOURCES = Path(__file__).resolve().parents[2] / "benchmarks" / "suites" / "SOURCES.md"


@pytest.mark.parametrize("name", sorted(SUITES))
def test_every_suite_loads_with_unique_ids(name: str) -> None:
    suite = load_named_suite(name)
    ids = [t.id for t in suite.tasks]
    assert suite.name == name
    assert ids and len(ids) == len(set(ids))
    assert all(t.goal.strip() and t.source for t in suite.tasks)


def test_sizes_match_the_source_files() -> None:
    general = [line for line in (DATA / "aitw_digirl" / "general_test.txt").read_text().splitlines() if line.strip()]
    webshop = {line.strip() for line in (DATA / "aitw_digirl" / "webshop_test.txt").read_text().splitlines()
               if line.strip()}
    assert len(load_named_suite("aitw-general").tasks) == len(set(general))
    assert len(load_named_suite("aitw-webshop").tasks) == len(webshop)
    assert len(load_named_suite("aitw").tasks) == len(set(general)) + len(webshop)
    world = json.loads((DATA / "android_world" / "task_metadata.json").read_text())
    assert len(load_named_suite("androidworld").tasks) == len(world) == 116


def test_task_ids_point_back_to_their_line() -> None:
    suite = load_named_suite("aitw-general")
    lines = (DATA / "aitw_digirl" / "general_test.txt").read_text().splitlines()
    for task in suite.tasks[:50]:
        number = int(task.source.rsplit(":", 1)[1])
        assert lines[number - 1].strip() == task.goal
        assert task.id == f"aitw-general-{number:03d}"


def test_sim_suite_is_automatic_with_partial_questions() -> None:
    suite = load_named_suite("sim")
    assert suite.needs_sim
    assert all(t.automatic for t in suite.tasks)
    roaming = suite.task("settings_roaming_off")
    assert roaming.partial_questions == ("Settings was opened", "Network & internet was opened",
                                         "the roaming page was reached")
    assert not any(t.automatic for t in load_named_suite("aitw").tasks)


def test_webshop_subgoals() -> None:
    assert webshop_subgoals("Go to ebay.com, search for 'apple airpods', and select the first entry") == (
        "Did the agent go to ebay.com?", "Did the agent search for 'apple airpods'?")
    assert webshop_subgoals("Go to costco.com") == ()


def test_androidworld_parameterized_templates(tmp_path: Path) -> None:
    suite = load_named_suite("androidworld")
    task = suite.task("AudioRecorderRecordAudioWithFileName")
    assert task.params == ("file_name",)
    assert task not in suite.runnable()
    assert len(suite.runnable()) == 26
    params = tmp_path / "params.json"
    params.write_text(json.dumps({"AudioRecorderRecordAudioWithFileName": {"file_name": "meeting notes"}}))
    filled = suite.with_params(load_task_params(params)).task("AudioRecorderRecordAudioWithFileName")
    assert filled.goal == 'Record an audio clip and save it with name "meeting notes" using Audio Recorder app.'
    assert filled.params == ()
    with pytest.raises(ConfigError, match="no placeholder colour"):
        suite.with_params({"AudioRecorderRecordAudioWithFileName": {"colour": "red"}})
    with pytest.raises(ConfigError, match="not a task"):
        suite.with_params({"NoSuchTask": {}})
    params.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="expected an object"):
        load_task_params(params)


def test_select_by_pattern_and_tag() -> None:
    suite = load_named_suite("sim")
    assert {t.id for t in suite.select(["clock_alarm_*"]).tasks} == {
        "clock_alarm_330_argon", "clock_alarm_6am", "clock_alarm_delete", "clock_alarm_enable"}
    assert all("pixelhelp" in t.tags for t in suite.select(tags=["pixelhelp"]).tasks)
    with pytest.raises(ConfigError, match="no task of suite 'sim' matches"):
        suite.select(["nothing_*"])


def test_unknown_suite_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="available: sim, aitw-general"):
        load_named_suite("pixelhelp2")


def test_every_data_file_has_a_provenance_row_and_a_license() -> None:
    sources = SOURCES.read_text()
    for path in DATA.rglob("*"):
        if path.is_file():
            assert f"data/{path.relative_to(DATA).as_posix()}" in sources, path
    for folder in DATA.iterdir():
        # A LICENSE of the origin repository, or a NOTICE where the source (a paper) comes with none.
        assert (folder / "LICENSE").is_file() or (folder / "NOTICE").is_file(), folder
