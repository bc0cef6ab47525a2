"""``latent-agent describe``: formats, stdin, and one clear line on bad input."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

import latent_agent.accessibility.parse_androidenv as androidenv
from latent_agent.accessibility.load import load_tree
from latent_agent.accessibility.stats import screen_stats
from latent_agent.cli import main
from tests.accessibility.screens import DATA, real_xml_screens

SCREEN = DATA / "appium_page_sources/shirates-core/settings_network_and_internet.xml"


def test_nl_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", str(SCREEN)]) == 0
    out = capsys.readouterr().out
    assert 'a switch with the text "OFF" that is off' in out


def test_json_format_is_the_grounder_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", str(SCREEN), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"text": "Airplane mode", "center": [340, 693], "size": [285, 59]} in rows


def test_stats_format_lists_every_representation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", str(SCREEN), "--format", "stats"]) == 0
    out = capsys.readouterr().out
    for name in ("raw dump", "JSON of all nodes", "AndroidWorld element list", "description (ours)",
                 "grounder list (ours)"):
        assert name in out


def entry_point() -> list[str]:
    exe = shutil.which("latent-agent", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "latent_agent.cli"]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"\x00\x01garbage\xfe\xff" * 20, "neither an XML screen dump"),
        (b"<hierarchy><node class='a' bounds='[1,2][3]'/></hierarchy>", "bad bounds"),
        (b"<hierarchy><node class='a'", "truncated XML"),
        (b"", "empty input"),
        (b"<hierarchy>" + b"<node class='a.B' bounds='[0,0][9,9]'>" * 300 + b"</node>" * 300 + b"</hierarchy>",
         "nested deeper than 256 levels"),
    ],
    ids=["binary", "bad-bounds", "truncated", "empty", "too-deep"],
)
def test_bad_input_exits_nonzero_with_one_line_and_no_traceback(tmp_path: Path, content: bytes,
                                                                  needle: str) -> None:
    f = tmp_path / "screen.xml"
    f.write_bytes(content)
    proc = subprocess.run([*entry_point(), "describe", str(f)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("latent-agent: error: ") and needle in lines[0]
    assert "Traceback" not in proc.stderr
    assert len(lines[0]) < 300, "one short line, not a 2 KB node path"
    assert "Wire format" not in proc.stderr  # protobuf's words mean nothing to someone who passed a wrong file


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", str(tmp_path / "nope.xml")]) == 2
    assert main(["describe", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("nope.xml: no such file")
    assert err[1].endswith("is a directory, expected a screen dump file")


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    class Stdin:
        buffer = io.BytesIO(SCREEN.read_bytes())

    monkeypatch.setattr(sys, "stdin", Stdin)
    assert main(["describe", "-"]) == 0
    assert "Airplane mode" in capsys.readouterr().out


def test_token_targets_over_real_screens() -> None:
    """Median description tokens: <= 25% of the raw dump and <= 50% of AndroidWorld's element list."""
    raw_ratio, aw_ratio = [], []
    for path in real_xml_screens():
        reps = {r.name: r for r in screen_stats(path.read_text(encoding="utf-8"), load_tree(path))}
        desc = reps["description (ours)"].tokens
        raw_ratio.append(desc / reps["raw dump"].tokens)
        aw_ratio.append(desc / reps["AndroidWorld element list"].tokens)
    assert statistics.median(raw_ratio) <= 0.25
    assert statistics.median(aw_ratio) <= 0.50


@pytest.mark.parametrize("content", [b"# latent-agent\n\nREADME text\n", b"\n# a README after a blank line\n",
                                     b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b'{"not": "a screen"}'])
def test_a_file_that_is_no_forest_is_refused_without_the_forest_parser(
        content: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Without the androidenv extra, reaching the forest parser says the extra is missing: a README, a
    # picture or a JSON file must be answered for what it is before that.
    def missing(*args: object, **kwargs: object) -> None:
        raise AssertionError("the forest parser was reached")

    monkeypatch.setattr(androidenv, "_forest_class", missing)
    path = tmp_path / "README.md"
    path.write_bytes(content)
    assert main(["describe", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("neither an XML screen dump (uiautomator / Appium) nor an AndroidEnv accessibility forest")
    assert len(err.splitlines()) == 1
