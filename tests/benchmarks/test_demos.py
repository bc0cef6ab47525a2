"""CAAP demonstrations: recording the reference solutions in script form, the rationale cache (a rebuild
makes no call, a changed template or model asks again, a cut line is skipped, nothing written is lost), the
demo file, and the command."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from latent_agent.agent.caap.demos import DEMOS_FILE, load_demos
from latent_agent.agent.caap.policy import CaapState
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks import demos as demos_module
from latent_agent.benchmarks.demos import (
    CACHE_FILE,
    RATIONALE_TEMPLATE,
    RationaleCache,
    build_demos,
    rationale_inputs,
    record_demo,
)
from latent_agent.benchmarks.sim_tasks import Task, load_suite
from latent_agent.cli import main
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.prompts import render as render_module

TASKS = {t.id: t for t in load_suite()}


def _client(model: str = "scripted") -> ScriptedModel:
    return ScriptedModel(responder=DemoOracle(), model=model)


def _tasks(*ids: str) -> list[Task]:
    return [TASKS[i] for i in ids]


def test_a_recorded_demo_keeps_each_actions_function_element_attributes_and_arguments() -> None:
    demo = record_demo(TASKS["chrome_open_shop"], SimDevice(seed=1000))
    names = [a.action.name for a in demo.actions]
    assert names == ["open_app", "click_element", "type_text", "press_enter"]
    click, typed = demo.actions[1].action, demo.actions[2].action
    assert click.element["text"] == "Search or type URL" and click.element["type"] == "input_field"
    assert str(click.element["X"]).count("[") == 1 and "id" not in click.element
    assert typed.params == {"text": "shop.example.com"} and typed.element["type"] == "input_field"
    assert demo.actions[0].action.params == {"app_name": "Chrome"}
    assert demo.actions[0].before != demo.actions[0].after


def test_a_scroll_to_step_is_recorded_as_the_scrolls_it_took() -> None:
    demo = record_demo(TASKS["settings_android_version"], SimDevice(seed=1000))
    names = [a.action.name for a in demo.actions]
    assert names[0] == "open_app" and names[-1] == "click_element" and set(names[1:-1]) == {"scroll"}
    assert demo.actions[-1].action.element["text"] == "About phone"


def test_the_rationale_call_shows_the_action_and_the_screens_around_it() -> None:
    demo = record_demo(TASKS["settings_roaming_off"], SimDevice(seed=1000))
    inputs = rationale_inputs(demo, 3)
    assert inputs["index"] == 3 and inputs["actions"][0] == "{name: start}"
    assert inputs["action"] == demo.actions[1].action.to_json()
    assert "Network & internet" in str(inputs["before"]) and "SIMs" in str(inputs["after"])


def test_a_build_writes_a_demo_per_task_with_a_reason_per_action(tmp_path: Path) -> None:
    client = _client()
    summary = build_demos(_tasks("settings_roaming_off", "clock_alarm_6am"), load_suite(), client, tmp_path / "D")
    assert (summary.demos, summary.calls, summary.cached) == (2, summary.actions, 0)
    loaded = load_demos(tmp_path / "D")
    assert [d.task_id for d in loaded.demos] == ["settings_roaming_off", "clock_alarm_6am"]
    assert all(a.reason for d in loaded.demos for a in d.actions[1:]) and loaded.demos[0].actions[0].name == "start"
    assert len(loaded.tasks) == len(TASKS) and loaded.model == "scripted"
    assert [r.purpose for r in client.requests] == ["caap_rationale"] * summary.actions


def test_a_rebuild_makes_no_call_and_a_changed_model_or_template_asks_again(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "D"
    tasks = _tasks("settings_roaming_off")
    first = build_demos(tasks, load_suite(), _client(), out)
    again = _client()
    summary = build_demos(tasks, load_suite(), again, out)
    assert (summary.calls, summary.cached) == (0, first.actions) and again.requests == ()
    assert [d.task_id for d in load_demos(out).demos] == ["settings_roaming_off"] and (out / DEMOS_FILE).exists()

    other_model = build_demos(tasks, load_suite(), _client("another-model"), out)
    assert other_model.calls == first.actions

    folder = tmp_path / "templates"
    folder.mkdir()
    for template in Path(render_module.__file__).parent.joinpath("templates").glob("*.j2"):
        text = template.read_text(encoding="utf-8")
        if template.name == RATIONALE_TEMPLATE:
            text += "\nAnswer in two sentences.\n"
        (folder / template.name).write_text(text, encoding="utf-8")
    changed = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined)
    monkeypatch.setattr(demos_module, "environment", lambda: changed)
    assert build_demos(tasks, load_suite(), _client(), out).calls == first.actions
    lines = (out / CACHE_FILE).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 3 * first.actions  # the header, then every rationale ever written, none replaced


def test_a_line_cut_short_by_a_crash_is_skipped_and_the_next_entry_starts_on_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE
    cache = RationaleCache(path)
    cache.add("a", "first reason")
    with path.open("a", encoding="utf-8") as f:
        f.write('{"key": "b", "rational')
    reread = RationaleCache(path)
    assert reread.get("a") == "first reason" and reread.get("b") is None and reread.skipped == 1
    reread.add("c", "third reason")
    final = RationaleCache(path)
    assert (final.get("a"), final.get("c"), final.skipped) == ("first reason", "third reason", 1)


def test_a_file_that_is_not_a_cache_of_this_version_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    path.write_text('{"kind": "caap-rationale-cache", "schema_version": 7}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="schema_version 7"):
        RationaleCache(path)
    path.write_text("notes\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a CAAP rationale cache"):
        RationaleCache(path)
    assert path.read_text(encoding="utf-8") == "notes\n"


def test_rebuilding_some_tasks_keeps_the_other_demos(tmp_path: Path) -> None:
    out = tmp_path / "D"
    build_demos(_tasks("settings_roaming_off", "clock_alarm_6am"), load_suite(), _client(), out)
    summary = build_demos(_tasks("qs_flashlight_on"), load_suite(), _client(), out)
    assert summary.kept == 2
    assert [d.task_id for d in load_demos(out).demos] == ["settings_roaming_off", "qs_flashlight_on",
                                                          "clock_alarm_6am"]


def test_an_output_folder_of_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds other files"):
        build_demos(_tasks("qs_flashlight_on"), load_suite(), _client(), tmp_path)


def test_the_command_builds_the_train_split_and_a_demo_run_uses_it(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "D"
    assert main(["demos", "build", "--suite", "sim", "--tasks", "settings_mobile_data_off,clock_*",
                 "--llm", "demo", "--out", str(out)]) == 0
    assert "0 from the cache" in capsys.readouterr().out
    assert main(["demos", "build", "--suite", "sim", "--tasks", "settings_mobile_data_off,clock_*",
                 "--llm", "demo", "--out", str(out)]) == 0
    assert " 0 rationale call(s)" in capsys.readouterr().out
    episode = tmp_path / "ep"
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", "caap",
                 "--demos", str(out), "--no-screenshots", "--out", str(episode)]) == 0
    state = read_trajectory(episode).steps[0].state
    assert isinstance(state, CaapState) and "settings_mobile_data_off" in state.demos
    assert "settings_roaming_off" not in state.demos  # the evaluated task's own demo is never shown
    assert main(["demos", "build", "--suite", "sim", "--tasks", "nothing_*", "--llm", "demo",
                 "--out", str(tmp_path / "E")]) == 2
