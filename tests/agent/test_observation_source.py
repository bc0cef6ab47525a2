"""The observation source (``--observation a11y|screen|both``): ``screen`` never requests the dump.

The acceptance of issue 16: ``run "Turn off data roaming" --observation screen --llm demo --device sim``
completes without reading the accessibility tree. The phone here counts every request for its dump and
refuses it, so a run that reads the tree fails loudly instead of passing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.methods import METHODS
from latent_agent.agent.observe import observe, settle
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.benchmarks.plan import read_manifest
from latent_agent.benchmarks.results import ResultsLog
from latent_agent.cli import main
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.base import Hierarchy
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError
from latent_agent.llm.scripted import Reply, ScriptedModel
from latent_agent.llm.types import GenerationRequest

pytest.importorskip("rapidocr_onnxruntime", reason="the screenshot observer's OCR engine (the ocr extra)")


class DumpRefused(AssertionError):
    """The accessibility tree was requested where it must not be."""


class NoDumpPhone(SimDevice):
    """The simulated phone, except that asking for its dump is counted and refused."""

    def __init__(self, seed: int = 0) -> None:
        self.dumps = 0
        super().__init__(seed)

    def hierarchy(self) -> Hierarchy:
        self.dumps += 1
        raise DumpRefused("the accessibility tree was requested")


#: The default method, and the screen-first method of issue 16 once it is registered.
SCREEN_METHODS = [m for m in ("zero-shot+", "caap") if m in METHODS]


@pytest.mark.parametrize("method", SCREEN_METHODS)
def test_screen_observation_never_requests_the_tree(method: str, tmp_path: Path) -> None:
    phone = NoDumpPhone()
    result = run_episode_sync(EpisodeConfig("Turn off data roaming", method, observation="screen"), phone,
                              ScriptedModel(responder=DemoOracle()), tmp_path / "ep")
    assert phone.dumps == 0
    assert result.stop_reason in (StopReason.COMPLETED, StopReason.DONE), result.detail
    assert phone.state.settings.network.roaming is False  # the task itself, as its check reads it
    trajectory = read_trajectory(tmp_path / "ep")
    assert trajectory.header.observation == "screen"
    # What was stored as each step's screen is the observer's tree: it reads back as the description the LLM saw.
    for step in trajectory.steps:
        stored = parse_xml((tmp_path / "ep" / step.screen_file).read_bytes())
        assert describe(clean_tree(stored)) == step.description
        assert step.screenshot_file is not None


def test_the_cli_run_of_the_acceptance_never_requests_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[int] = []

    def refuse(self: SimDevice) -> Hierarchy:
        asked.append(1)
        raise DumpRefused("the accessibility tree was requested")

    monkeypatch.setattr(SimDevice, "hierarchy", refuse)
    out = tmp_path / "ep"
    method = "caap" if "caap" in METHODS else "zero-shot+"
    code = main(["run", "Turn off data roaming", "--method", method, "--observation", "screen", "--llm", "demo",
                 "--device", "sim", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert asked == []
    assert read_trajectory(out).header.observation == "screen"


def test_a11y_observation_reads_the_tree(tmp_path: Path) -> None:
    # The wrapper does catch a read: the default source asks for the dump at once.
    with pytest.raises(DumpRefused):
        observe(NoDumpPhone(), {}, screenshot=False)


def test_both_adds_what_only_the_screenshot_shows() -> None:
    phone = SimDevice(0)
    phone.open_app("Settings")
    apps = dict(phone.launcher_apps())
    dump = observe(phone, apps, screenshot=False)
    merged = observe(phone, apps, screenshot=False, source="both")
    assert merged.raw == dump.raw  # the stored dump is the device's own
    assert len(merged.tree.roots) == len(dump.tree.roots) + 1
    added = list(merged.tree.roots[-1].iter())[1:]
    # The rows' leading icons are drawn but not in the dump; every text of the screen is in the dump already.
    assert added and all(node.class_name == "android.widget.ImageButton" for node in added)
    # Every line of the dump's description is still there (the windows are one level deeper in a group).
    assert {line.strip() for line in dump.description.splitlines()} <= {
        line.strip() for line in merged.description.splitlines()}


def test_screen_observation_reads_the_screenshot() -> None:
    phone = NoDumpPhone()
    phone.open_app("Settings")
    seen = observe(phone, {}, screenshot=False, source="screen")
    assert phone.dumps == 0 and seen.screenshot is not None and seen.source == "screen"
    assert "Network & internet" in seen.description and seen.observer_s > 0
    assert any(e.text == "Network & internet" for e in seen.screen.elements)
    assert seen.package == "com.android.settings"


def test_settle_on_the_screen_source_compares_screenshots() -> None:
    phone = NoDumpPhone()
    settle(phone, "screen")
    assert phone.dumps == 0


def test_unknown_source_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigError, match="unknown observation source 'pixels'; choose one of a11y, screen, both"):
        EpisodeConfig("Turn off data roaming", "zero-shot+", observation="pixels")


def test_a_sweep_runs_each_episode_under_each_source_and_reports_them_apart(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
            "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots"]
    assert main([*args, "--observation", "a11y,screen"]) == 0
    plan = read_manifest(out)
    assert plan.observations == ("a11y", "screen")
    assert [(e.observation, e.key) for e in plan.episodes] == [
        ("a11y", "settings_dark_theme__zero-shot-__s0"), ("screen", "settings_dark_theme__zero-shot-__screen__s0")]
    records = {r.observation: r for r in ResultsLog(out).load()}
    assert set(records) == {"a11y", "screen"}
    for source, record in records.items():
        assert read_trajectory(out / record.trajectory).header.observation == source
        assert record.success is True
    # Resuming without the option keeps the planned sources; asking for others is another sweep.
    assert main([*args, "--resume"]) == 0
    assert main([*args, "--resume", "--observation", "screen"]) == 2
    assert main(["report", str(out)]) == 0
    report = (out / "report" / "report.md").read_text(encoding="utf-8")
    section = report.split("Observation source: the dump (a11y) against the screenshot", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:3]
    assert "| a11y |" in rows[0] and "| 100.0% |" in rows[0]
    assert "| screen |" in rows[1] and "| 0 / 1 / 0 |" in rows[1]
    # The main table counts the dump's episode only: one of one, not two.
    assert "| 1/1 |" in report.split("Observation source", 1)[0]


def test_old_manifests_and_records_read_as_the_dump(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
                 "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots"]) == 0
    manifest = out / "manifest.json"
    obj = json.loads(manifest.read_text())
    del obj["observations"]
    for episode in obj["episodes"]:
        del episode["observation"]
    manifest.write_text(json.dumps(obj))
    assert read_manifest(out).observations == ("a11y",)
    (record,) = ResultsLog(out).load()
    assert record.observation == "a11y" and record.key == "settings_dark_theme__zero-shot-__s0"


@pytest.mark.parametrize(("given", "message"), [
    ("pixels", "unknown observation source 'pixels' in --observation"),
    ("screen,screen", "--observation repeats a source"),
    (" , ", "--observation is empty"),
])
def test_sweep_refuses_bad_sources_in_one_line(given: str, message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
                 "--out", str(tmp_path / "s"), "--observation", given, "--no-progress"]) == 2
    assert message in capsys.readouterr().err


class IconNamer:
    """The demo stand-in, except that it names every icon it is asked about, as a model that sees would."""

    def __init__(self) -> None:
        self.oracle = DemoOracle()
        self.asked: list[list[str]] = []

    def __call__(self, request: GenerationRequest) -> str | Reply:
        if request.purpose == "name_icons":
            ids = [str(icon["id"]) for icon in request.inputs["icons"]]
            self.asked.append(ids)
            return "\n".join(f"{key}: gear" for key in ids)
        return self.oracle(request)


def test_name_icons_names_the_screenshot_icons_by_one_call_a_step(tmp_path: Path) -> None:
    namer = IconNamer()
    phone = NoDumpPhone()
    config = EpisodeConfig("Turn off data roaming", "zero-shot+", observation="screen", name_icons=True, max_steps=3)
    run_episode_sync(config, phone, ScriptedModel(responder=namer), tmp_path / "ep")
    trajectory = read_trajectory(tmp_path / "ep")
    assert phone.dumps == 0 and len(namer.asked) == len(trajectory.steps)
    for step in trajectory.steps:
        calls = [c for c in step.calls if c.purpose == "name_icons"]
        assert len(calls) == 1 and len(calls[0].images) == 1  # the screenshot went with the call
    # Settings' rows have leading icons: once named, they are described by their names.
    settings = trajectory.steps[1]
    assert 'an image button described as "gear"' in settings.description


def test_name_icons_needs_a_screen_source(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="needs --observation screen or both"):
        EpisodeConfig("Turn off data roaming", "zero-shot+", name_icons=True)
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--name-icons",
                 "--out", "unused"]) == 2
    assert "needs --observation screen or both" in capsys.readouterr().err
    assert not Path("unused").exists()


def test_a_sweep_names_icons_on_its_screen_episodes_only_and_resume_keeps_it(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
            "--out", str(out), "--tasks", "settings_dark_theme", "--no-progress", "--no-screenshots"]
    assert main([*args, "--observation", "a11y,screen", "--name-icons"]) == 0
    assert read_manifest(out).name_icons is True
    named = {}
    for record in ResultsLog(out).load():
        steps = read_trajectory(out / record.trajectory).steps
        named[record.observation] = sum(c.purpose == "name_icons" for s in steps for c in s.calls)
    assert named["a11y"] == 0 and named["screen"] >= 1  # the dump's episode has no icons to name
    assert main([*args, "--resume"]) == 0 and read_manifest(out).name_icons is True
    assert main(["report", str(out)]) == 0
    assert "icons named on the screen sources" in (out / "report" / "report.md").read_text(encoding="utf-8")


def test_a_sweep_refuses_to_name_icons_from_the_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--suite", "sim", "--methods", "zero-shot-", "--devices", "sim", "--llm", "demo",
                 "--out", str(tmp_path / "s"), "--name-icons", "--no-progress"]) == 2
    assert "--name-icons reads icons from the screenshot: it needs --observation screen or both" in \
        capsys.readouterr().err
