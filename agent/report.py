"""An episode as one self-contained HTML page (``latent-agent show DIR``).

Screenshots are embedded as data URIs with the executed tap, long press or scroll
drawn on them; beside each step are the latent-state estimates, the chosen step,
the grounded action and what was executed, and (folded) every LLM call with its
prompt, answers, tokens and latency. The page holds no absolute paths (the episode
is named by its id) and every text goes through the secret redactor.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

from agent.trajectory import LLMCall, StepRecord, Trajectory
from grounder.actions import Action, Click, InputText, LongPress, Scroll, action_to_json

#: Width of the embedded screenshots, in pixels.
THUMB_WIDTH = 360
_MARK = (230, 30, 60)

_CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#202124;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} .meta{color:#5f6368;margin-bottom:16px}
table.head td{padding:2px 12px 2px 0;vertical-align:top}
.step{display:flex;gap:20px;background:#fff;border:1px solid #dadce0;border-radius:8px;padding:16px;margin:16px 0}
.shot img{width:360px;border:1px solid #dadce0;border-radius:6px} .noshot{width:360px;color:#5f6368}
.info{flex:1;min-width:0} .info h2{font-size:16px;margin:0 0 8px}
dl{display:grid;grid-template-columns:150px 1fr;gap:4px 12px;margin:0}
dt{color:#5f6368} dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.err{color:#c5221f} details{margin-top:8px} pre{white-space:pre-wrap;background:#f1f3f4;padding:8px;
border-radius:4px;font-size:12px;max-height:360px;overflow:auto}
.stop{font-weight:600}
"""


def _e(text: object) -> str:
    from agent.llm.secrets import redact

    return html.escape(redact(str(text)))


def _arrow(draw: object, start: tuple[int, int], end: tuple[int, int], width: int) -> None:
    import math

    from PIL import ImageDraw

    assert isinstance(draw, ImageDraw.ImageDraw)
    draw.line([start, end], fill=_MARK, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    head = width * 4
    for side in (-0.5, 0.5):
        tip = (round(end[0] - head * math.cos(angle + side)), round(end[1] - head * math.sin(angle + side)))
        draw.line([end, tip], fill=_MARK, width=width)


def annotated_png(png: bytes, action: Action | None, executed: bool) -> bytes:
    """``png`` with ``action`` drawn on it (when it was executed), scaled to :data:`THUMB_WIDTH`."""
    from PIL import Image, ImageDraw

    image = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(image)
    w, h = image.size
    stroke = max(4, w // 120)
    if executed and isinstance(action, Click | LongPress | InputText) and action.x is not None \
            and action.y is not None:
        r = max(24, w // 22)
        draw.ellipse([action.x - r, action.y - r, action.x + r, action.y + r], outline=_MARK, width=stroke)
        if isinstance(action, LongPress):
            draw.ellipse([action.x - r // 2, action.y - r // 2, action.x + r // 2, action.y + r // 2],
                         outline=_MARK, width=stroke)
    elif executed and isinstance(action, Scroll):
        cx, cy = (action.x, action.y) if action.x is not None and action.y is not None else (w // 2, h // 2)
        dx, dy = w * 3 // 10, h * 3 // 10
        # The finger moves against the scroll direction ("down" shows what is below: the finger goes up).
        finger = {"down": (0, -dy), "up": (0, dy), "right": (-dx, 0), "left": (dx, 0)}[action.direction]
        _arrow(draw, (cx - finger[0] // 2, cy - finger[1] // 2), (cx + finger[0] // 2, cy + finger[1] // 2),
               stroke)
    if w > THUMB_WIDTH:
        image = image.resize((THUMB_WIDTH, round(h * THUMB_WIDTH / w)), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _call_html(call: LLMCall) -> str:
    outputs = "".join(f"<p><b>sample {i}</b></p><pre>{_e(o)}</pre>" for i, o in enumerate(call.outputs, 1))
    error = f'<p class="err">{_e(call.error)}</p>' if call.error else ""
    return (
        f"<details><summary>{_e(call.purpose)} - {call.prompt_tokens}+{call.output_tokens} tokens, "
        f"{call.latency_s * 1000:.0f} ms, n={call.n}, T={call.temperature:g}, started at "
        f"+{call.started_s * 1000:.0f} ms</summary><p><b>prompt</b></p><pre>{_e(call.prompt)}</pre>"
        f"{outputs}{error}</details>"
    )


def _row(label: str, value: object, css: str = "") -> str:
    if value is None or value == "":
        return ""
    cls = f' class="{css}"' if css else ""
    return f"<dt>{_e(label)}</dt><dd{cls}>{_e(value)}</dd>"


def _screenshot_html(step: StepRecord, directory: Path) -> str:
    """The step's annotated screenshot as an ``<img>``, or a note saying why there is none."""
    from PIL import Image

    if step.screenshot_file is None:
        return '<div class="noshot">no screenshot</div>'
    path = directory / step.screenshot_file
    # The file name comes from the trajectory: never embed a file from outside the episode.
    if not path.resolve().is_relative_to(directory.resolve()) or not path.is_file():
        return f'<div class="noshot">screenshot {_e(step.screenshot_file)} missing</div>'
    try:
        png = annotated_png(path.read_bytes(), step.action, step.executed)
    except (OSError, ValueError, Image.DecompressionBombError):
        # A crash mid-write leaves a torn PNG; the rest of the page is still worth showing.
        return f'<div class="noshot">screenshot {_e(step.screenshot_file)} unreadable</div>'
    return f'<img alt="screen at step {step.index}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def _step_html(step: StepRecord, directory: Path) -> str:
    shot = _screenshot_html(step, directory)
    latent = step.latent
    rows = [
        _row("chosen step", step.selected_step),
        _row("action", json.dumps(action_to_json(step.action)) if step.action is not None else None),
        _row("grounded by", step.grounder),
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
    t = step.timing
    rows.append(_row("time", f"{step.duration_s * 1000:.0f} ms (LLM {t.llm_s * 1000:.0f}, device "
                             f"{t.device_s * 1000:.0f}, agent {t.overhead_s * 1000:.1f})"))
    rows.append(_row("LLM", f"{step.usage.calls} calls, {step.usage.prompt_tokens}+{step.usage.output_tokens} tokens"))
    samples = ""
    if len(step.samples) > 1:
        samples = "<details><summary>selector samples</summary>" + "".join(
            f"<pre>{_e(s)}</pre>" for s in step.samples) + "</details>"
    calls = "".join(_call_html(c) for c in step.calls)
    return (f'<section class="step"><div class="shot">{shot}</div><div class="info"><h2>Step {step.index}</h2>'
            f"<dl>{''.join(rows)}</dl>{samples}{calls}</div></section>")


def render_html(trajectory: Trajectory) -> str:
    """The page for ``trajectory``."""
    h, end = trajectory.header, trajectory.end
    outcome = (f"{end.stop_reason.value} after {end.steps} steps in {end.duration_s:.1f} s"
               + (f" - {end.detail}" if end.detail else "")) if end is not None else "unfinished"
    usage = end.usage if end is not None else None
    head_rows = [
        ("goal", h.goal), ("normalized goal", h.normalized_goal), ("method", h.method),
        ("grounder", h.grounder), ("LLM", h.llm), ("device", h.device), ("task", h.task_id or "-"),
        ("outcome", outcome),
        ("LLM usage", f"{usage.calls} calls, {usage.prompt_tokens}+{usage.output_tokens} tokens"
         if usage is not None else "-"),
    ]
    head = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in head_rows)
    setup = "".join(_call_html(c) for c in h.setup_calls)
    steps = "".join(_step_html(s, trajectory.directory) for s in trajectory.steps)
    return (
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Episode {_e(h.episode_id)}</title>"
        f"<style>{_CSS}</style></head><body><h1>Episode {_e(h.episode_id)}</h1>"
        f'<div class="meta">latent-agent trajectory</div><table class="head">{head}</table>{setup}{steps}'
        "</body></html>\n"
    )
