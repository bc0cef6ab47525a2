"""Form export from trajectories recorded on the simulated phone."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

from latent_agent.agent.latent_state.state import LatentState
from latent_agent.agent.pages.screenshots import action_words, render_shot
from latent_agent.agent.trajectory import (
    EpisodeEnd,
    EpisodeHeader,
    LLMUsage,
    StepRecord,
    StopReason,
    TrajectoryWriter,
)
from latent_agent.annotation.export import STOP_WORDS, ExportOptions, export_forms
from latent_agent.annotation.forms import MANIFEST_FILE, load_manifest
from latent_agent.annotation.questions import FormKind
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog
from latent_agent.demo.episodes import record_sim_episode
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import AnnotationError, ConfigError, OutputExistsError
from latent_agent.grounder.actions import Click, InputText, LongPress, NavigateBack, Scroll

SHOT = re.compile(r'"(\d+)":"(data:image/(jpeg|webp);base64,[A-Za-z0-9+/=]+)"')


def _shots(html: str) -> dict[str, bytes]:
    return {m.group(1): base64.b64decode(m.group(2).split(",", 1)[1]) for m in SHOT.finditer(html)}


def test_latent_forms_one_page_per_step(sim_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "forms"
    result = export_forms(sim_run, out, ExportOptions(FormKind.LATENT, raters=2))
    manifest = load_manifest(out)
    assert manifest.raters == ("r1", "r2") and manifest.kind is FormKind.LATENT
    by_episode = {f.episode.episode_id: f for f in manifest.forms}
    roaming = by_episode["settings_roaming_off-s1"]
    assert roaming.episode.benchmark == "sim" and roaming.episode.task_id == "settings_roaming_off"
    assert roaming.episode.trajectory == "ep_roaming"
    assert [i.step for i in roaming.items] == [0, 1, 2, 3, 4]
    first, last = roaming.items[0], roaming.items[-1]
    assert "previous_action_correct" not in [q.id for q in first.questions]
    assert "next_action_mistake" not in [q.id for q in last.questions]
    assert "next_action_mistake" in [q.id for q in first.questions]
    assert len(roaming.items[2].questions) == 8
    # The baseline context: the commanded step before step 1 and the inferred action at step 1.
    ctx = roaming.items[1].latent
    assert ctx is not None and ctx.commanded == "Open the Settings app"
    assert ctx.previous_action == "Opened the Settings app."
    assert len(result.files) == 2 * len(manifest.forms)
    html = (out / "r2" / f"{roaming.form_id}.html").read_text(encoding="utf-8")
    assert html.count('<section class="page"') == 5
    assert '"rater":"r2"' in html and roaming.digest in html
    # Each step's screenshot embedded once (steps 0-4), reused on two pages.
    shots = _shots(html)
    assert sorted(shots, key=int) == ["0", "1", "2", "3", "4"]
    img = Image.open(io.BytesIO(shots["1"]))
    assert img.format == "JPEG" and img.width == 432
    # The tap at step 1 is drawn: a red ring around the tap point.
    action = roaming.items[1]
    assert action.step == 1
    for question in roaming.items[1].questions:
        assert question.text in html


def test_e2e_forms_partial_questions_from_the_suite(sim_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "forms"
    export_forms(sim_run, out, ExportOptions(FormKind.E2E))
    manifest = load_manifest(out)
    roaming = next(f for f in manifest.forms if f.episode.task_id == "settings_roaming_off")
    (item,) = roaming.items
    ids = [q.id for q in item.questions]
    assert ids == ["completed", "partial_1", "partial_2", "partial_3", "stopping"]
    assert "Network & internet was opened" in item.questions[2].text
    assert [c.value for c in item.questions[-1].choices] == ["right_time", "premature", "extra_steps", "did_not_stop"]
    html = (out / "r1" / f"{roaming.form_id}.html").read_text(encoding="utf-8")
    assert html.count('<section class="page"') == 1
    assert len(_shots(html)) == roaming.episode.steps
    assert "judged the task complete" in html


def test_sample_is_seeded_and_capped(sim_run: Path, tmp_path: Path) -> None:
    def steps(seed: int, name: str, sample: int = 3) -> list[tuple[str, int | None]]:
        export_forms(sim_run, tmp_path / name, ExportOptions(FormKind.LATENT, sample=sample, seed=seed))
        return [(f.episode.episode_id, i.step) for f in load_manifest(tmp_path / name).forms for i in f.items]

    a, b = steps(7, "a"), steps(7, "b")
    assert a == b and len(a) == 3
    assert any(steps(s, f"s{s}") != a for s in range(3))
    total = steps(0, "all", sample=1000)
    assert len(total) == sum(1 for p in sim_run.rglob("trajectory.jsonl")
                             for line in p.read_text().splitlines() if '"record": "step"' in line)


def test_refuses_to_overwrite_and_bad_options(sim_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "forms"
    export_forms(sim_run, out, ExportOptions(FormKind.E2E))
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(OutputExistsError, match="already holds forms"):
        export_forms(sim_run, out, ExportOptions(FormKind.E2E))
    assert before == {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(ConfigError, match="--raters"):
        export_forms(sim_run, tmp_path / "x", ExportOptions(FormKind.E2E, raters=0))
    with pytest.raises(ConfigError, match="--sample"):
        export_forms(sim_run, tmp_path / "x", ExportOptions(FormKind.E2E, sample=0))
    with pytest.raises(AnnotationError, match="no episode found"):
        export_forms(tmp_path / "forms", tmp_path / "y", ExportOptions(FormKind.E2E))


def _custom_episode(directory: Path, summary: str, method: str = "+ZS", latent: bool = True) -> Path:
    device = SimDevice(seed=3)
    header = EpisodeHeader("custom-1", "Do something", "Do something", method, "list", "gemini:gemini-1.5-pro",
                           "sim", 10, 0.0)
    writer = TrajectoryWriter(directory, header)
    for index, action in enumerate([Click(540, 1200), None]):
        screen, shot = writer.save_screen(index, device.hierarchy().raw, device.screenshot())
        state = LatentState(None if index == 0 else "Clicked", summary, "1. nothing", "No mistakes have been made.",
                            None) if latent else None
        writer.step(StepRecord(index, screen, shot, device.foreground_package(), "desc", state, "Click somewhere",
                               action=action, executed=action is not None))
    writer.end(EpisodeEnd(StopReason.MAX_STEPS, 2, 1.0, LLMUsage()))
    return directory


def test_forms_carry_no_keys_or_internal_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-" + "q" * 40
    env_secret = "hunter2-correct-horse"
    monkeypatch.setenv("MY_SERVICE_TOKEN", env_secret)
    run = tmp_path / "run"
    summary = (f"Home screen. Debug: key={key} api_key: AIza{'x' * 35} token {env_secret} "
               f"log at {tmp_path}/run/log.txt and /home/alex/.config/latent/keys.json")
    _custom_episode(run / "ep", summary)
    out = tmp_path / "forms"
    export_forms(run, out, ExportOptions(FormKind.LATENT))
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert files[0].name == "forms.json" and re.fullmatch(r"latent-[0-9a-f]{8}\.html", files[1].name), files
    for path in files:
        text = path.read_text(encoding="utf-8")
        for leak in (key, "AIza" + "x" * 35, env_secret, str(tmp_path), "/home/alex", "gemini-1.5-pro"):
            assert leak not in text, (path.name, leak)
    html = files[1].read_text(encoding="utf-8")
    assert html.count("[REDACTED]") == 6 and html.count("[path]") == 4  # the summary is on both pages
    assert "benchmark custom" in html


def test_a_methods_own_cap_and_the_step_limit_read_differently_to_raters() -> None:
    # Every ending in words: a rater never reads a stop reason's code (a MiniWoB++ form said "task_ended").
    assert set(STOP_WORDS) == {r.value for r in StopReason}
    # The step limit cut the agent off; at its own cap the agent stopped, without judging the task done.
    assert "did not stop" in STOP_WORDS["max_steps"] and "without judging" in STOP_WORDS["method_cap"]


def test_episode_without_latent_state(tmp_path: Path) -> None:
    _custom_episode(tmp_path / "run" / "ep", "x", method="-ZS", latent=False)
    with pytest.raises(AnnotationError, match="use --kind e2e"):
        export_forms(tmp_path / "run", tmp_path / "f", ExportOptions(FormKind.LATENT))
    export_forms(tmp_path / "run", tmp_path / "g", ExportOptions(FormKind.E2E))
    (form,) = load_manifest(tmp_path / "g").forms
    assert [q.id for q in form.items[0].questions] == ["completed", "stopping"]  # no suite task
    assert "step limit" in (tmp_path / "g" / "r1" / f"{form.form_id}.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def password_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The private-DNS episode, its text field turned into a password field in every dump."""
    run = tmp_path_factory.mktemp("pw")
    ep = record_sim_episode(run / "ep", "settings_private_dns_host")
    for dump in (ep / "screens").glob("*.xml"):
        raw = dump.read_bytes()
        pattern = rb'(class="android.widget.EditText"[^>]*?)password="false"'
        dump.write_bytes(re.sub(pattern, rb'\1password="true"', raw))
    return run


def test_password_redaction(password_run: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    export_forms(password_run, plain, ExportOptions(FormKind.LATENT))
    plain_html = next(plain.rglob("*.html")).read_text(encoding="utf-8")
    assert "dns.google" in plain_html  # without the option the typed text is shown
    out = tmp_path / "redacted"
    export_forms(password_run, out, ExportOptions(FormKind.LATENT, redact_passwords=True))
    assert load_manifest(out).redacted_passwords
    html = next(out.rglob("*.html")).read_text(encoding="utf-8")
    manifest = (out / MANIFEST_FILE).read_text(encoding="utf-8")
    assert "dns.google" not in html and "dns.google" not in manifest
    assert "type \u201c\u2022\u2022\u2022\u2022\u2022\u2022\u201d" in html
    # The password field (device bounds [132,1360][948,1490]) is painted over on the screenshots.
    scale = 432 / 1080
    for step in ("4", "5"):
        img = Image.open(io.BytesIO(_shots(html)[step])).convert("RGB")
        x, y = round(140 * scale), round(1370 * scale)
        r, g, b = img.getpixel((x + 2, y + 2))  # type: ignore[misc]
        assert abs(r - 90) < 16 and abs(g - 90) < 16 and abs(b - 90) < 16
        plain_img = Image.open(io.BytesIO(_shots(plain_html)[step])).convert("RGB")
        assert plain_img.getpixel((x + 2, y + 2)) != img.getpixel((x + 2, y + 2))


def test_action_drawing_and_words() -> None:
    png = SimDevice(seed=0).screenshot()
    plain = Image.open(io.BytesIO(base64.b64decode(render_shot(png).split(",", 1)[1]))).convert("RGB")
    drawn_uri = render_shot(png, Click(540, 1200), image_format="webp")
    assert drawn_uri.startswith("data:image/webp;base64,")
    drawn = Image.open(io.BytesIO(base64.b64decode(drawn_uri.split(",", 1)[1]))).convert("RGB")
    # The ring passes through (540 + r, 1200) scaled; r = 432 // 22 = 19 px on the scaled image.
    x, y = round(540 * 0.4) + 19, round(1200 * 0.4)
    r, g, b = drawn.getpixel((x, y))  # type: ignore[misc]
    assert r > 170 and g < 110 and b < 130
    assert plain.getpixel((x, y)) != (r, g, b)
    assert action_words(Scroll("down")) == "scroll down"
    assert action_words(NavigateBack()) == "press Back"
    assert action_words(LongPress(5, 6)) == "long press (5, 6)"
    masked = action_words(InputText("secret", 10, 20), masked_text=True)
    assert masked == "type \u201c\u2022\u2022\u2022\u2022\u2022\u2022\u201d at (10, 20)"
    with pytest.raises(AnnotationError, match="cannot decode screenshot"):
        render_shot(b"not an image")
    json.dumps(action_words(None))


def test_interrupted_attempts_of_a_sweep_are_not_rated(sim_run: Path, tmp_path: Path) -> None:
    import shutil

    from latent_agent.annotation.sources import find_episodes

    run = tmp_path / "sweep"
    episodes = sorted(p.parent for p in sim_run.rglob("trajectory.jsonl"))
    shutil.copytree(episodes[0], run / "ep-finished")
    shutil.copytree(episodes[-1], run / "attempts" / "ep-interrupted")
    found = find_episodes(run)
    assert [t.directory.name for t in found] == ["ep-finished"]


def test_benchmark_and_partial_questions_come_from_the_sweeps_suite(sim_run: Path, tmp_path: Path) -> None:
    # A sweep of the AitW WebShopping suite: results.jsonl names the suite; the form must carry that
    # suite's name (as the sweep report does) and its partial-completion questions, not "custom" and none.
    import shutil

    run = tmp_path / "sweep"
    source = sorted(p.parent for p in sim_run.rglob("trajectory.jsonl"))[0]
    episode = run / "episodes" / "aitw-webshop-001__react+__s0"
    shutil.copytree(source, episode)
    lines = (episode / "trajectory.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.update(task_id="aitw-webshop-001", method="react+", seed=0,
                  goal="Go to ebay.com, search for 'apple airpods', and select the first entry")
    (episode / "trajectory.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    ResultsLog(run).append(EpisodeRecord(
        key="aitw-webshop-001__react+__s0", suite="aitw-webshop", task_id="aitw-webshop-001", goal=header["goal"],
        method="react+", seed=0, device="sim-0", attempt=1, status=EpisodeStatus.FINISHED, success=None,
        trajectory="episodes/aitw-webshop-001__react+__s0"))
    export_forms(run, tmp_path / "forms", ExportOptions(FormKind.E2E))
    (form,) = load_manifest(tmp_path / "forms").forms
    assert form.episode.benchmark == "aitw-webshop" and form.episode.key == "aitw-webshop-001__react+__s0"
    texts = [q.text for q in form.items[0].questions]
    assert any(t.endswith("Did the agent go to ebay.com?") for t in texts)
    assert any(t.endswith("Did the agent search for 'apple airpods'?") for t in texts)
    # Outside a sweep the task id alone finds the suite: sim episodes are benchmark "sim", as in the report.
    export_forms(sim_run, tmp_path / "sim_forms", ExportOptions(FormKind.E2E))
    assert {f.episode.benchmark for f in load_manifest(tmp_path / "sim_forms").forms} == {"sim"}
