"""Issue 23 item 1, the plainly printed commands: ``describe``, ``sim screen`` and ``memory show`` show a
screen's labels, and a memory's goals and words, with their control characters visible, never sent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from latent_agent.accessibility.load import parse_any
from latent_agent.benchmarks.harvest import build_memory, harvest
from latent_agent.cli.main import main
from latent_agent.cli.plain import safe_json
from latent_agent.device.base import DeviceCapabilities, Hierarchy
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.spec import BACKENDS, Backend
from latent_agent.errors import DeviceError
from latent_agent.llm.embed.hashing import HashingEmbedder

from ..accessibility.forests import forest_bytes

#: An OSC 8 hyperlink around a word, a screen clear, an 8-bit CSI, a bell: what a hostile label sends.
LINK = "\x1b]8;;https://x.example\x1b\\Wi-Fi\x1b]8;;\x1b\\ \x1b[2J\x9b31m\x07"
#: The same as the terminal must show it.
SHOWN = "\\x1b]8;;https://x.example\\x1b\\Wi-Fi\\x1b]8;;\\x1b\\ \\x1b[2J\\x9b31m\\x07"
#: What must never reach the terminal (newline and tab only lay text out).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _printed(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert not CONTROL.search(out), CONTROL.findall(out)
    return out


def test_describe_shows_a_labels_escape_sequences_and_its_json_reads_back_the_label(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "screen.pb"
    dump.write_bytes(forest_bytes(SimDevice().hierarchy().tree, lambda old: LINK if old == "Settings" else old))
    assert SHOWN in _printed(capsys, ["describe", str(dump)])
    rows = json.loads(_printed(capsys, ["describe", str(dump), "--format", "json"]))
    assert LINK in [row.get("text") or row.get("description") for row in rows]


def test_safe_json_escapes_what_json_dumps_leaves_raw() -> None:
    text = json.dumps(["a\x9bb\x7f", "\x1b"], ensure_ascii=False)
    assert "\x9b" in text  # json.dumps writes C1 controls as they are
    assert safe_json(text) == '["a\\u009bb\\u007f", "\\u001b"]'
    assert json.loads(safe_json(text)) == ["a\x9bb\x7f", "\x1b"]


def test_sim_screen_shows_a_labels_control_characters_in_both_formats(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # XML 1.0 holds C1 controls and DEL but no ESC: the dump a phone could send carries these.
    label = "Net\x9b31mwork\x7f"
    sim_hierarchy = SimDevice.hierarchy

    def relabelled(self: SimDevice) -> Hierarchy:
        raw = sim_hierarchy(self).raw.replace(b"Network &amp; internet", label.encode())
        return Hierarchy(raw=raw, format="uiautomator", tree=parse_any(raw))

    monkeypatch.setattr(SimDevice, "hierarchy", relabelled)
    assert "Net\\x9b31mwork\\x7f" in _printed(capsys, ["sim", "screen", "--app", "settings"])
    assert "Net\\x9b31mwork\\x7f" in _printed(capsys, ["sim", "screen", "--app", "settings", "--format", "nl"])


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A memory of one exemplar whose goal, words and screen were rewritten to hold escape sequences, as
    a memory folder copied from someone else could."""
    root = tmp_path_factory.mktemp("memory")
    sweep = root / "sweep"
    assert main(["sweep", "--suite", "sim", "--methods", "zero-shot+", "--devices", "sim", "--llm", "demo",
                 "--tasks", "settings_roaming_off", "--out", str(sweep), "--no-progress", "--no-screenshots"]) == 0
    out = root / "M"
    build_memory(harvest([sweep]), HashingEmbedder()).save(out)
    exemplars = out / "exemplars.jsonl"
    obj = json.loads(exemplars.read_text(encoding="utf-8"))
    obj["goal"] = f"Turn off roaming {LINK}"
    obj["pieces"][0]["screen"] += f"\n{LINK}"
    obj["pieces"][0]["steps"][0]["words"] = f"Tap {LINK}"
    exemplars.write_text(json.dumps(obj, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def test_memory_show_prints_goals_words_and_screens_with_escapes_visible(
        memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = _printed(capsys, ["memory", "show", str(memory)])
    assert f"Turn off roaming {SHOWN}" in listed
    exemplar = listed.split("\t")[0]
    shown = _printed(capsys, ["memory", "show", str(memory), exemplar, "--screens"])
    assert f"goal: Turn off roaming {SHOWN}" in shown
    assert f"- Tap {SHOWN}  ->" in shown and f"    | {SHOWN}" in shown


def _unreachable(arg: str, noise: object = None) -> SimDevice:
    # What a phone, or the manifest naming it, can put in the reason its slot is retired.
    raise DeviceError(f"{LINK} is not answering")


def test_sweeps_device_lines_show_their_control_characters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(BACKENDS, "hostile", Backend("hostile:NAME", True, _unreachable,  # type: ignore[arg-type]
                                                     DeviceCapabilities(remote=True)))
    assert main(["sweep", "--suite", "sim", "--tasks", "clock_*", "--devices", "sim,hostile:x",
                 "--llm", "scripted:echo", "--runner", "tests.benchmarks.runners:solve", "--methods", "zero-shot+",
                 "--out", str(tmp_path / "sweep"), "--no-progress", "--no-preflight"]) == 0
    captured = capsys.readouterr()
    retired = [line for line in captured.err.splitlines() if line.startswith("device retired: hostile:x")]
    assert retired and SHOWN in retired[0], captured.err
    assert not CONTROL.search(captured.out + captured.err), CONTROL.findall(captured.out + captured.err)
