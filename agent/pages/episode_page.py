"""An episode as one self-contained HTML page (``latent-agent show DIR``).

Each step shows its screenshot (a WebP thumbnail, :mod:`latent_agent.agent.pages.thumbnails`)
with the executed tap, long press or scroll drawn on top as SVG and named in
a caption underneath; beside it are the latent-state estimates, the chosen
step, the grounded action and what was executed, and (folded) every LLM call
with its prompt, answers, tokens and latency.

The folded texts - prompts, answers, CoT-SC's selector samples - are most of a
page's text and repeat a lot from call to call, so they are packed into the
page as gzip'd JSON (base64) and unfolded into the same elements by a short
script when the page opens; a 20-step page shrinks about tenfold. The page
holds no absolute paths (the episode is named by its id) and every text goes
through the secret redactor. A page that belongs to another (a report's episode
page) links back to it at the top.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from latent_agent.agent.episode_files import saved_screenshots, screenshot_path
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.pages.banner import model_banner
from latent_agent.agent.pages.screenshots import action_caption
from latent_agent.agent.pages.thumbnails import THUMB_WIDTH, Thumbnails
from latent_agent.agent.trajectory import (
    LLMCall,
    StepRecord,
    Trajectory,
    TrialRecord,
    read_trajectory,
    state_to_json,
)
from latent_agent.atomic_write import write_atomic
from latent_agent.errors import InputError, OutputPathError
from latent_agent.grounder.actions import Action, Drag, LongPress, Scroll, action_to_json, point_of
from latent_agent.llm.images import describe_images
from latent_agent.llm.secrets import redact
from latent_agent.words import counted

_MARK = "#e61e3c"

_CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#202124;background:#fafafa}
h1{font-size:20px;margin:0 0 4px;overflow-wrap:anywhere} .meta{color:#5f6368;margin-bottom:16px}
table.head td{padding:2px 12px 2px 0;vertical-align:top;overflow-wrap:anywhere}
table.head td:first-child{white-space:nowrap} .back{margin:0 0 8px}
.step{display:flex;flex-wrap:wrap;gap:20px;background:#fff;border:1px solid #dadce0;border-radius:8px;padding:16px;
margin:16px 0}
.trial{background:#fef7e0;border:1px solid #f9ab00;border-radius:8px;padding:12px 16px;margin:16px 0}
.shot{margin:0;width:THUMBpx;max-width:100%;flex:none} .shot svg{display:block;width:100%;height:auto;
border:1px solid #dadce0;border-radius:6px} .shot figcaption{margin-top:6px;padding:4px 8px;border-radius:4px;
background:#e61e3c;color:#fff;font-weight:600;font-size:14px;text-align:center;overflow-wrap:anywhere}
.noshot{width:THUMBpx;max-width:100%;color:#5f6368}
.info{flex:1 1 320px;min-width:0} .info h2{font-size:16px;margin:0 0 8px}
dl{display:grid;grid-template-columns:minmax(90px,150px) minmax(0,1fr);gap:4px 12px;margin:0}
dt{color:#5f6368} dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.err{color:#c5221f} details{margin-top:8px} summary{overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f1f3f4;padding:8px;border-radius:4px;font-size:12px;
max-height:360px;overflow:auto}
.packnote{color:#c5221f} .packnote:empty{display:none}
.banner{background:#fce8e6;border:2px solid #c5221f;color:#a50e0e;font-weight:600;padding:8px 12px;border-radius:6px}
@media (max-width:600px){body{margin:12px} .step{padding:12px} dl{grid-template-columns:minmax(0,1fr);gap:0}
dd{margin-bottom:6px}}
""".replace("THUMB", str(THUMB_WIDTH))  # shown as wide as the thumbnails are made

# Unfolds the packed texts into the <details> they belong to, as text nodes (never parsed as HTML).
_UNPACK_JS = """
(function () {
  "use strict";
  var packed = document.getElementById("folds");
  var note = document.getElementById("packnote");
  if (!packed) { return; }
  if (typeof DecompressionStream === "undefined") {
    note.textContent = "This browser cannot unpack the LLM calls (it has no DecompressionStream); "
      + "open the page in a current Chrome, Firefox or Safari.";
    return;
  }
  var bytes = Uint8Array.from(atob(packed.textContent), function (c) { return c.charCodeAt(0); });
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(stream).text().then(function (text) {
    var folds = JSON.parse(text);
    document.querySelectorAll("details[data-fold]").forEach(function (d) {
      folds[Number(d.dataset.fold)].blocks.forEach(function (block) {
        var el;
        if (block[0] === "label") {
          el = document.createElement("p");
          el.appendChild(document.createElement("b")).textContent = block[1];
        } else if (block[0] === "error") {
          el = document.createElement("p");
          el.className = "err";
          el.textContent = block[1];
        } else {
          el = document.createElement("pre");
          el.textContent = block[1];
        }
        d.appendChild(el);
      });
    });
    document.body.dataset.unpacked = String(folds.length);
  }, function (err) { note.textContent = "The LLM calls could not be unpacked: " + err; });
})();
"""

_DEVICE = re.compile(r"(?P<kind>\w+?)(?:Device)?(?:\(seed=(?P<seed>-?\d+)\))?")
_DEVICE_WORDS = {
    "Sim": "simulated phone",
    "Adb": "Android device over adb",
    "U2": "Android device over uiautomator2",
    "AndroidEnv": "AndroidEnv environment",
}


def device_words(device: str) -> str:
    """The trajectory's device (``SimDevice(seed=0)``) as a reader says it (``simulated phone, seed 0``)."""
    m = _DEVICE.fullmatch(device)
    if m is None or m["kind"] not in _DEVICE_WORDS:
        return device
    return _DEVICE_WORDS[m["kind"]] + (f", seed {m['seed']}" if m["seed"] is not None else "")


def _e(text: object) -> str:
    return html.escape(redact(str(text)))


def _plain(text: object) -> str:
    return redact(str(text))


class _Folds:
    """The folded texts of one page: each ``<details>`` gets an index into one packed list."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def details(self, kind: str, summary: str, blocks: list[tuple[str, str]]) -> str:
        self.items.append({"kind": kind, "blocks": [[tag, _plain(text)] for tag, text in blocks]})
        return f'<details data-fold="{len(self.items) - 1}"><summary>{_e(summary)}</summary></details>'

    def script(self) -> str:
        if not self.items:
            return ""
        data = json.dumps(self.items, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        # mtime=0: the same episode gives the same page, byte for byte.
        packed = base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")
        return (f'<script type="application/gzip;base64" id="folds">{packed}</script>'
                '<noscript><p class="packnote">The prompts and answers of the LLM calls are packed in this page '
                "and need JavaScript to be shown.</p></noscript>"
                f"<script>{_UNPACK_JS}</script>")


def unpack_folds(page: str) -> list[dict[str, Any]]:
    """The folded texts packed into ``page`` (what its script shows), for tests and checks.

    Each entry has ``kind`` (``call`` or ``samples``) and ``blocks``: ``[tag, text]``
    pairs, tag ``label``, ``text`` or ``error``.

    Raises:
        InputError: If the page holds no packed texts or they are corrupt.
    """
    m = re.search(r'<script type="application/gzip;base64" id="folds">([A-Za-z0-9+/=]*)</script>', page)
    if m is None:
        raise InputError("the page holds no packed LLM calls")
    try:
        items = json.loads(gzip.decompress(base64.b64decode(m.group(1))))
    except (ValueError, OSError, EOFError) as exc:
        raise InputError(f"the page's packed LLM calls are corrupt ({exc})") from None
    if not isinstance(items, list):
        raise InputError("the page's packed LLM calls are not a list")
    return items


def _call_html(call: LLMCall, folds: _Folds) -> str:
    blocks: list[tuple[str, str]] = []
    for turn in call.messages:  # a multi-turn call's earlier turns, before its prompt
        shown = f" ({describe_images(turn.images)})" if turn.images else ""
        blocks += [("label", f"{turn.role}{shown}"), ("text", turn.text)]
    blocks += [("label", "prompt" + (f" ({describe_images(call.images)})" if call.images else "")),
               ("text", call.prompt)]
    for i, output in enumerate(call.outputs, 1):
        cut = i <= len(call.finish_reasons) and call.finish_reasons[i - 1] == "length"
        blocks += [("label", f"sample {i}" + (" (cut at the output cap)" if cut else "")), ("text", output)]
    if call.error:
        blocks.append(("error", call.error))
    if call.parse_error:
        blocks.append(("error", f"unparsable: {call.parse_error}"))
    images = f", {describe_images(call.images)} ({call.image_tokens} tokens)" if call.images else ""
    cap = f", cap {call.max_output_tokens}" if call.max_output_tokens is not None else ""
    retries = f", {counted(call.retries, 'retry', 'retries')}" if call.retries else ""
    flags = (", cut" if call.truncated else "") + (", unparsable" if call.parse_error else "")
    summary = (f"{call.purpose} - {call.prompt_tokens}+{call.output_tokens} tokens{cap}, {call.latency_s * 1000:.0f} ms"
               f"{retries}, n={call.n}, T={call.temperature:g}, started at +{call.started_s * 1000:.0f} ms{images}"
               f"{flags}")
    return folds.details("call", summary, blocks)


def _row(label: str, value: object, css: str = "") -> str:
    if value is None or value == "":
        return ""
    cls = f' class="{css}"' if css else ""
    return f"<dt>{_e(label)}</dt><dd{cls}>{_e(value)}</dd>"


def action_marks(action: Action | None, width: int, height: int) -> str:
    """SVG drawn over a ``width`` x ``height`` screenshot where ``action`` touched it (device pixels).

    A ring where a tap, long press (two rings), typing or the mouse landed; for a
    scroll, the finger's path: a dot where it lands and an arrow to where it lifts;
    for a drag, a dot where the button went down, the path and a ring where it rose.
    """
    stroke = max(4, width // 120)
    style = f'fill="none" stroke="{_MARK}" stroke-width="{stroke}" stroke-linecap="round" stroke-linejoin="round"'
    if isinstance(action, Drag):
        # Where the button went down (a dot), the path, and where it was released (a ring).
        return (f'<circle cx="{_e(action.x1)}" cy="{_e(action.y1)}" r="{stroke * 3}" fill="{_MARK}"/>'
                f'<path d="M{_e(action.x1)} {_e(action.y1)}L{_e(action.x2)} {_e(action.y2)}" {style}/>'
                f'<circle cx="{_e(action.x2)}" cy="{_e(action.y2)}" r="{max(24, width // 22)}" {style}/>')
    point = point_of(action) if action is not None and not isinstance(action, Scroll) else None
    if point is not None:
        x, y = point
        r = max(24, width // 22)
        rings = [r, r // 2] if isinstance(action, LongPress) else [r]
        return "".join(f'<circle cx="{_e(x)}" cy="{_e(y)}" r="{ring}" {style}/>' for ring in rings)
    if isinstance(action, Scroll):
        cx, cy = (action.x, action.y) if action.x is not None and action.y is not None else (width // 2, height // 2)
        dx, dy = width * 3 // 10, height * 3 // 10
        # "down" shows what is below, so the finger moves up; the arrow is the finger's path.
        fx, fy = {"down": (0, -dy), "up": (0, dy), "right": (-dx, 0), "left": (dx, 0)}[action.direction]
        x0, y0, x1, y1 = cx - fx // 2, cy - fy // 2, cx + fx // 2, cy + fy // 2
        head = stroke * 5
        ux, uy = (fx > 0) - (fx < 0), (fy > 0) - (fy < 0)
        wing = [(x1 - ux * head + uy * head, y1 - uy * head + ux * head),
                (x1 - ux * head - uy * head, y1 - uy * head - ux * head)]
        return (f'<circle cx="{x0}" cy="{y0}" r="{stroke * 3}" fill="{_MARK}"/>'
                f'<path d="M{x0} {y0}L{x1} {y1}M{wing[0][0]} {wing[0][1]}L{x1} {y1}L{wing[1][0]} {wing[1][1]}" '
                f"{style}/>")
    return ""


def _screenshot_html(step: StepRecord, directory: Path, thumbnails: Thumbnails) -> str:
    """The step's screenshot with the executed action drawn on, or a note saying why there is none."""
    try:
        path = screenshot_path(directory, step)
    except InputError:
        return f'<div class="noshot">screenshot {_e(step.screenshot_file)} is outside the episode: not shown</div>'
    if path is None:
        return '<div class="noshot">no screenshot</div>'
    if not path.is_file():
        return f'<div class="noshot">screenshot {_e(step.screenshot_file)} missing</div>'
    try:
        thumb = thumbnails.get(path)
    except InputError:
        # A crash mid-write leaves a torn PNG; the rest of the page is still worth showing.
        return f'<div class="noshot">screenshot {_e(step.screenshot_file)} unreadable</div>'
    executed = step.action if step.executed else None
    caption = f"<figcaption>{_e(action_caption(executed))}</figcaption>" if executed is not None else ""
    w, h = thumb.width, thumb.height
    return (f'<figure class="shot"><svg viewBox="0 0 {w} {h}" role="img" aria-label="screen at step {_e(step.index)}">'
            f'<image href="{thumb.data_uri()}" width="{w}" height="{h}"/>{action_marks(executed, w, h)}</svg>'
            f"{caption}</figure>")


#: How a step's action was found (``StepRecord.grounder``), in words beside the episode's grounder.
_GROUNDED = {"llm": "{grounder} grounder, from the model's answer", "rule": "{grounder} grounder, by a rule (no model "
             "call)", "caap": "the method itself (its answer names the element)"}


def _grounded_by(source: str | None, grounder: str) -> str | None:
    """Who grounded the step: the record says only ``llm`` or ``rule`` (how), the header which grounder ran it.

    ``llm`` alone read as the ``llm`` grounder on an episode that ran the ``paper`` one.
    """
    if source is None:
        return None
    return _GROUNDED.get(source, "{grounder} grounder").format(grounder=grounder)


def _step_html(step: StepRecord, directory: Path, thumbnails: Thumbnails, folds: _Folds, grounder: str) -> str:
    shot = _screenshot_html(step, directory, thumbnails)
    latent = latent_of(step)
    rows = [
        _row("chosen step", step.selected_step),
        _row("action", json.dumps(action_to_json(step.action)) if step.action is not None else None),
        _row("grounded by", _grounded_by(step.grounder, grounder)),
        _row("executed", step.executed_detail if step.executed else "nothing"),
        _row("grounding error", step.grounding_error, "err"),
        _row("execution error", step.execution_error, "err"),
    ]
    if latent is not None:
        rows += [
            _row("previous action", latent.previous_action),
            _row("screen summary", latent.screen_summary),
            _row("progression", latent.progression),
            _row("mistakes", latent.mistakes),
            _row("completion", latent.completion),
        ]
    elif step.state is not None:
        # Another method's state: its fields as it wrote them (the page knows only the latent state's names).
        rows += [_row(name.replace("_", " "), json.dumps(value) if isinstance(value, list | dict) else value)
                 for name, value in state_to_json(step.state).items() if name != "kind"]
    t = step.timing
    rows.append(_row("time", f"{step.duration_s * 1000:.0f} ms (LLM {t.llm_s * 1000:.0f}, device "
                             f"{t.device_s * 1000:.0f}, agent {t.overhead_s * 1000:.1f})"))
    rows.append(_row("phases", ", ".join(f"{name} {sec * 1000:.0f}" for name, sec in t.phases.items()) + " ms"
                     if t.phases else None))
    rows.append(_row("LLM", f"{counted(step.usage.calls, 'call')}, "
                            f"{step.usage.prompt_tokens}+{counted(step.usage.output_tokens, 'token')}"))
    samples = ""
    if len(step.samples) > 1:
        samples = folds.details("samples", "selector samples", [("text", s) for s in step.samples])
    calls = "".join(_call_html(c, folds) for c in step.calls)
    trial = f" (trial {_e(step.trial + 1)})" if step.trial else ""
    return (f'<section class="step">{shot}<div class="info"><h2>Step {_e(step.index)}{trial}</h2>'
            f"<dl>{''.join(rows)}</dl>{samples}{calls}</div></section>")


_CHECKED = {None: "", True: "; the task's check: done", False: "; the task's check: not done"}
#: What the task's check said as the episode ended, beside the agent's own stop (as ``run`` prints it).
_TASK_CHECK = {None: "", True: " (task check: passed)", False: " (task check: failed)"}


def _trial_html(record: TrialRecord, folds: _Folds) -> str:
    """How a trial ended (a method that tries again): its stop, the task's check, the reset, its calls."""
    detail = f" - {record.detail}" if record.detail else ""
    after = f"; tried again ({record.reset})" if record.again else "; not tried again"
    calls = "".join(_call_html(c, folds) for c in record.calls)
    return (f'<section class="trial"><div class="info"><h2>Trial {_e(record.trial + 1)} ended</h2>'
            f"<p>{_e(record.stop_reason.value + detail + _CHECKED[record.checked] + after)}</p>{calls}</div></section>")


def _steps_html(trajectory: Trajectory, thumbnails: Thumbnails, folds: _Folds) -> str:
    """The steps, each trial's end after its last step."""
    trials = list(trajectory.trials)
    parts: list[str] = []
    for step in trajectory.steps:
        parts.append(_step_html(step, trajectory.directory, thumbnails, folds, trajectory.header.grounder))
        while trials and trials[0].steps <= step.index + 1:
            parts.append(_trial_html(trials.pop(0), folds))
    parts += [_trial_html(t, folds) for t in trials]  # trials that ended before the first step
    return "".join(parts)


def screenshot_paths(trajectory: Trajectory) -> list[Path]:
    """The screenshot files the page of ``trajectory`` shows (to prefetch their thumbnails)."""
    paths = []
    for step in trajectory.steps:
        try:
            path = screenshot_path(trajectory.directory, step)
        except InputError:
            continue  # the page says why it is not shown
        if path is not None:
            paths.append(path)
    return paths


@dataclass(frozen=True, slots=True)
class PageLink:
    """A link from an episode's page to the page it belongs to (a report's episode page to the report).

    Attributes:
        text: What the link says.
        href: Where it goes, relative to the episode's page.
    """

    text: str
    href: str


def render_html(trajectory: Trajectory, thumbnails: Thumbnails | None = None, *, back: PageLink | None = None) -> str:
    """The page for ``trajectory``.

    Args:
        trajectory: The episode.
        thumbnails: Thumbnails shared with other pages (a report renders many);
            by default the episode's own are made.
        back: The page it belongs to, linked at its top (None: a page of its own, as ``show`` writes).
    """
    if thumbnails is None:
        thumbnails = Thumbnails()
        thumbnails.prefetch(screenshot_paths(trajectory))
    h, end = trajectory.header, trajectory.end
    outcome = (f"{end.stop_reason.value} after {counted(end.steps, 'step')} in {end.duration_s:.1f} s"
               + _TASK_CHECK[end.task_check] + (f" - {end.detail}" if end.detail else "")) \
        if end is not None else "unfinished"
    usage = end.usage if end is not None else None
    head_rows = [
        ("goal", h.goal), ("normalized goal", h.normalized_goal
                           + (f" (the model's rewrite was not used: {h.goal_rejected})" if h.goal_rejected else "")),
        ("method", h.method),
        ("grounder", h.grounder), ("LLM", h.llm),
        ("device", device_words(h.device) + (f", noise {h.noise}" if h.noise else "")), ("task", h.task_id or "-"),
        ("outcome", outcome),
        ("LLM usage", f"{counted(usage.calls, 'call')}, {usage.prompt_tokens}+{counted(usage.output_tokens, 'token')}"
         if usage is not None else "-"),
    ]
    head = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in head_rows)
    # A scripted stand-in's episode says so first: it played the task from its solution.
    banner = model_banner(h.llm)
    banner_html = f'<p class="banner">{_e(banner.text)}</p>' if banner is not None else ""
    # Percent-encoded as the report's own links are: a folder named "javascript:..." stays a relative path.
    back_html = (f'<p class="back"><a href="{html.escape(quote(back.href, safe="/+"))}">{_e(back.text)}</a></p>'
                 if back is not None else "")
    folds = _Folds()
    setup = "".join(_call_html(c, folds) for c in h.setup_calls)
    steps = _steps_html(trajectory, thumbnails, folds)
    if end is not None and end.calls:
        # The calls of the step the episode ended in (an LLM error, a spent budget): the failing one last.
        unfinished = "".join(_call_html(c, folds) for c in end.calls)
        steps += (f'<section class="trial"><div class="info"><h2>Step {_e(end.steps)}, not finished</h2>'
                  f"<p>{_e(end.stop_reason.value)}</p>{unfinished}</div></section>")
    return (
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>Episode {_e(h.episode_id)}</title>'
        f"<style>{_CSS}</style></head><body>{back_html}<h1>Episode {_e(h.episode_id)}</h1>{banner_html}"
        f'<div class="meta">latent-agent trajectory</div><p class="packnote" id="packnote"></p>'
        f'<table class="head">{head}</table>{setup}{steps}{folds.script()}'
        "</body></html>\n"
    )


def write_pages(jobs: Sequence[tuple[Path, Path]], *, back: PageLink | None = None) -> set[Path]:
    """Render many episodes: each ``(episode directory, page file)`` job, sharing one set of thumbnails.

    Every page links to ``back`` when it is given (the report the pages belong to).

    The screenshots of all episodes are thumbnailed first, each distinct one
    once and in parallel (see :class:`~latent_agent.agent.pages.thumbnails.Thumbnails`), then the
    pages are written one at a time. Returns the pages written; an episode
    whose trajectory cannot be read gets none.

    Raises:
        OutputPathError: If a page cannot be written.
    """
    thumbnails = Thumbnails()
    # The writer names screenshots screens/step_NNN.png; any other name is thumbnailed when its page needs it.
    thumbnails.prefetch(sorted(p for directory, _ in jobs for p in saved_screenshots(directory)))
    written: set[Path] = set()
    for directory, page in jobs:
        try:
            trajectory = read_trajectory(directory)
        except InputError:
            continue
        text = render_html(trajectory, thumbnails, back=back)
        try:
            page.parent.mkdir(parents=True, exist_ok=True)
            # Whole or not at all: a report reuses any page newer than its trajectory, torn or not.
            write_atomic(page, text)
        except OSError as exc:
            raise OutputPathError(f"cannot write the episode page {page}: {exc.strerror or exc}") from None
        written.add(page)
    return written
