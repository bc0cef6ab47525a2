"""Issue 23 acceptance: hostile text from screens and models through run, show, describe, report and export.

Hypothesis writes the labels and content descriptions of every screen the phone shows, the goal and every
model answer, from Rich and HTML markup, control characters, path tricks and non-BMP text; one fixed
example makes them huge. Each example runs ``latent-agent run`` on the simulated phone whose screens carry
those labels, answered by the scripted model, then ``show``, ``describe`` (a recorded screen), ``report``
(the episode planted in a recorded sweep) and ``annotate export`` on its folders, and holds every command
to: no crash, an end record, nothing written outside its output folder, the untrusted text printed
literally and never as terminal control, and no script run by any page it wrote (each is opened in
headless Chromium, where a payload that ran would set a marker).

The screens are AndroidEnv forests (protobuf): unlike a uiautomator dump (XML 1.0), they carry every
control character, NUL and ESC included, as an app on a real device could send them.

The examples are few, fixed (derandomized, no example database) and bounded in size: the test runs the
real commands end to end, each example takes seconds, and a run's length must not depend on luck.
Shrinking is left out for the same reason; a failure prints the example that failed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from latent_agent.accessibility.load import parse_any
from latent_agent.agent.episode import MAX_GOAL_CHARS
from latent_agent.agent.trajectory import TRAJECTORY_FILE
from latent_agent.cli.main import main
from latent_agent.cli.plain import safe_line
from latent_agent.cli.run import _shorten
from latent_agent.device.base import Hierarchy
from latent_agent.device.sim.device import SimDevice

from .accessibility.forests import forest_bytes
from .browser import chromium, offline_only

#: What a page's script would do if a payload ran: set this global and the title.
MARKER = "window.__pwned=1;document.title='PWNED'"
#: Markup that runs the marker's script wherever a page writes it unescaped.
PAYLOADS = (f"<script>{MARKER}</script>", f'<img src=x onerror="{MARKER}">', f"<svg onload=\"{MARKER}\">",
            f"<details open ontoggle=\"{MARKER}\">")
PIECES = (
    "[/red]", "[/INST]", "[link=https://x.example]y[/link]", "[bold]", "[/]", "[red]x", "\\[x]",
    *PAYLOADS, "javascript:" + MARKER, "</script>", "</textarea>", "</title>", "-->", "<!--", "'\"><b>",
    "{{7*7}}", "${x}", "&amp;", "&#x3c;",
    "../../../../escaped", "/tmp/escaped", "C:\\escaped", "~/escaped",
    "\x1b[31m", "\x1b]8;;https://x.example\x1b\\", "\x1b]0;title\x07", "\x00", "\x07", "\x08", "\x7f", "\x9b",
    "\x85", "\u2028", "\u202e", "\ufeff", "\ud7ff", "\U0001f600", "\U0001d54f", "\U0010fffd", "\u0301",
    "\n", "\t", "\r",
)
#: Characters of hostile text besides the pieces: any code point but lone surrogates (no UTF-8 file or
#: protobuf string can hold one; a screen or a model cannot send it).
CHARACTERS = st.characters(exclude_categories=["Cs"])
#: The one huge text: five times a label's cap of 4,000 characters, every kind of piece repeated.
HUGE = ("".join(PIECES) * 400)[:20_000]
#: What a goal starts with: words the agent can act on (the hostile text follows).
GOAL = "Turn off data roaming "
#: Control characters that must never reach the terminal (newline and tab only lay text out).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def hostile() -> st.SearchStrategy[str]:
    """A hostile text: a few pieces and short runs of any characters."""
    return st.lists(st.one_of(st.sampled_from(PIECES), st.text(CHARACTERS, max_size=8)),
                    min_size=1, max_size=6).map("".join)


class LabelledPhone(SimDevice):
    """The simulated phone, each screen sent with the given labels (as an app nobody here controls would)."""

    def __init__(self, labels: list[str]) -> None:
        super().__init__()
        self.labels = labels

    def hierarchy(self) -> Hierarchy:
        turn = itertools.cycle(self.labels)
        raw = forest_bytes(super().hierarchy().tree, lambda _old: next(turn))
        return Hierarchy(raw=raw, format="androidenv", tree=parse_any(raw, source="labelled phone"))


def _answers(texts: list[str]) -> list[str]:
    """The scripted model's replies: the hostile texts, also inside answers the grounder accepts."""
    shaped = [json.dumps({"action_type": "input_text", "text": t, "x": 540, "y": 400}) for t in texts]
    return ([*shaped, *texts] * 30)[:30]  # more than two steps ask for: the run ends at its step limit


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def _load(page: Any, path: Path) -> None:
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(20)  # an image's onerror and a frame's script run after load at the latest


def _script_ran(page: Any) -> bool:
    return page.evaluate("window.__pwned") is not None or page.title() == "PWNED"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium, checked to see the marker of a payload written into a page unescaped."""
    bare = tmp_path_factory.mktemp("unescaped") / "page.html"
    with chromium() as launched:
        context = launched.new_context()
        offline_only(context)
        page = context.new_page()
        for piece in PAYLOADS:  # written raw, as an escaping fault would
            bare.write_text(f"<!doctype html><title>t</title><p>{piece}</p>", encoding="utf-8")
            _load(page, bare)
            assert _script_ran(page), piece
        context.close()
        yield launched


def _no_script_ran(browser: Any, pages: list[Path]) -> None:
    context = browser.new_context()
    offline_only(context)
    try:
        page = context.new_page()
        seen: set[bytes] = set()
        for path in pages:
            digest = hashlib.sha256(path.read_bytes()).digest()
            if digest in seen:  # a copy of a page already looked at (the episode's own, in the sweep)
                continue
            seen.add(digest)
            _load(page, path)
            assert not _script_ran(page), path
    finally:
        context.close()


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded sweep of one episode, in which each example plants its own."""
    out = tmp_path_factory.mktemp("fuzz_sweep") / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", "clock_digital", "--devices", "sim", "--llm", "scripted:echo",
                 "--out", str(out), "--runner", "tests.benchmarks.runners:plus_wins", "--no-progress",
                 "--methods", "zero-shot+", "--seeds", "1", "--no-screenshots"]) == 0
    return out


def _cli(argv: list[str]) -> tuple[int, str]:
    """``latent-agent ARGV`` in this process: (exit status, what it printed), checked for terminal control.

    It runs in a thread of its own: Playwright's synchronous API keeps an event loop running in this one,
    and the command runs its own.
    """
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), ThreadPoolExecutor(1) as pool:
        status = pool.submit(main, argv).result()
    printed = out.getvalue()
    assert "Traceback" not in printed, printed
    assert not CONTROL.search(printed), (argv[0], CONTROL.findall(printed))
    return status, printed


def _plant(sweep: Path, root: Path, episode: Path, goal: str, error: str) -> Path:
    """A copy of ``sweep`` whose one episode is ``episode``, its results line carrying ``goal`` and ``error``."""
    planted = Path(shutil.copytree(sweep, root / "sweep"))
    line = json.loads((planted / "results.jsonl").read_text(encoding="utf-8").split("\n")[0])
    target = planted / line["trajectory"]
    shutil.rmtree(target)
    shutil.copytree(episode, target)
    line.update(goal=goal, error=error, error_kind="llm" if error else "")
    (planted / "results.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    return planted


@settings(max_examples=8, deadline=None, derandomize=True, database=None, print_blob=True,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(labels=st.lists(hostile(), min_size=1, max_size=4), goal=hostile(),
       answers=st.lists(hostile(), min_size=1, max_size=3))
# A longer goal is refused before the run starts (test_episode.py): the huge one is as long as is accepted.
@example(labels=[HUGE, "Network & internet", "\x1b[2J", "ok"], goal=HUGE[:MAX_GOAL_CHARS - len(GOAL)],
         answers=[HUGE, "[/INST]"])
def test_hostile_text_through_run_show_describe_report_and_export(browser: Any, sweep: Path, labels: list[str],
                                                                  goal: str, answers: list[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    goal = GOAL + goal
    with tempfile.TemporaryDirectory() as tmp, monkeypatch.context() as patch:
        top = Path(tmp)
        # The commands run three folders down, so a path climbing out of their outputs ("../..") still
        # lands where the test looks; HOME is here too, for anything written under "~".
        root = top / "a" / "b" / "work"
        root.mkdir(parents=True)
        patch.chdir(root)  # a default output folder would land here, and be seen
        patch.setenv("HOME", str(top / "home"))
        patch.setenv("COLUMNS", "1000")  # no wrapping: the goal's line is checked whole
        replies = top / "inputs" / "replies.json"
        replies.parent.mkdir()
        replies.write_text(json.dumps(_answers(answers), ensure_ascii=False), encoding="utf-8")
        patch.setattr("latent_agent.device.spec.load_device", lambda text, noise=None: LabelledPhone(labels))
        before = _files(top)
        absolute = Path("/tmp/escaped")  # where the absolute path among the pieces points
        was_there = absolute.exists()

        episode = root / "episode"
        status, printed = _cli(["run", goal, "--device", "sim", "--llm", f"scripted:{replies}", "--max-steps", "2",
                                "--out", str(episode)])
        assert status in (0, 3), printed  # finished, or a recorded stop on the model's account; never a crash
        # Split at newlines only: U+2028 and U+0085 stand unescaped inside the JSON values.
        lines = (episode / TRAJECTORY_FILE).read_text(encoding="utf-8").split("\n")
        records = [json.loads(line) for line in lines if line]
        assert records[-1]["record"] == "end", records[-1]
        assert safe_line(_shorten(goal)) in printed  # the goal as typed, its markup and controls shown

        assert _cli(["show", str(episode)])[0] == 0
        steps = [r for r in records if r["record"] == "step"]
        assert steps, records
        screen = str(episode / steps[0]["screen_file"])  # the first step's dump, as the phone sent it
        status, shown = _cli(["describe", screen])
        assert status == 0, shown
        status, shown = _cli(["describe", screen, "--format", "json"])
        assert status == 0 and isinstance(json.loads(shown), list), shown

        planted = _plant(sweep, root, episode, goal, answers[0])
        status, printed = _cli(["report", str(planted)])
        assert status == 0, printed
        forms = root / "forms"
        status, printed = _cli(["annotate", "export", str(episode), "--kind", "latent", "--out", str(forms)])
        assert status == 0, printed

        written = _files(top) - before
        # Besides the three outputs, only the chart library's font cache, which it builds once under any HOME.
        outputs = ("a/b/work/episode/", "a/b/work/sweep/", "a/b/work/forms/", "home/.cache/matplotlib/")
        assert not [p for p in written if not p.startswith(outputs)], written
        assert absolute.exists() == was_there
        pages = [top / p for p in sorted(written) if p.endswith(".html")]
        assert episode / "episode.html" in pages and planted / "report" / "report.html" in pages
        assert any(forms in p.parents for p in pages), pages
        assert any(p.parent == planted / "report" / "episodes" for p in pages), pages
        _no_script_ran(browser, pages)
