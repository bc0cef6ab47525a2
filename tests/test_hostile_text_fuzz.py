"""Issues 23 and 29 acceptance: hostile text and hostile paths, from screens, models and copied folders,
through every command that reads them.

Hypothesis writes the labels and content descriptions of every screen the phone shows, the goal, every model
answer and a method name, from Rich and HTML markup, control characters, path tricks and non-BMP text; and
it chooses the paths a copied folder names: an episode's key and trajectory in ``results.jsonl``, a step's
screenshot and screen dump, each a plain one or one that climbs out, is absolute, goes through a link
planted in the folder, or holds a NUL; and whether the folder's ``report/`` is a link to another folder.
One fixed example makes the text huge.

Each example runs ``latent-agent run`` on the simulated phone whose screens carry those labels, answered by
the scripted model, then ``show`` and ``describe`` on what it recorded, and, on a copy of a recorded sweep
with the episode planted in it (its results line naming the chosen paths, and a second line of a MiniWoB++
paper's method, so the report's papers section reads it too): ``report``, ``memory build``, ``demos build``,
``annotate export``, ``import`` and ``score``. Every command is held to:

* exit as expected (a refusal is one line, exit status 2), never a crash;
* nothing printed as terminal control;
* no file created, changed or deleted outside its own output folder (the whole temporary tree, ``HOME``
  inside it, is hashed before and after each command), and no file opened inside the folder the tricks
  point to (every ``open`` is seen by an audit hook);
* report.md holds the copied text as text (no raw HTML, links or controls);
* no script run by any page it wrote (each opened in headless Chromium, where a payload that ran would set a
  marker, checked first on a page with the payloads written raw);

and the run to its end record, its goal shown as typed and, for the huge example, a bound on what it wrote.
A second property runs MiniWoB++ pages whose text is hostile and answers that type it, and holds the page to
running no script and opening no connection.

Each assertion is shown to fail on a planted defect (the tests at the end): the ``path_inside`` call of the
sweep's trajectory reader taken out, the checks of the report's episode names, the refusal of links, the
terminal's, the page's and report.md's escaping, the end record, the labels' cap; and, for the pages, a page
writing its text as markup and a browser without its WebSocket route and launch flags.

The examples are few, fixed (derandomized, no example database) and bounded in size: the test runs the real
commands end to end, each example takes seconds, and a run's length must not depend on luck. Shrinking is
left out for the same reason; a failure prints the example that failed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from latent_agent.accessibility import text_cap
from latent_agent.accessibility.load import parse_any
from latent_agent.agent.episode import MAX_GOAL_CHARS
from latent_agent.agent.trajectory import TRAJECTORY_FILE
from latent_agent.annotation.answers import AnswerSet, answers_to_json
from latent_agent.annotation.forms import load_manifest
from latent_agent.benchmarks.launch import shorten as _shorten
from latent_agent.cli.main import main
from latent_agent.cli.plain import safe_line
from latent_agent.device.base import Hierarchy
from latent_agent.device.miniwob.browser import PAGES_ENV
from latent_agent.device.miniwob.device import MiniWobDevice
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import ConfigError, DeviceError

from .accessibility.forests import forest_bytes
from .browser import chromium, offline_only
from .listener import Listener, listening

#: What a page's script would do if a payload ran: set this global and the title.
MARKER = "window.__pwned=1;document.title='PWNED'"
#: Markup that runs the marker's script wherever a page writes it unescaped.
PAYLOADS = (f"<script>{MARKER}</script>", f'<img src=x onerror="{MARKER}">', f"<svg onload=\"{MARKER}\">",
            f"<details open ontoggle=\"{MARKER}\">")
#: Markup that would open a connection (to the listener of the MiniWoB++ property) if it were read as markup.
CONNECTING = ("<img src='http://127.0.0.1:{port}/img'>", "<script>new WebSocket('ws://127.0.0.1:{port}/')</script>",
              "<img src=x onerror=\"new WebSocket('ws://127.0.0.1:{port}/')\">")
PIECES = (
    "[/red]", "[/INST]", "[link=https://x.example]y[/link]", "[bold]", "[/]", "[red]x", "\\[x]",
    *PAYLOADS, *CONNECTING, "javascript:" + MARKER, "</script>", "</textarea>", "</title>", "-->", "<!--",
    "'\"><b>", "{{7*7}}", "${x}", "&amp;", "&#x3c;", "[x](javascript:alert(1))", "| a | b |",
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
#: The training task the recorded sweep ran, whose episode each example replaces with its own.
TASK = "settings_roaming_off"
#: The goal of the episode the path tricks point to, outside every folder a command was given.
SECRET = "Turn off data roaming SECRET-ELSEWHERE"

#: What each path a copied folder names can be: the one the project wrote, or a trick. The tricks are
#: symbolic here; :class:`Tree` turns them into paths toward the folder ``elsewhere``.
PATH_KINDS = ("plain", "climbing", "absolute", "linked", "nul", "empty", "dots", "windows", "home")
#: What a key can be besides the one the sweep wrote.
KEY_KINDS = ("plain", "climbing", "absolute", "nested", "dots", "empty", "long", "markup")
#: The most the run and ``show`` write into one file for the huge example, in bytes. A label is cut at 4,000
#: characters as it is read (``accessibility/text_cap.py``), so each screen records a few times 4,000
#: characters; the largest file, the trajectory, holds them in every step's description and every prompt
#: that quotes it. Measured: 0.6 MB with the cap, 2.8 MB without it.
SIZE_BOUND = 1_500_000


def hostile() -> st.SearchStrategy[str]:
    """A hostile text: a few pieces and short runs of any characters."""
    return st.lists(st.one_of(st.sampled_from(PIECES), st.text(CHARACTERS, max_size=8)),
                    min_size=1, max_size=6).map("".join)


@dataclass(frozen=True)
class Paths:
    """What the copied sweep names: its episode's key and trajectory, the first step's screenshot and dump
    (each a kind of :data:`PATH_KINDS` or :data:`KEY_KINDS`), and whether its ``report/`` is a link."""

    key: str = "plain"
    trajectory: str = "plain"
    screenshot: str = "plain"
    screen: str = "plain"
    linked_report: bool = False


PLAIN = Paths()


def paths() -> st.SearchStrategy[Paths]:
    """The paths of a copied folder: each the project's own half of the time (so the text reaches every page
    and file more often than a refusal stops it), else a trick."""

    def kind(kinds: tuple[str, ...]) -> st.SearchStrategy[str]:
        return st.one_of(st.just("plain"), st.sampled_from(kinds))

    return st.builds(Paths, key=kind(KEY_KINDS), trajectory=kind(PATH_KINDS), screenshot=kind(PATH_KINDS),
                     screen=kind(PATH_KINDS), linked_report=st.sampled_from((False, False, False, True)))


# -- what the commands open: an audit hook sees every open() of the process ---------------------------------


@dataclass
class _Opened:
    """Paths opened while :attr:`watching` (by any thread: the commands run in a thread of their own)."""

    watching: bool = False
    paths: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if self.watching and event == "open" and args and isinstance(args[0], str | bytes | os.PathLike):
            with self.lock:
                self.paths.append(os.fsdecode(args[0]))

    @contextlib.contextmanager
    def watched(self) -> Iterator[list[str]]:
        with self.lock:
            self.paths = []
        self.watching = True
        try:
            yield self.paths
        finally:
            self.watching = False


OPENED = _Opened()
sys.addaudithook(OPENED.hook)  # once per process; it records only while a command runs


# -- the example's folders ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tree:
    """The temporary tree of one example: the commands run three folders down in ``work`` (so a path
    climbing out of their outputs still lands where the test looks), with ``HOME`` inside, beside
    ``elsewhere``, the folder every trick points to (an episode with a goal of its own, a page, a report)."""

    top: Path

    @property
    def work(self) -> Path:
        return self.top / "a" / "b" / "work"

    @property
    def elsewhere(self) -> Path:
        return self.top / "elsewhere"

    def make(self, episode: Path) -> None:
        """Fill ``elsewhere``: a copy of ``episode`` with a goal of its own, a page, a report."""
        outside = Path(shutil.copytree(episode, self.elsewhere / "episode"))
        lines = (outside / TRAJECTORY_FILE).read_text(encoding="utf-8").split("\n")
        header = json.loads(lines[0])
        header["goal"] = header["normalized_goal"] = SECRET
        (outside / TRAJECTORY_FILE).write_text("\n".join([json.dumps(header), *lines[1:]]), encoding="utf-8")
        (self.elsewhere / "page.html").write_text("someone's page\n")
        (self.elsewhere / "report").mkdir()
        (self.elsewhere / "report" / "report.md").write_text("someone's report\n")

    def path(self, kind: str, start: Path, plain: str, target: Path) -> str:
        """The path of ``kind`` a file in ``start`` would name for ``target`` (``plain``: the project's own)."""
        return {
            "plain": plain,
            "climbing": os.path.relpath(target, start),
            "absolute": str(target),
            "linked": linked_name(plain),
            "nul": plain + "\x00x",
            "empty": "",
            "dots": "..",
            "windows": "C:\\escaped",
            "home": "~/escaped",
        }[kind]

    def key(self, kind: str, plain: str, pages: Path) -> str:
        """The key of ``kind`` (``plain``: the sweep's own); a report writes its page in ``pages``."""
        return {"plain": plain, "climbing": os.path.relpath(self.elsewhere / "page", pages),
                "absolute": str(self.elsewhere / "page"), "nested": f"episodes/{plain}", "dots": "..", "empty": "",
                "long": "k" * 300, "markup": "<script>x</script>\x1b[2J"}[kind]


def linked_name(plain: str) -> str:
    """Where a copied folder plants a link beside the file ``plain`` names: ``episodes/linked``,
    ``screens/linked.png``."""
    path = Path(plain)
    return (path.parent / f"linked{path.suffix}").as_posix()


# -- running a command --------------------------------------------------------------------------------------


#: What any command may write besides its outputs: the chart library's font cache, built once under any HOME.
BUILT_ONCE = ("home/.cache/matplotlib",)


def _snapshot(root: Path) -> dict[str, str]:
    """Every file and link under ``root``: its content's hash (a link: where it points)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _changes(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """What differs, by path: created, changed or deleted."""
    out = {p: "created" for p in after.keys() - before.keys()}
    out |= {p: "deleted" for p in before.keys() - after.keys()}
    out |= {p: "changed" for p in before.keys() & after.keys() if before[p] != after[p]}
    return out


@dataclass
class Run:
    """What one command did."""

    status: int
    printed: str
    written: dict[str, str]


def _cli(tree: Tree, argv: Sequence[str], outputs: Sequence[str], statuses: Sequence[int] = (0,)) -> Run:
    """``latent-agent ARGV`` in this process, held to the rules of the module docstring.

    Args:
        tree: The example's tree.
        argv: The command.
        outputs: Paths (relative to the tree's top) under which it may create, change or delete files.
        statuses: The exit statuses it may end with (2: a refusal, in one line).

    It runs in a thread of its own: Playwright's synchronous API keeps an event loop running in this one,
    and the command runs its own.
    """
    out = io.StringIO()
    before = _snapshot(tree.top)
    with OPENED.watched() as opened, contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
            ThreadPoolExecutor(1) as pool:
        status = pool.submit(main, list(argv)).result()
    printed = out.getvalue()
    written = _changes(before, _snapshot(tree.top))
    assert "Traceback" not in printed, printed
    assert status in statuses, (argv[:2], status, printed[-2000:])
    if status == 2:
        errors = [line for line in printed.splitlines() if line.startswith("latent-agent: error:")]
        assert len(errors) == 1, ("a refusal in one line", printed[-2000:])
    assert not CONTROL.search(printed), ("terminal control printed", argv[:2], CONTROL.findall(printed)[:5])
    allowed = tuple(p.rstrip("/") + "/" for p in (*outputs, *BUILT_ONCE))
    outside = {p: what for p, what in written.items() if not (p + "/").startswith(allowed)}
    assert not outside, ("wrote outside its output", argv[:2], outside)
    elsewhere = os.path.realpath(tree.elsewhere)
    read = sorted({p for p in opened if os.path.realpath(p).startswith(elsewhere + os.sep)})
    assert not read, ("read outside its input", argv[:2], read)
    return Run(status, printed, written)


# -- planting the episode in a copied sweep -----------------------------------------------------------------


def _plant(sweep: Path, tree: Tree, episode: Path, goal: str, error: str, method: str, choice: Paths) -> Path:
    """A copy of ``sweep`` whose one episode is ``episode``, its results line carrying ``goal``, ``error`` and
    ``method`` and naming the paths ``choice`` says, and a second line (a MiniWoB++ paper's method) naming the
    same trajectory, which the report's papers section reads."""
    planted = Path(shutil.copytree(sweep, tree.work / "sweep"))
    line = json.loads((planted / "results.jsonl").read_text(encoding="utf-8").split("\n")[0])
    target = planted / line["trajectory"]
    shutil.rmtree(target)
    shutil.copytree(episode, target)
    (planted / linked_name(line["trajectory"])).symlink_to(tree.elsewhere / "episode", target_is_directory=True)
    # The first step's files, as the copied trajectory names them.
    lines = (target / TRAJECTORY_FILE).read_text(encoding="utf-8").split("\n")
    records = [json.loads(text) for text in lines if text]
    step = next(r for r in records if r["record"] == "step")
    for name, kind in (("screenshot_file", choice.screenshot), ("screen_file", choice.screen)):
        if step.get(name):
            theirs = tree.elsewhere / "episode" / step[name]
            (target / linked_name(step[name])).symlink_to(theirs)
            step[name] = tree.path(kind, target, step[name], theirs)
    (target / TRAJECTORY_FILE).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                                          encoding="utf-8")
    trajectory = tree.path(choice.trajectory, planted, line["trajectory"], tree.elsewhere / "episode")
    key = tree.key(choice.key, line["key"], planted / "report" / "episodes")
    line.update(goal=goal, error=error, error_kind="llm" if error else "", method=method, key=key,
                trajectory=trajectory)
    paper = {**line, "suite": "miniwob-papers", "task_id": "click-button", "method": "exemplars-task",
             "key": f"click-button__exemplars-task__s{line['seed']}", "raw_reward": 1.0, "success": True}
    (planted / "results.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in (line, paper)),
                                           encoding="utf-8")
    if choice.linked_report:
        (planted / "report").symlink_to(tree.elsewhere / "report", target_is_directory=True)
    return planted


def _answers(texts: list[str]) -> list[str]:
    """The scripted model's replies: the hostile texts, also inside answers the grounder accepts."""
    shaped = [json.dumps({"action_type": "input_text", "text": t, "x": 540, "y": 400}) for t in texts]
    return ([*shaped, *texts] * 30)[:30]  # more than two steps ask for: the run ends at its step limit


def _answer_forms(forms: Path, into: Path, note: str) -> list[Path]:
    """One complete answer file per form and rater, as a form's Save button writes it, with ``note`` as the
    rater's free text on each item."""
    manifest = load_manifest(forms)
    into.mkdir()
    files = []
    for form in manifest.forms:
        answers = {i.item_id: {q.id: q.choices[0].value for q in i.questions} for i in form.items}
        for rater in manifest.raters:
            done = AnswerSet(form.form_id, form.digest, rater, form.episode.episode_id, form.kind,
                             "2024-05-17T10:00:00.000Z", answers, {i.item_id: note for i in form.items})
            path = into / f"{form.form_id}.{rater}.answers.json"
            path.write_text(json.dumps(answers_to_json(done), ensure_ascii=False), encoding="utf-8")
            files.append(path)
    return files


# -- the pages ----------------------------------------------------------------------------------------------


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
            assert not _script_ran(page), ("script ran", path)
    finally:
        context.close()


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded sweep of one training episode, in which each example plants its own."""
    out = tmp_path_factory.mktemp("fuzz_sweep") / "sweep"
    assert main(["sweep", "--suite", "sim", "--tasks", TASK, "--devices", "sim", "--llm", "scripted:echo",
                 "--out", str(out), "--runner", "tests.benchmarks.runners:solve", "--no-progress",
                 "--methods", "zero-shot+", "--seeds", "1", "--no-screenshots"]) == 0
    return out


class LabelledPhone(SimDevice):
    """The simulated phone, each screen sent with the given labels (as an app nobody here controls would)."""

    def __init__(self, labels: list[str]) -> None:
        super().__init__()
        self.labels = labels
        self.sent = 0

    def hierarchy(self) -> Hierarchy:
        self.sent += 1
        turn = itertools.cycle(self.labels)
        raw = forest_bytes(super().hierarchy().tree, lambda _old: next(turn))
        return Hierarchy(raw=raw, format="androidenv", tree=parse_any(raw, source="labelled phone"))


#: Every command an example runs; the planted-defect tests run those their defect concerns.
COMMANDS = ("run", "show", "describe", "report", "memory", "demos", "annotate")


def _example(browser: Any, sweep: Path, labels: list[str], goal: str, answers: list[str], method: str,
             choice: Paths, patch: pytest.MonkeyPatch, *, only: Sequence[str] = COMMANDS,
             huge: bool = False) -> None:
    """Run one example's commands and hold each to the rules of the module docstring (AssertionError)."""
    goal = GOAL + goal
    with tempfile.TemporaryDirectory() as tmp:
        tree = Tree(Path(tmp))
        tree.work.mkdir(parents=True)
        (tree.top / "home").mkdir()
        patch.chdir(tree.work)  # a default output folder would land here, and be seen
        patch.setenv("HOME", str(tree.top / "home"))
        patch.setenv("COLUMNS", "1000")  # no wrapping: the goal's line is checked whole
        replies = tree.top / "inputs" / "replies.json"
        replies.parent.mkdir()
        replies.write_text(json.dumps(_answers(answers), ensure_ascii=False), encoding="utf-8")
        phone = LabelledPhone(labels)
        # The name the command calls: the API imports it at its top, so patching device.spec's would not reach it.
        patch.setattr("latent_agent.api.load_device", lambda text, noise=None: phone)
        absolute = Path("/tmp/escaped")  # where the absolute path among the pieces points
        was_there = absolute.exists()
        work = "a/b/work"

        episode = tree.work / "episode"
        run = _cli(tree, ["run", goal, "--device", "sim", "--llm", f"scripted:{replies}", "--max-steps", "2",
                          "--out", str(episode)], [f"{work}/episode"], (0, 3))  # 3: a stop on the model's account
        # Split at newlines only: U+2028 and U+0085 stand unescaped inside the JSON values.
        lines = (episode / TRAJECTORY_FILE).read_text(encoding="utf-8").split("\n")
        records = [json.loads(line) for line in lines if line]
        assert records[-1]["record"] == "end", ("no end record", records[-1])
        assert phone.sent, "the run observed the labelled phone"  # else no label was ever hostile
        assert safe_line(_shorten(goal)) in run.printed  # the goal as typed, its markup and controls shown
        steps = [r for r in records if r["record"] == "step"]
        assert steps, records
        pages = []
        if "show" in only:
            _cli(tree, ["show", str(episode)], [f"{work}/episode"])
            pages.append(episode / "episode.html")
        if "describe" in only:
            screen = str(episode / steps[0]["screen_file"])  # the first step's dump, as the phone sent it
            _cli(tree, ["describe", screen], [])
            described = _cli(tree, ["describe", screen, "--format", "json"], [])
            assert isinstance(json.loads(described.printed), list), described.printed
        if huge:
            sizes = {p: (episode / p).stat().st_size for p in _snapshot(episode)}
            assert max(sizes.values()) <= SIZE_BOUND, ("size bound", sizes)

        if set(only) & {"report", "memory", "demos", "annotate"}:
            tree.make(episode)
            planted = _plant(sweep, tree, episode, goal, answers[0], method, choice)
            pages += _copied_folder(tree, planted, replies, answers, choice, only)
        assert absolute.exists() == was_there
        _no_script_ran(browser, pages)


def _copied_folder(tree: Tree, planted: Path, replies: Path, answers: list[str], choice: Paths,
                   only: Sequence[str]) -> list[Path]:
    """Run the commands that read the copied sweep; returns the pages they wrote."""
    work = "a/b/work"
    pages: list[Path] = []
    if "report" in only:
        # A plain folder is reported; one naming a path that leads out may be refused, in one line.
        report = _cli(tree, ["report", str(planted)], [f"{work}/sweep/report"],
                      (0,) if choice == PLAIN else (0, 2))
        if report.status == 0:
            markdown = (planted / "report" / "report.md").read_text(encoding="utf-8")
            assert not CONTROL.search(markdown), ("markup in report.md", CONTROL.findall(markdown)[:5])
            raw = re.findall(r"(?<!\\)(?:<[A-Za-z/!]|\]\((?:javascript|data):)", markdown)
            assert not raw, ("markup in report.md", raw[:5])
            pages += sorted((planted / "report").rglob("*.html"))
    if "memory" in only:
        _cli(tree, ["memory", "build", str(planted), "--out", str(tree.work / "memory"), "--embedder", "hash"],
             [f"{work}/memory"], (0, 2))
    if "demos" in only:
        _cli(tree, ["demos", "build", "--from", str(planted), "--llm", f"scripted:{replies}", "--out",
                    str(tree.work / "demos")], [f"{work}/demos"], (0, 2))
    if "annotate" in only:
        forms = tree.work / "forms"
        exported = _cli(tree, ["annotate", "export", str(planted), "--kind", "e2e", "--out", str(forms)],
                        [f"{work}/forms"], (0, 2))
        if exported.status == 0:
            pages += sorted(forms.rglob("*.html"))
            files = _answer_forms(forms, tree.work / "answers", answers[-1])
            scores = tree.work / "scores"
            _cli(tree, ["annotate", "import", str(forms), *map(str, files), "--out", str(scores)],
                 [f"{work}/scores"])
            _cli(tree, ["annotate", "score", str(scores)], [f"{work}/scores"])
    return pages


@settings(max_examples=8, deadline=None, derandomize=True, database=None, print_blob=True,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(labels=st.lists(hostile(), min_size=1, max_size=4), goal=hostile(),
       answers=st.lists(hostile(), min_size=1, max_size=3), method=hostile(), choice=paths())
# A longer goal is refused before the run starts (test_episode.py): the huge one is as long as is accepted.
@example(labels=[HUGE, "Network & internet", "\x1b[2J", "ok"], goal=HUGE[:MAX_GOAL_CHARS - len(GOAL)],
         answers=[HUGE, "[/INST]"], method=HUGE[:300], choice=PLAIN)
# Each trick where nothing else stops the command first: the report and the papers section read the trajectory,
# the episode page, memory building and the forms a step's files.
@example(labels=["Network & internet", "\x1b]0;t\x07"], goal="<script>x</script>", answers=["ok"],
         method="zero-shot+", choice=Paths(trajectory="absolute"))
@example(labels=["Network & internet"], goal="x", answers=["ok"], method="exemplars",
         choice=Paths(screenshot="linked", screen="climbing"))
@example(labels=["Network & internet"], goal="x", answers=["ok"], method="zero-shot+",
         choice=Paths(key="climbing", trajectory="linked", screenshot="absolute", linked_report=True))
def test_hostile_text_and_paths_through_every_command(browser: Any, sweep: Path, labels: list[str], goal: str,
                                                      answers: list[str], method: str, choice: Paths,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        _example(browser, sweep, labels, goal, answers, method, choice, patch, huge=len(goal) > 1000)


# -- MiniWoB++ pages ----------------------------------------------------------------------------------------


#: The MiniWoB++ task the property plays: a form, so typed answers land in its field.
WEB_TASK = "enter-text"


class LabelledPage(MiniWobDevice):
    """A MiniWoB++ page whose every text is replaced, as loaded, by the given labels (as its author could), and
    whose ``close`` is left to the module (each run closes its device).

    Attributes:
        labels: The texts.
        markup: Write them as markup (``innerHTML``): a page that does, or a device that would, runs them.
        loaded: How many times a task was loaded (and labelled).
    """

    def __init__(self, task: str) -> None:
        super().__init__(task)
        self.labels: list[str] = ["ok"]
        self.markup = False
        self.loaded = 0

    def load_task(self, task: str, seed: int) -> str:
        utterance = super().load_task(task, seed)
        self._page.evaluate("([labels, markup]) => { let i = 0; for (const e of document.querySelectorAll("
                            "'#area *, #query')) { if (e.children.length) continue; const text = labels[i++ % "
                            "labels.length]; if (markup) e.innerHTML = text; else e.textContent = text; } }",
                            [self.labels, self.markup])
        self.loaded += 1
        return utterance

    def close(self) -> None:
        pass

    def marker(self) -> Any:
        return self._page.evaluate("window.__pwned === undefined ? null : window.__pwned")

    def really_close(self) -> None:
        super().close()


@pytest.fixture(scope="module")
def web_listener() -> Iterator[Listener]:
    with listening() as listener:
        yield listener


def _labelled_page() -> LabelledPage:
    try:
        return LabelledPage(WEB_TASK)
    except (ConfigError, DeviceError) as exc:
        pytest.skip(f"no browser for MiniWoB++ here: {exc}")


@pytest.fixture(scope="module")
def web_page() -> Iterator[LabelledPage]:
    device = _labelled_page()
    try:
        yield device
    finally:
        device.really_close()


def _connecting(texts: list[str], port: int) -> list[str]:
    return [t.replace("{port}", str(port)) for t in texts]


def _web_example(browser: Any, page: LabelledPage, listener: Listener, labels: list[str], answers: list[str],
                 patch: pytest.MonkeyPatch) -> None:
    """Run an episode on ``page`` labelled with ``labels``, typing ``answers``, and hold it to running no
    script and opening no connection (AssertionError)."""
    page.labels = _connecting(labels, listener.port)
    loaded = page.loaded
    with tempfile.TemporaryDirectory() as tmp:
        tree = Tree(Path(tmp))
        tree.work.mkdir(parents=True)
        patch.chdir(tree.work)
        patch.setenv("HOME", str(tree.top / "home"))
        patch.setattr("latent_agent.api.load_device", lambda text, noise=None: page)
        replies = tree.top / "replies.json"
        texts = _connecting(answers, listener.port)
        shaped = [json.dumps({"action_type": "input_text", "text": t, "x": 100, "y": 120}) for t in texts]
        replies.write_text(json.dumps(([*shaped, *texts] * 30)[:30], ensure_ascii=False), encoding="utf-8")
        episode = tree.work / "episode"
        _cli(tree, ["run", "--device", f"miniwob:{WEB_TASK}", "--llm", f"scripted:{replies}", "--max-steps", "2",
                    "--out", str(episode)], ["a/b/work/episode"], (0, 3))
        records = [json.loads(line) for line in (episode / TRAJECTORY_FILE).read_text(encoding="utf-8").split("\n")
                   if line]
        assert records[-1]["record"] == "end", ("no end record", records[-1])
        assert page.loaded > loaded, "the run loaded the labelled page"
        assert page.marker() is None, ("script ran", "in the MiniWoB++ page")
        _cli(tree, ["show", str(episode)], ["a/b/work/episode"])
        _no_script_ran(browser, [episode / "episode.html"])
    time.sleep(0.5)  # a connection the page opened late
    assert listener.seen() == [], ("a page connected", listener.seen()[:3])


@settings(max_examples=3, deadline=None, derandomize=True, database=None, print_blob=True,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(labels=st.lists(hostile(), min_size=1, max_size=4), answers=st.lists(hostile(), min_size=1, max_size=3))
@example(labels=[HUGE, *CONNECTING, *PAYLOADS], answers=[*CONNECTING, *PAYLOADS, HUGE])
def test_hostile_text_on_miniwob_pages_runs_no_script_and_connects_nowhere(
        browser: Any, web_page: LabelledPage, web_listener: Listener, labels: list[str], answers: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        _web_example(browser, web_page, web_listener, labels, answers, patch)


# -- each assertion fails on a planted defect ---------------------------------------------------------------


def _identity(text: Any, *rest: Any) -> Any:
    return text


def _joined(root: Path, relative: str, what: str) -> Path:
    return root / relative


#: The example the defects are planted under: every kind of text, a plain folder but for what each defect needs.
LABELS = [*PAYLOADS, "\x1b]0;t\x07", "Network & internet"]


def _planted(browser: Any, sweep: Path, patch: pytest.MonkeyPatch, choice: Paths, only: Sequence[str],
             labels: list[str] = LABELS, goal: str = PAYLOADS[1] + "\x1b[2J", huge: bool = False) -> None:
    _example(browser, sweep, labels, goal, ["[/red]", "<script>x</script>"], "<script>x</script>\x1b[2J", choice,
             patch, only=only, huge=huge)


@pytest.mark.parametrize(("defect", "choice", "only", "fails"), [
    # The path_inside call every reader of a sweep's trajectories goes through taken out
    # (benchmarks/results.py, episode_directory): memory building reads the episode a trajectory names outside.
    ({"latent_agent.benchmarks.results.path_inside": _joined}, Paths(trajectory="absolute"), ["memory"],
     "read outside its input"),
    # The report's checks of an episode's name taken out: its page is written where the key climbs to.
    ({"latent_agent.benchmarks.report.safe_name": _identity, "latent_agent.benchmarks.report.path_inside": _joined,
      "latent_agent.benchmarks.report.output_path": lambda root, path, what: path},
     Paths(key="climbing"), ["report"], "wrote outside its output"),
    # The refusal of links taken out: the report is written into the folder report/ links to, over a file
    # there (changed, not created: the name was there before).
    ({"latent_agent.outputs.first_link": lambda root: None,
      "latent_agent.benchmarks.report.refuse_links": lambda root, what: None,
      "latent_agent.benchmarks.report.output_path": lambda root, path, what: path,
      "latent_agent.outputs._refusal": lambda path, kind: None},
     Paths(linked_report=True), ["report"], "wrote outside its output"),
    # The terminal's escaping taken out: the goal's ESC reaches the terminal.
    ({"latent_agent.cli.plain.visible_controls": _identity}, PLAIN, [], "terminal control printed"),
    # The episode page's escaping taken out: a label's payload runs in the page.
    ({"latent_agent.agent.pages.episode_page._e": _identity}, PLAIN, ["show"], "script ran"),
    # report.md's escaping taken out: the method's markup and controls are written raw.
    ({"latent_agent.benchmarks.report_tables.markdown_text": _identity}, PLAIN, ["report"], "markup in report.md"),
    # The end record taken out.
    ({"latent_agent.agent.trajectory.TrajectoryWriter.end": lambda self, record: self.close()}, PLAIN, [],
     "no end record"),
])
def test_each_assertion_fails_on_a_planted_defect(browser: Any, sweep: Path, monkeypatch: pytest.MonkeyPatch,
                                                  defect: dict[str, Callable[..., Any]], choice: Paths,
                                                  only: list[str], fails: str) -> None:
    with monkeypatch.context() as patch:
        for target, replacement in defect.items():
            patch.setattr(target, replacement)
        with pytest.raises(AssertionError, match=re.escape(fails)):
            _planted(browser, sweep, patch, choice, only)


def test_the_size_bound_fails_without_the_labels_cap(browser: Any, sweep: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(text_cap, "MAX_TEXT_CHARS", 10**9)
        with pytest.raises(AssertionError, match="size bound"):
            _planted(browser, sweep, patch, PLAIN, [], labels=[HUGE, "Network & internet"],
                     goal=HUGE[:MAX_GOAL_CHARS - len(GOAL)], huge=True)


def test_the_page_assertions_fail_on_a_planted_defect(browser: Any, web_listener: Listener,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # A page that writes its text as markup runs the payload: the page's marker is seen.
    with monkeypatch.context() as patch:
        patch.setenv(PAGES_ENV, "1")  # a browser of its own, launched under the defect below
        page = _labelled_page()
        page.markup = True
        try:
            with pytest.raises(AssertionError, match="script ran"):
                _web_example(browser, page, web_listener, list(PAYLOADS), ["ok"], patch)
            # And without the browser's launch flags and WebSocket route, its socket reaches the listener.
            page.really_close()
            patch.setattr("latent_agent.device.miniwob.browser.LAUNCH_ARGS", ())
            patch.setattr("latent_agent.device.miniwob.browser.BLOCK_EVERYTHING", "nothing:*")
            page = _labelled_page()
            page.markup = True
            with pytest.raises(AssertionError, match="a page connected"):
                _web_example(browser, page, web_listener, [CONNECTING[2]], ["ok"], patch)
        finally:
            page.really_close()
            web_listener.received.clear()
