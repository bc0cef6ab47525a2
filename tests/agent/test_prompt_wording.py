"""Changing any prompt's wording breaks only its golden test, never ``run --llm demo``.

Every template is copied with every instruction sentence altered (each word of the literal text reversed,
"Summarize the screen" -> "ezirammuS eht neercs") while its variables, tags and logic stay as they are. With
the renderer reading those copies, the golden prompts all differ, and the demo still completes sim tasks with
every method and grounder: its oracle answers from each call's declared purpose and structured inputs, never
from the prompt's text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
import pytest

from latent_agent.agent.methods import METHODS
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.cli import main
from latent_agent.prompts import render as render_module
from tests.agent.test_prompts_golden import GOLDEN, PROMPTS, slug

TEMPLATES = Path(render_module.__file__).parent / "templates"
# Jinja2's expression, statement and comment tags; everything between them is the template's literal text.
_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_WORD = re.compile(r"[A-Za-z]{2,}")


def reword(source: str) -> str:
    """``source`` with every word of its literal text reversed, the tags untouched."""
    out: list[str] = []
    at = 0
    for tag in _TAG.finditer(source):
        out.append(_WORD.sub(lambda m: m.group(0)[::-1], source[at:tag.start()]))
        out.append(tag.group(0))
        at = tag.end()
    out.append(_WORD.sub(lambda m: m.group(0)[::-1], source[at:]))
    return "".join(out)


@pytest.fixture
def reworded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The renderer reads reworded copies of every template."""
    folder = tmp_path / "templates"
    folder.mkdir()
    for template in TEMPLATES.glob("*.j2"):
        source = template.read_text(encoding="utf-8")
        changed = reword(source)
        assert changed != source and _TAG.findall(changed) == _TAG.findall(source), template.name
        (folder / template.name).write_text(changed, encoding="utf-8")
    original = render_module.environment()
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined, trim_blocks=original.trim_blocks,
        lstrip_blocks=original.lstrip_blocks, keep_trailing_newline=original.keep_trailing_newline, autoescape=False)
    monkeypatch.setattr(render_module, "environment", lambda: environment)
    return folder


def test_rewording_keeps_the_tags_and_changes_the_text() -> None:
    source = "Summarize {{ x }} the {% if y %}screen{% endif %}. {# a note #}"
    assert reword(source) == "ezirammuS {{ x }} eht {% if y %}neercs{% endif %}. {# a note #}"


def test_every_golden_prompt_notices_the_rewording(reworded: Path) -> None:
    for name, build in PROMPTS.items():
        assert build() != (GOLDEN / f"{slug(name)}.txt").read_text(encoding="utf-8"), name


@pytest.mark.parametrize("method", sorted(METHODS))
def test_run_demo_completes_with_every_method_despite_the_rewording(method: str, reworded: Path,
                                                                      tmp_path: Path) -> None:
    out = tmp_path / "ep"
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", method,
                 "--no-screenshots", "--out", str(out)]) == 0
    t = read_trajectory(out)
    assert t.end is not None and t.end.stop_reason in (StopReason.COMPLETED, StopReason.DONE), t.end
    prompts = [c.prompt for s in t.steps for c in s.calls]
    assert prompts and all("eht" in p for p in prompts)  # the reworded templates were the ones sent


@pytest.mark.parametrize("grounder", ["paper", "paper-history", "llm", "hybrid"])
def test_a_demo_sweep_succeeds_on_sim_tasks_with_every_method_despite_the_rewording(
        grounder: str, reworded: Path, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "settings_roaming_off,qs_flashlight_on", "--methods", "all",
                 "--grounder", grounder, "--devices", "sim", "--llm", "demo", "--out", str(out), "--no-progress",
                 "--no-screenshots"]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    # Without --demos, the CAAP variants that show demonstrations are left out (they would run as those showing none).
    assert len(records) == 2 * len(set(METHODS) - {"caap", "caap-no-cot", "caap-no-rationales"})
    assert all(r["success"] is True for r in records), [(r["task_id"], r["method"]) for r in records]
