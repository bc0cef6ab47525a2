"""Issue 23 item 1: untrusted text is plain text on the terminal (no Rich markup, no links, no control)."""

from __future__ import annotations

import json
from pathlib import Path

from latent_agent.agent.trajectory import TRAJECTORY_FILE
from latent_agent.cli.plain import plain, safe_line

from .helpers import cli

#: What models emit now and then: closing tags with no opener, a link, an ESC sequence.
HOSTILE = "[/red] [/INST] [link=https://x.example]y[/link] \x1b[31mred"


def test_a_run_whose_model_answers_in_markup_prints_it_literally_and_ends(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([HOSTILE] * 60), encoding="utf-8")
    out = tmp_path / "episode"
    # FORCE_COLOR: Rich renders styles and links as it would on a terminal, so a live link would show.
    done = cli("run", f"Turn off data roaming {HOSTILE[:14]}", "--device", "sim", "--llm", f"scripted:{replies}",
               "--max-steps", "2", "--no-screenshots", "--out", str(out),
               env={"FORCE_COLOR": "1", "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    records = [json.loads(line) for line in (out / TRAJECTORY_FILE).read_text(encoding="utf-8").splitlines()]
    assert records[-1]["record"] == "end" and records[-1]["stop_reason"] == "max_steps"
    assert "Turn off data roaming [/red] [/INST]" in done.stdout  # the goal, as typed
    assert "[/red] [/INST] [link=https://x.example]y[/link] \\x1b[31mred" in done.stdout  # the model's answers
    assert "\x1b]8;" not in done.stdout  # no hyperlink escape (OSC 8) anywhere
    assert "\x1b[31mred" not in done.stdout  # the model's ESC sequence is shown, never sent


def test_plain_reads_no_markup_and_shows_control_characters() -> None:
    text = plain("[bold]x[/bold] [/INST] a\x07b\x9bc\td\ne", "red")
    assert text.plain == "[bold]x[/bold] [/INST] a\\x07b\\x9bc\td\ne"
    assert not text.spans and str(text.style) == "red"
    assert safe_line("\x1b]8;;https://x\x1b\\y") == "\\x1b]8;;https://x\\x1b\\y"
