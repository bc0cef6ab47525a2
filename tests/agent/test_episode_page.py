"""The episode page's parts: device names, thumbnails shared by identical screens, packed LLM calls, marks."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from PIL import Image

from latent_agent.agent.pages.episode_page import (
    PageLink,
    action_marks,
    device_words,
    render_html,
    unpack_folds,
    write_pages,
)
from latent_agent.agent.pages.thumbnails import THUMB_WIDTH, Thumbnails, make_thumbnail
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.errors import InputError
from latent_agent.grounder.actions import Click, LongPress, NavigateBack, Scroll


@pytest.mark.parametrize(("device", "words"), [
    ("SimDevice(seed=0)", "simulated phone, seed 0"),
    ("SimDevice(seed=12)", "simulated phone, seed 12"),
    ("SimDevice", "simulated phone"),
    ("AdbDevice", "Android device over adb"),
    ("U2Device", "Android device over uiautomator2"),
    ("AndroidEnvDevice", "AndroidEnv environment"),
    ("MyLabRig(seed=3)", "MyLabRig(seed=3)"),  # unknown: shown as recorded
])
def test_devices_are_named_as_a_reader_says_them(device: str, words: str) -> None:
    assert device_words(device) == words


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished zero-shot+ episode on the sim with screenshots and LLM calls (in-process oracle)."""
    from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
    from latent_agent.demo.oracle import DemoOracle
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.llm.scripted import ScriptedModel

    out = tmp_path_factory.mktemp("page") / "ep"
    run_episode_sync(EpisodeConfig("Turn off data roaming", "zero-shot+", max_steps=3), SimDevice(),
                     ScriptedModel(responder=DemoOracle()), out)
    return out


def test_a_thumbnail_is_a_third_of_a_phone_screen_in_webp(episode: Path) -> None:
    png = (episode / "screens" / "step_000.png").read_bytes()
    thumb = make_thumbnail(png)
    image = Image.open(io.BytesIO(thumb.webp))
    assert image.format == "WEBP" and image.size == (THUMB_WIDTH, 800)
    assert (thumb.width, thumb.height) == (1080, 2400)
    assert len(thumb.webp) < len(png) / 2
    small = Image.new("RGB", (200, 300), "white")
    buf = io.BytesIO()
    small.save(buf, "PNG")
    assert Image.open(io.BytesIO(make_thumbnail(buf.getvalue()).webp)).size == (200, 300)  # never upscaled
    with pytest.raises(InputError, match="cannot decode the screenshot"):
        make_thumbnail(b"not an image")


def test_identical_screenshots_are_encoded_once(episode: Path, tmp_path: Path) -> None:
    shots = sorted((episode / "screens").glob("*.png"))
    copies = []
    for i, shot in enumerate(shots):
        copy = tmp_path / f"copy_{i}.png"
        shutil.copy(shot, copy)
        copies.append(copy)
    thumbnails = Thumbnails(workers=1)
    thumbnails.prefetch(shots + copies)
    distinct = len({p.read_bytes() for p in shots})
    assert thumbnails.encoded == distinct
    assert thumbnails.get(copies[0]) == thumbnails.get(shots[0])
    assert thumbnails.encoded == distinct  # served from what prefetch made


def test_worker_threads_give_the_same_thumbnails(tmp_path: Path) -> None:
    paths = []
    for i in range(8):
        image = Image.new("RGB", (720, 1280), (i * 30, 90, 200 - i * 20))
        path = tmp_path / f"{i}.png"
        image.save(path)
        paths.append(path)
    (tmp_path / "torn.png").write_bytes(paths[0].read_bytes()[:60])
    pooled = Thumbnails(workers=2)
    pooled.prefetch([*paths, tmp_path / "torn.png"])
    alone = Thumbnails(workers=1)
    assert [pooled.get(p) for p in paths] == [alone.get(p) for p in paths]
    assert pooled.encoded == 9
    with pytest.raises(InputError, match="cannot decode the screenshot"):
        pooled.get(tmp_path / "torn.png")


def test_the_page_packs_every_call_and_is_the_same_each_time(episode: Path) -> None:
    trajectory = read_trajectory(episode)
    page = render_html(trajectory)
    assert page == render_html(trajectory)
    folds = unpack_folds(page)
    calls = [*trajectory.header.setup_calls, *(c for s in trajectory.steps for c in s.calls)]
    assert [f["kind"] for f in folds] == ["call"] * len(calls)
    assert page.count("<details data-fold=") == len(calls)
    for fold, call in zip(folds, calls, strict=True):
        assert fold["blocks"][:2] == [["label", "prompt"], ["text", call.prompt]]
        assert [t for tag, t in fold["blocks"][2:] if tag == "text"] == list(call.outputs)
    assert page.count("data:image/webp;base64,") == len(trajectory.steps)
    assert "simulated phone, seed 0" in page and "SimDevice" not in page


def test_unpacking_names_what_is_wrong() -> None:
    with pytest.raises(InputError, match="holds no packed LLM calls"):
        unpack_folds("<html></html>")
    with pytest.raises(InputError, match="corrupt"):
        unpack_folds('<script type="application/gzip;base64" id="folds">AAAA</script>')


def test_marks_show_where_the_finger_went() -> None:
    assert 'cx="540" cy="1200" r="49"' in action_marks(Click(540, 1200), 1080, 2400)
    assert action_marks(LongPress(10, 20), 1080, 2400).count("<circle") == 2
    assert action_marks(NavigateBack(), 1080, 2400) == ""
    down = action_marks(Scroll("down"), 1080, 2400)
    # The finger lands below the centre and lifts above it: "down" shows what is below.
    assert '<circle cx="540" cy="1560"' in down and "M540 1560L540 840" in down
    up = action_marks(Scroll("up"), 1080, 2400)
    assert '<circle cx="540" cy="840"' in up and "M540 840L540 1560" in up


def test_write_pages_renders_many_episodes_and_skips_unreadable_ones(episode: Path, tmp_path: Path) -> None:
    second = tmp_path / "second"
    shutil.copytree(episode, second)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "trajectory.jsonl").write_text("not json\n")
    out = tmp_path / "pages"
    written = write_pages([(episode, out / "a.html"), (second, out / "b.html"), (broken, out / "c.html")])
    assert written == {out / "a.html", out / "b.html"}
    # The copy's screenshots are the same files' bytes: its page embeds the very same images.
    assert (out / "a.html").read_text() == (out / "b.html").read_text()
    assert not (out / "c.html").exists()


def test_a_page_that_belongs_to_a_report_links_back_to_it_first(episode: Path, tmp_path: Path) -> None:
    trajectory = read_trajectory(episode)
    back = PageLink('Back to the "report" <b>', "../javascript:alert(1)/report #1.html")
    page = render_html(trajectory, back=back)
    # Escaped, and percent-encoded into a relative path (no scheme, no fragment), before the heading.
    assert page.index('<p class="back"><a href="../javascript%3Aalert%281%29/report%20%231.html">Back to the '
                      "&quot;report&quot; &lt;b&gt;</a></p>") < page.index("<h1>")
    assert 'class="back"' not in render_html(trajectory)  # show's page stands alone
    out = tmp_path / "pages"
    assert write_pages([(episode, out / "a.html")], back=PageLink("Back", "../report.html")) == {out / "a.html"}
    assert '<p class="back"><a href="../report.html">Back</a></p>' in (out / "a.html").read_text()


def test_the_page_says_how_each_trial_ended_and_what_the_task_check_said(tmp_path: Path) -> None:
    from latent_agent.cli.main import main

    out = tmp_path / "ep"
    assert main(["run", "Turn off data roaming", "--method", "reflection-check", "--device", "sim", "--llm", "demo",
                 "--no-screenshots", "--out", str(out)]) == 0
    page = render_html(read_trajectory(out))
    last_step = page.rindex("<h2>Step ")
    trial = page.index("<h2>Trial 1 ended</h2>")
    assert trial > last_step and "the task&#x27;s check: done; not tried again" in page[trial:]
