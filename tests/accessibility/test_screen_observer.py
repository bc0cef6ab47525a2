"""The screenshot observer on screens whose true elements are known: the simulated phone (its screenshot is
drawn from the same windows as its dump) and a real screenshot kept with the dump taken with it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.accessibility.screen.observer import ScreenObserver, ScreenReading
from latent_agent.accessibility.screen.score import ScreenScore, score_screen
from latent_agent.accessibility.tree import UITree
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.steps import perform
from latent_agent.device.sim.device import SimDevice

rapidocr = pytest.importorskip("rapidocr_onnxruntime", reason="the screenshot observer's OCR engine (the ocr extra)")

REAL = Path(__file__).resolve().parent.parent / "data" / "screenshots"


@pytest.fixture(scope="module")
def observer() -> ScreenObserver:
    return ScreenObserver()


def sim_screen(task_id: str, steps: int) -> tuple[bytes, UITree]:
    """The screenshot and the cleaned dump after the first ``steps`` steps of a task's reference solution."""
    task = next(t for t in load_suite() if t.id == task_id)
    phone = SimDevice(0)
    for step in task.solution[:steps]:
        perform(phone, step)
    return phone.screenshot(), clean_tree(phone.hierarchy().tree)


def read(observer: ScreenObserver, png: bytes, truth: UITree) -> tuple[ScreenReading, ScreenScore]:
    reading = observer.read(png)
    return reading, score_screen(truth, reading.lines, reading.controls)


@pytest.mark.parametrize(("task_id", "steps"), [
    ("settings_roaming_off", 1),  # Settings' list of sections
    ("settings_roaming_off", 2),  # Network & internet: rows with summaries, a switch
    ("settings_roaming_off", 3),  # the SIM's page: three switches
    ("clock_alarm_delete", 2),  # alarms: big times, switches, a checkbox, icons
])
def test_sim_screens_are_read_as_their_dump_says(observer: ScreenObserver, task_id: str, steps: int) -> None:
    png, truth = sim_screen(task_id, steps)
    reading, score = read(observer, png, truth)
    assert score.recovered >= 0.9 * score.labels, score.missed
    assert score.centred == score.recovered  # a tap aimed at a label read lands on the element
    assert score.found >= 0.8 * score.controls
    assert score.state_right == score.checkable
    assert reading.tree.screen is not None and reading.tree.source == "screenshot"


def test_the_sim_roaming_switch_is_read_with_its_label_and_state(observer: ScreenObserver) -> None:
    png, _ = sim_screen("settings_roaming_off", 3)
    lines = describe(clean_tree(observer.read(png).tree)).splitlines()
    row = lines.index('  a text "Roaming"')
    assert "  a switch that is on" in lines[row:row + 4]


def test_a_real_screenshot_is_read_as_its_dump_says(observer: ScreenObserver) -> None:
    png = (REAL / "Nora" / "chat_screen.png").read_bytes()
    truth = clean_tree(parse_xml((REAL / "Nora" / "chat_screen.xml").read_bytes(), source="chat_screen.xml"))
    reading, score = read(observer, png, truth)
    texts = [line.text for line in reading.lines]
    # The title, the field's hint and the Chinese message (the engine reads Chinese script too).
    assert {"Local Agent", "Type a message...", "你能做什么"} <= set(texts)
    assert score.recovered >= 0.5 * score.labels, score.missed
    assert score.centred == score.recovered
    assert reading.size.width == 1080 and reading.size.height == 2400


def test_the_engine_reads_without_the_network(observer: ScreenObserver, monkeypatch: pytest.MonkeyPatch) -> None:
    """The models are files of the installed wheel: loading and reading open no connection."""
    models = sorted(p.name for p in (Path(rapidocr.__file__).parent / "models").glob("*.onnx"))
    assert any("det" in m for m in models) and any("rec" in m for m in models)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the OCR engine tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    png, _ = sim_screen("settings_roaming_off", 1)
    assert any(line.text == "Network & internet" for line in ScreenObserver("rapidocr").read(png).lines)


def test_tesseract_reads_the_sim_too() -> None:
    import shutil

    if shutil.which("tesseract") is None:
        pytest.skip("Debian's tesseract-ocr is not installed (the alternative engine; apt-get install tesseract-ocr)")
    png, truth = sim_screen("settings_roaming_off", 2)
    _, score = read(ScreenObserver("tesseract"), png, truth)
    assert score.recovered >= 0.8 * score.labels, score.missed


def test_a_dialog_is_read_alone_with_its_choices(observer: ScreenObserver) -> None:
    png, truth = sim_screen("settings_private_dns_on", 3)  # the Private DNS dialog over the dimmed list
    reading, score = read(observer, png, truth)
    text = describe(clean_tree(reading.tree))
    # The rows behind the scrim are not read; the dialog's choices are radio buttons with their states.
    assert "Network & internet" not in text and "Adaptive connectivity" not in text
    assert "  a radio button that is checked\n  a text \"Off\"" in text
    assert "  a radio button that is not checked\n  a text \"Automatic\"" in text
    assert score.recovered == score.labels
