"""``annotate export``: turn a run's trajectories into self-contained HTML forms for raters.

``latent`` forms have one page per (sampled) step, showing the screenshots of
step n-1 and n with each step's action drawn on it, the agent's latent-state
estimates at step n, and the paper's questions about them. ``e2e`` forms have
one page per episode: every step's screenshot with its action, then the
completion, partial-completion and stopping questions. ``errors`` forms have
one page per *failed* episode (the sweep's ``results.jsonl`` says which, after
any rater verdicts given with ``ratings``): the same film strip of steps with
the chosen step and the grounded action of each, and the question of the
failure's primary root cause. The project's automatic guess of that cause is
shown beside the question, labelled as a guess; no answer is pre-selected, so a
saved answer is always the rater's own.

Everything is rendered into a single HTML file per form and rater (inline CSS,
JavaScript and ``data:`` images), so it opens offline in any browser; answers
are downloaded from the page as JSON. Text goes through a
:class:`~latent_agent.annotation.redact.Redactor` so no key or internal path leaves the
machine.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from latent_agent.accessibility.load import load_tree
from latent_agent.accessibility.tree import Bounds
from latent_agent.agent.episode_files import screen_path, screenshot_path
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.pages.screenshots import DEFAULT_QUALITY, DEFAULT_WIDTH, ImageFormat, action_words, render_shot
from latent_agent.agent.trajectory import StepRecord, StopReason, Trajectory
from latent_agent.annotation.forms import (
    MANIFEST_FILE,
    EpisodeInfo,
    FormItem,
    FormsManifest,
    FormSpec,
    LatentContext,
    form_file,
    manifest_to_json,
)
from latent_agent.annotation.questions import (
    CAUSE_LABELS,
    FormKind,
    Question,
    e2e_questions,
    errors_questions,
    latent_questions,
)
from latent_agent.annotation.redact import Redactor, field_bounds, password_fields, typed_password
from latent_agent.annotation.sources import CUSTOM, SuiteTask, TaskIndex, by_trajectory, find_episodes, sweep_records
from latent_agent.benchmarks.metrics import guessed_cause
from latent_agent.benchmarks.ratings import apply_ratings, load_ratings
from latent_agent.benchmarks.results import RESULTS_FILE, EpisodeRecord, EpisodeStatus, latest
from latent_agent.errors import AnnotationError, ConfigError, InputError, OutputExistsError

TEMPLATE = "form.html.j2"
TITLES = {FormKind.LATENT: "Latent-state ratings", FormKind.E2E: "Episode ratings",
          FormKind.ERRORS: "Error analysis"}
ERRORS_QUESTION_ID = errors_questions()[0].id
#: How an episode ended, in words a rater reads. The agents with a completion estimate stop as ``completed``, the
#: others as ``done``: one sentence for both, so the ending does not tell raters which kind of agent ran.
STOP_WORDS: dict[str, str] = {
    StopReason.COMPLETED.value: "The agent stopped: it judged the task complete.",
    StopReason.DONE.value: "The agent stopped: it judged the task complete.",
    StopReason.GAVE_UP.value: "The agent stopped without judging the task complete (it saw no way on).",
    StopReason.MAX_STEPS.value: "The episode was cut off at the step limit (the agent did not stop).",
    StopReason.METHOD_CAP.value: "The agent stopped at its own limit of steps, without judging the task complete.",
    # The page (MiniWoB++) ended the episode whether its answer was right or wrong: no outcome is told.
    StopReason.TASK_ENDED.value: "The task's page ended the episode (it ends once an answer is given, right or "
                                 "wrong, or its time runs out).",
    StopReason.REPEATED_ACTIONS.value: "The episode was cut off: the agent repeated the same action three times.",
    StopReason.BUDGET_EXHAUSTED.value: "The episode was cut off: the LLM budget ran out.",
    StopReason.DEVICE_ERROR.value: "The episode was cut off by a device error.",
    StopReason.LLM_ERROR.value: "The episode was cut off by an LLM error.",
    StopReason.INTERRUPTED.value: "The episode was interrupted.",
}


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """How to export.

    Attributes:
        kind: ``latent`` (per step), ``e2e`` (per episode) or ``errors`` (per failed episode) forms.
        raters: How many raters get a copy of every form (ids ``r1``..``rN``).
        sample: Export only this many steps (``latent``) or episodes (``e2e``),
            drawn at random with ``seed``; ``None`` exports all.
        seed: Seed of the sample.
        redact_passwords: Mask text typed into password fields, and paint
            password fields over on screenshots.
        image_format: Encoding of embedded screenshots.
        width: Width of embedded screenshots in pixels.
        quality: Encoder quality of embedded screenshots.
        ratings: Rater verdicts (a ``ratings.jsonl``) applied to the sweep's results before ``errors``
            forms pick the failed episodes, so tasks only raters can score are included.
    """

    kind: FormKind
    raters: int = 1
    sample: int | None = None
    seed: int = 0
    redact_passwords: bool = False
    image_format: ImageFormat = "jpeg"
    width: int = DEFAULT_WIDTH
    quality: int = DEFAULT_QUALITY
    ratings: Path | None = None

    def check(self) -> None:
        if self.raters < 1:
            raise ConfigError(f"--raters must be at least 1, got {self.raters}")
        if self.sample is not None and self.sample < 1:
            raise ConfigError(f"--sample must be at least 1, got {self.sample}")
        if not 1 <= self.quality <= 95:
            raise ConfigError(f"image quality must be 1-95, got {self.quality}")
        if self.width < 64:
            raise ConfigError(f"image width must be at least 64 pixels, got {self.width}")
        if self.ratings is not None and self.kind is not FormKind.ERRORS:
            raise ConfigError("--ratings only applies to --kind errors (it decides which episodes failed)")


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What an export wrote: the manifest and each form file with its size."""

    manifest: FormsManifest
    files: tuple[tuple[Path, int], ...]
    units_available: int
    seconds: float


# -- views handed to the template ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Panel:
    """A screenshot (by id in the page's image table) with caption lines."""

    label: str
    shot: str | None
    lines: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Guess:
    """The project's automatic guess at one question's answer, shown beside it (never selected)."""

    question: str
    value: str
    text: str


@dataclass(frozen=True, slots=True)
class PageView:
    item_id: str
    title: str
    panels: tuple[Panel, ...]
    estimates: tuple[tuple[str, str], ...]
    questions: tuple[Question, ...]
    guess: Guess | None = None


@dataclass(frozen=True, slots=True)
class FormView:
    form_id: str
    digest: str
    rater: str
    kind: str
    title: str
    goal: str
    benchmark: str
    ending: str
    pages: tuple[PageView, ...]
    spec_json: str
    shots_json: str


@dataclass(slots=True)
class _Episode:
    """An episode being exported, with its redacted text and rendered screenshots."""

    trajectory: Trajectory
    info: EpisodeInfo
    suite_task: SuiteTask | None
    record: EpisodeRecord | None = None
    steps: list[int] = field(default_factory=list)
    masked_steps: set[int] = field(default_factory=set)
    masks: dict[int, list[Bounds]] = field(default_factory=dict)


def _blind_id(kind: FormKind, used: set[str]) -> str:
    """A form id that says nothing of the episode: raters must not learn which method produced it (episode ids
    of a sweep name the method, ``task__zero-shot-__s0``). Random, so neither the order of the forms nor a guess
    at an id leads back to the episode; ``forms.json`` maps each id to its episode and method."""
    while True:
        form_id = f"{kind.value}-{secrets.token_hex(4)}"
        if form_id not in used:
            return form_id


def _script_json(value: object) -> str:
    """JSON safe to inline in a ``<script>`` element (no ``</script>`` or comment openers)."""
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _environment() -> object:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("latent_agent.annotation", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return path.name


def _select(units: list[tuple[int, int]], options: ExportOptions) -> list[tuple[int, int]]:
    if options.sample is None or options.sample >= len(units):
        return units
    return sorted(random.Random(options.seed).sample(units, options.sample))


def _collect_passwords(ep: _Episode, redactor: Redactor) -> None:
    """Find password fields on every screen, and the text the agent typed into them."""
    for step in ep.trajectory.steps:
        try:
            tree = load_tree(screen_path(ep.trajectory.directory, step))
        except (InputError, OSError) as exc:
            raise AnnotationError(
                f"episode {ep.info.episode_id} step {step.index}: cannot read the screen to find password "
                f"fields ({exc}); export without --redact-passwords or fix the dump"
            ) from None
        fields = password_fields(tree.roots)
        ep.masks[step.index] = list(field_bounds(fields))
        if typed_password(step.action, fields):
            assert step.action is not None and hasattr(step.action, "text")
            if step.action.text:
                redactor.passwords.add(step.action.text)
            ep.masked_steps.add(step.index)


def _step_lines(step: StepRecord, ep: _Episode, redactor: Redactor) -> tuple[str, ...]:
    lines = [f"Commanded: {redactor.text(step.selected_step)}" if step.selected_step else "Commanded: (nothing)"]
    if step.action is not None:
        lines.append(f"Action: {redactor.text(action_words(step.action, masked_text=step.index in ep.masked_steps))}")
    elif step.grounding_error:
        lines.append(f"No action: grounding failed ({redactor.text(step.grounding_error)})")
    else:
        lines.append("No action: the agent stopped here.")
    if step.action is not None and not step.executed:
        lines.append("(the action was not sent to the device)")
    return tuple(lines)


def _shot(step: StepRecord, ep: _Episode, options: ExportOptions) -> str | None:
    try:
        # Forms go to outside raters: never embed a file from outside the episode.
        path = screenshot_path(ep.trajectory.directory, step)
    except InputError as exc:
        raise AnnotationError(f"episode {ep.info.episode_id} {exc}") from None
    if path is None:
        return None
    try:
        png = path.read_bytes()
    except OSError as exc:
        raise AnnotationError(
            f"episode {ep.info.episode_id} step {step.index}: cannot read screenshot {step.screenshot_file} "
            f"({exc.strerror})"
        ) from None
    masks = ep.masks.get(step.index, [])
    return render_shot(png, step.action, masks=masks, masked_text=step.index in ep.masked_steps,
                       width=options.width, image_format=options.image_format, quality=options.quality)


def _latent_item(ep: _Episode, n: int, redactor: Redactor) -> tuple[FormItem, PageView]:
    steps = ep.trajectory.steps
    step = steps[n]
    latent = latent_of(step)
    assert latent is not None
    last = n == len(steps) - 1
    prev = steps[n - 1] if n > 0 else None
    questions = latent_questions(first=prev is None, last=last, has_completion=latent.completion is not None)
    commanded = redactor.text(prev.selected_step) if prev is not None else None
    context = LatentContext(
        commanded=commanded,
        previous_action=redactor.optional(latent.previous_action),
        mistakes=redactor.text(latent.mistakes),
        completion=redactor.optional(latent.completion),
    )
    item_id = f"step_{n:03d}"
    panels = []
    if prev is not None:
        panels.append(Panel(f"Step {n - 1}: previous screen (its action drawn in red)",
                            str(prev.index) if prev.screenshot_file else None, _step_lines(prev, ep, redactor)))
    panels.append(Panel(f"Step {n}: this screen" + ("" if last else " (the next action drawn in red)"),
                        str(step.index) if step.screenshot_file else None, _step_lines(step, ep, redactor)))
    estimates = [
        ("Inferred previous action", context.previous_action or "(first step: none)"),
        ("Screen summary", redactor.text(latent.screen_summary)),
        ("Progression", redactor.text(latent.progression)),
        ("Mistakes", context.mistakes),
    ]
    if context.completion is not None:
        estimates.append(("Completion", context.completion))
    title = f"Step {n} of {len(steps) - 1}"
    page = PageView(item_id, title, tuple(panels), tuple(estimates), questions)
    return FormItem(item_id, n, questions, context), page


def _e2e_item(ep: _Episode, redactor: Redactor) -> tuple[FormItem, PageView]:
    labels = tuple(redactor.text(x) for x in ep.suite_task.partial) if ep.suite_task else ()
    questions = e2e_questions(labels)
    panels = tuple(
        Panel(f"Step {s.index}", str(s.index) if s.screenshot_file else None, _step_lines(s, ep, redactor))
        for s in ep.trajectory.steps
    )
    page = PageView("episode", "The whole episode", panels, (), questions)
    return FormItem("episode", None, questions, None), page


def _guess(record: EpisodeRecord) -> Guess | None:
    cause = guessed_cause(record)
    if cause is None:
        return None
    why = (f"{record.grounding_errors} step(s) could not be grounded" if record.grounding_errors
           else "every chosen step was grounded, so the steps themselves are suspected")
    return Guess(ERRORS_QUESTION_ID, cause.value, f"{CAUSE_LABELS[cause].split(':')[0]} ({why})")


def _errors_item(ep: _Episode, redactor: Redactor) -> tuple[FormItem, PageView]:
    questions = errors_questions()
    panels = tuple(
        Panel(f"Step {s.index}", str(s.index) if s.screenshot_file else None, _step_lines(s, ep, redactor))
        for s in ep.trajectory.steps
    )
    guess = _guess(ep.record) if ep.record is not None else None
    page = PageView("episode", "The failed episode", panels, (), questions, guess)
    return FormItem("episode", None, questions, None, guess.value if guess else None), page


def _ending(trajectory: Trajectory) -> str:
    if trajectory.end is None:
        return "The trajectory is unfinished (the run stopped before the episode ended)."
    return STOP_WORDS.get(trajectory.end.stop_reason.value, trajectory.end.stop_reason.value)


def _units(episodes: list[_Episode], kind: FormKind) -> list[tuple[int, int]]:
    if kind is FormKind.E2E:
        return [(i, -1) for i in range(len(episodes))]
    if kind is FormKind.ERRORS:
        return [(i, -1) for i, ep in enumerate(episodes) if ep.record is not None and _failed(ep.record)]
    return [(i, s.index) for i, ep in enumerate(episodes) for s in ep.trajectory.steps if latent_of(s) is not None]


def _failed(record: EpisodeRecord) -> bool:
    return record.status is EpisodeStatus.FINISHED and record.success is False


def _outcomes(records: list[EpisodeRecord], ratings: Path | None) -> dict[str, EpisodeRecord]:
    """The sweep's newest record of each episode, by trajectory directory, with rater verdicts applied."""
    newest = list(latest(records).values())
    if ratings is not None:
        newest = apply_ratings(newest, load_ratings(ratings))
    return by_trajectory(newest)


def _episodes(run_dir: Path, kind: FormKind, ratings: Path | None = None) -> list[_Episode]:
    tasks = TaskIndex()
    sweep = sweep_records(run_dir)
    entries = by_trajectory(sweep)
    # Only errors forms need the outcomes (and the ratings that overrule them).
    records = _outcomes(sweep, ratings) if kind is FormKind.ERRORS else {}
    out = []
    for t in find_episodes(run_dir):
        h = t.header
        relative = _relative(t.directory, run_dir)
        entry = entries.get(relative)
        task = tasks.find(h.task_id, entry.suite if entry else None)
        for n, s in enumerate(t.steps):
            if s.index != n:
                raise AnnotationError(f"{t.directory.name}: step records are not numbered 0, 1, 2...")
        key = entry.key if entry else None
        if key is None and h.task_id and h.seed is not None:
            key = f"{h.task_id}__{h.method}__s{h.seed}"
        info = EpisodeInfo(
            episode_id=h.episode_id, goal=h.goal, method=h.method,
            benchmark=task.benchmark if task else CUSTOM, task_id=h.task_id, seed=h.seed,
            stop_reason=t.end.stop_reason.value if t.end else None, steps=len(t.steps),
            trajectory=relative, key=key,
        )
        out.append(_Episode(t, info, task, records.get(relative)))
    return out


def _iter_forms(
    episodes: list[_Episode], chosen: list[tuple[int, int]], options: ExportOptions, redactor: Redactor
) -> Iterator[tuple[FormSpec, tuple[PageView, ...], dict[str, str], _Episode]]:
    by_episode: dict[int, list[int]] = {}
    for e, s in chosen:
        by_episode.setdefault(e, []).append(s)
    used_ids: set[str] = set()
    for e in sorted(by_episode):
        ep = episodes[e]
        if options.kind is FormKind.LATENT:
            made = [_latent_item(ep, n, redactor) for n in by_episode[e]]
            shown = sorted({max(n - 1, 0) for n in by_episode[e]} | set(by_episode[e]))
        else:
            made = [_errors_item(ep, redactor) if options.kind is FormKind.ERRORS else _e2e_item(ep, redactor)]
            shown = [s.index for s in ep.trajectory.steps]
        form_id = _blind_id(options.kind, used_ids)
        used_ids.add(form_id)
        info = EpisodeInfo(**{**{f: getattr(ep.info, f) for f in ep.info.__dataclass_fields__},
                              "goal": redactor.text(ep.info.goal)})
        spec = FormSpec(form_id, options.kind, info, tuple(item for item, _ in made)).with_digest()
        shots = {}
        for index in shown:
            uri = _shot(ep.trajectory.steps[index], ep, options)
            if uri is not None:
                shots[str(index)] = uri
        yield spec, tuple(page for _, page in made), shots, ep


def export_forms(run_dir: Path, out_dir: Path, options: ExportOptions) -> ExportResult:
    """Write forms for the episodes under ``run_dir`` into ``out_dir``.

    Raises:
        ConfigError: For invalid options.
        OutputExistsError: If ``out_dir`` already holds forms (nothing is overwritten).
        AnnotationError: If the run holds nothing to annotate, or a screenshot or dump is unreadable.
    """
    options.check()
    started = time.perf_counter()
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputExistsError(f"--out {out_dir} is a file, not a forms directory; nothing was overwritten")
    if (out_dir / MANIFEST_FILE).exists():
        raise OutputExistsError(f"{out_dir} already holds forms ({MANIFEST_FILE}); choose a new --out directory")
    episodes = _episodes(run_dir, options.kind, options.ratings)
    units = _units(episodes, options.kind)
    if not units and options.kind is FormKind.ERRORS:
        known = sum(ep.record is not None and ep.record.success is not None for ep in episodes)
        raise AnnotationError(
            f"{run_dir}: no failed episode to analyse ({known} of {len(episodes)} episode(s) have a known outcome"
            f"{', none failed' if known else ''}); errors forms need the sweep's {RESULTS_FILE} to say which "
            "failed, and for tasks only raters can score, --ratings SCORES_DIR/ratings.jsonl from e2e forms"
        )
    if not units:
        raise AnnotationError(
            f"{run_dir}: no step carries latent-state estimates (agents without latent state cannot have "
            "latent forms; use --kind e2e)"
        )
    chosen = _select(units, options)
    redactor = Redactor()
    if options.redact_passwords:
        for e in sorted({e for e, _ in chosen}):
            _collect_passwords(episodes[e], redactor)
    raters = tuple(f"r{i}" for i in range(1, options.raters + 1))
    template = _environment().get_template(TEMPLATE)  # type: ignore[attr-defined]
    specs: list[FormSpec] = []
    rendered: list[tuple[str, str]] = []
    for spec, pages, shots, ep in _iter_forms(episodes, chosen, options, redactor):
        specs.append(spec)
        shots_json = _script_json(shots)
        for rater in raters:
            js_spec = {
                "form_id": spec.form_id, "digest": spec.digest, "rater": rater, "kind": spec.kind.value,
                # The page names the episode by the form's blind id (answers.validate_answers accepts it).
                "episode_id": spec.form_id,
                "items": [{"item_id": i.item_id, "title": p.title, "questions": [q.id for q in i.questions]}
                          for i, p in zip(spec.items, pages, strict=True)],
            }
            view = FormView(
                form_id=spec.form_id, digest=spec.digest, rater=rater, kind=spec.kind.value,
                title=TITLES[options.kind],
                goal=spec.episode.goal, benchmark=spec.episode.benchmark, ending=_ending(ep.trajectory), pages=pages,
                spec_json=_script_json(js_spec), shots_json=shots_json,
            )
            rendered.append((form_file(rater, spec.form_id), template.render(form=view)))
    manifest = FormsManifest(options.kind, raters, tuple(specs), options.sample, options.seed,
                             options.redact_passwords)
    files = _write(out_dir, manifest, rendered)
    return ExportResult(manifest, files, len(units), time.perf_counter() - started)


def _write(out_dir: Path, manifest: FormsManifest, rendered: list[tuple[str, str]]) -> tuple[tuple[Path, int], ...]:
    """Create every file exclusively, so a concurrent or repeated export never overwrites one."""
    written = []
    clash = [out_dir / rel for rel, _ in rendered if (out_dir / rel).exists()]
    if clash:
        raise OutputExistsError(f"{clash[0]} already exists; nothing was overwritten")
    try:
        for rel, html in rendered:
            path = out_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            data = html.encode("utf-8")
            with path.open("xb") as fh:
                fh.write(data)
            written.append((path, len(data)))
        with (out_dir / MANIFEST_FILE).open("x", encoding="utf-8") as fh:
            json.dump(manifest_to_json(manifest), fh, ensure_ascii=False, indent=1)
            fh.write("\n")
    except FileExistsError as exc:
        raise OutputExistsError(f"{exc.filename} already exists; nothing was overwritten") from None
    except OSError as exc:
        raise AnnotationError(f"cannot write the forms into {out_dir} ({exc.strerror}: {exc.filename})") from None
    return tuple(written)
