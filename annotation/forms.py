"""What a form asks: typed form specs and the forms manifest (``FORMS_DIR/forms.json``).

``annotate export`` writes one manifest per forms directory, plus one HTML
file per form and rater (``FORMS_DIR/<rater>/<form_id>.html``). The manifest
holds no screenshots and no absolute paths: the episode's trajectory is named
relative to the run directory. ``annotate import`` checks answers against the
manifest and copies each answered form's spec into the scores directory, so
scoring needs neither the run directory nor the HTML files.

A form's :attr:`FormSpec.digest` covers everything the rater was shown that
matters for scoring (episode, items, questions); answers carry it back, so
answers to a form exported differently (another sample, other tasks) are
refused instead of silently mixed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

from latent_agent.annotation.questions import Choice, FormKind, Question
from latent_agent.errors import AnnotationError

SCHEMA_VERSION = 1
MANIFEST_FILE = "forms.json"


@dataclass(frozen=True, slots=True)
class EpisodeInfo:
    """The episode a form is about.

    Attributes:
        episode_id: The trajectory header's id.
        goal: The task as the agent was given it.
        method: Agent method name (``+ZS``, ``-ReAct``...).
        benchmark: Suite the task belongs to (the suite file's name), or ``"custom"``.
        task_id: Task id in that suite, if any.
        seed: Episode seed, if any.
        stop_reason: Why the episode ended (``None`` when the trajectory is unfinished).
        steps: Number of steps recorded.
        trajectory: Episode directory relative to the exported run directory.
        key: The sweep's episode key (``task__method__sSEED``) from ``results.jsonl``,
            or built from the header; ``None`` when neither says.
    """

    episode_id: str
    goal: str
    method: str
    benchmark: str
    task_id: str | None
    seed: int | None
    stop_reason: str | None
    steps: int
    trajectory: str
    key: str | None = None


@dataclass(frozen=True, slots=True)
class LatentContext:
    """The agent's estimates at one step, kept for scoring the naive baselines.

    Attributes:
        commanded: The action the agent commanded at the previous step (its
            selected step in words), ``None`` on the first step.
        previous_action: The agent's inferred previous action.
        mistakes: The agent's mistake assessment.
        completion: The agent's completion estimate, if made.
    """

    commanded: str | None
    previous_action: str | None
    mistakes: str
    completion: str | None


@dataclass(frozen=True, slots=True)
class FormItem:
    """One page's worth of questions: a step (``latent``) or the whole episode (``e2e``, ``errors``).

    Attributes:
        item_id: Stable id of the page (``step_003``, ``episode``).
        step: The step a ``latent`` page is about.
        questions: What the page asks.
        latent: The agent's estimates a ``latent`` page shows (for the baselines).
        guess: On an ``errors`` page, the root cause the project guessed automatically from the
            trajectory (a :class:`~latent_agent.benchmarks.ratings.RootCause` value), shown to the rater as a guess;
            it is never an answer.
    """

    item_id: str
    step: int | None
    questions: tuple[Question, ...]
    latent: LatentContext | None = None
    guess: str | None = None

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)


@dataclass(frozen=True, slots=True)
class FormSpec:
    """One form: an episode and the items raters answer about it."""

    form_id: str
    kind: FormKind
    episode: EpisodeInfo
    items: tuple[FormItem, ...]
    digest: str = ""

    def item(self, item_id: str) -> FormItem | None:
        return next((i for i in self.items if i.item_id == item_id), None)

    def with_digest(self) -> FormSpec:
        """This spec with :attr:`digest` computed from its content."""
        body = form_to_json(replace(self, digest=""))
        body.pop("digest")
        text = json.dumps(body, sort_keys=True, ensure_ascii=False)
        return replace(self, digest=hashlib.sha256(text.encode()).hexdigest()[:16])


@dataclass(frozen=True, slots=True)
class FormsManifest:
    """Everything ``annotate export`` produced in one forms directory.

    Attributes:
        kind: Kind of every form in the directory.
        raters: Rater ids; each rater has a copy of every form.
        forms: The forms.
        sample: ``--sample`` as given (``None``: everything was exported).
        seed: Seed of the sample.
        redacted_passwords: Whether text typed into password fields was masked.
    """

    kind: FormKind
    raters: tuple[str, ...]
    forms: tuple[FormSpec, ...]
    sample: int | None = None
    seed: int = 0
    redacted_passwords: bool = False

    def form(self, form_id: str) -> FormSpec | None:
        return next((f for f in self.forms if f.form_id == form_id), None)


def form_file(rater: str, form_id: str) -> str:
    """Where a rater's copy of a form lives, relative to the forms directory."""
    return f"{rater}/{form_id}.html"


# -- JSON ------------------------------------------------------------------------

Json = dict[str, object]


def _question_to_json(q: Question) -> Json:
    return {"id": q.id, "text": q.text, "help": q.help,
            "choices": [{"value": c.value, "label": c.label} for c in q.choices]}


def form_to_json(form: FormSpec) -> Json:
    """JSON object form of a spec (the shape stored in manifests and scores directories)."""
    ep = form.episode
    return {
        "form_id": form.form_id,
        "kind": form.kind.value,
        "digest": form.digest,
        "episode": {
            "episode_id": ep.episode_id, "goal": ep.goal, "method": ep.method, "benchmark": ep.benchmark,
            "task_id": ep.task_id, "seed": ep.seed, "stop_reason": ep.stop_reason, "steps": ep.steps,
            "trajectory": ep.trajectory, "key": ep.key,
        },
        "items": [
            {
                "item_id": item.item_id,
                "step": item.step,
                "questions": [_question_to_json(q) for q in item.questions],
                "latent": None if item.latent is None else {
                    "commanded": item.latent.commanded, "previous_action": item.latent.previous_action,
                    "mistakes": item.latent.mistakes, "completion": item.latent.completion,
                },
                # Only errors pages carry a guess; leaving the key out elsewhere keeps other forms' digests.
                **({"guess": item.guess} if item.guess is not None else {}),
            }
            for item in form.items
        ],
    }


class _Reader:
    """Typed access to a JSON object, with errors that say where."""

    def __init__(self, obj: object, where: str) -> None:
        if not isinstance(obj, dict):
            raise AnnotationError(f"{where}: expected an object, got {type(obj).__name__}")
        self.obj = obj
        self.where = where

    def _get(self, key: str) -> object:
        if key not in self.obj:
            raise AnnotationError(f"{self.where}: missing {key!r}")
        return self.obj[key]

    def text(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str):
            raise AnnotationError(f"{self.where}: {key!r} must be a string, got {value!r}")
        return value

    def opt_text(self, key: str) -> str | None:
        value = self.obj.get(key)
        if value is not None and not isinstance(value, str):
            raise AnnotationError(f"{self.where}: {key!r} must be a string or null, got {value!r}")
        return value

    def opt_int(self, key: str) -> int | None:
        value = self.obj.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise AnnotationError(f"{self.where}: {key!r} must be an integer or null, got {value!r}")
        return value

    def integer(self, key: str) -> int:
        value = self.opt_int(key)
        if value is None:
            raise AnnotationError(f"{self.where}: missing integer {key!r}")
        return value

    def array(self, key: str) -> list[object]:
        value = self._get(key)
        if not isinstance(value, list):
            raise AnnotationError(f"{self.where}: {key!r} must be a list")
        return value

    def sub(self, key: str) -> _Reader:
        return _Reader(self._get(key), f"{self.where}.{key}")


def _kind(value: str, where: str) -> FormKind:
    try:
        return FormKind(value)
    except ValueError:
        kinds = ", ".join(k.value for k in FormKind)
        raise AnnotationError(f"{where}: unknown form kind {value!r}; expected one of {kinds}") from None


def _question_from_json(obj: object, where: str) -> Question:
    r = _Reader(obj, where)
    choices = tuple(
        Choice(c.text("value"), c.text("label"))
        for c in (_Reader(raw, f"{where}.choices") for raw in r.array("choices"))
    )
    if not choices:
        raise AnnotationError(f"{where}: a question needs at least one choice")
    return Question(r.text("id"), r.text("text"), choices, r.opt_text("help") or "")


def form_from_json(obj: object, where: str) -> FormSpec:
    """Read a spec written by :func:`form_to_json`.

    Raises:
        AnnotationError: Naming the field that is missing or malformed.
    """
    r = _Reader(obj, where)
    e = r.sub("episode")
    episode = EpisodeInfo(
        episode_id=e.text("episode_id"), goal=e.text("goal"), method=e.text("method"),
        benchmark=e.text("benchmark"), task_id=e.opt_text("task_id"), seed=e.opt_int("seed"),
        stop_reason=e.opt_text("stop_reason"), steps=e.integer("steps"), trajectory=e.text("trajectory"),
        key=e.opt_text("key"),
    )
    items = []
    for n, raw in enumerate(r.array("items")):
        i = _Reader(raw, f"{where}.items[{n}]")
        latent = None
        if i.obj.get("latent") is not None:
            lat = i.sub("latent")
            latent = LatentContext(lat.opt_text("commanded"), lat.opt_text("previous_action"),
                                   lat.text("mistakes"), lat.opt_text("completion"))
        questions = tuple(_question_from_json(q, f"{i.where}.questions") for q in i.array("questions"))
        items.append(FormItem(i.text("item_id"), i.opt_int("step"), questions, latent, i.opt_text("guess")))
    return FormSpec(r.text("form_id"), _kind(r.text("kind"), where), episode, tuple(items), r.text("digest"))


def manifest_to_json(manifest: FormsManifest) -> Json:
    return {
        "record": "annotation_forms",
        "schema_version": SCHEMA_VERSION,
        "kind": manifest.kind.value,
        "raters": list(manifest.raters),
        "sample": manifest.sample,
        "seed": manifest.seed,
        "redacted_passwords": manifest.redacted_passwords,
        "forms": [form_to_json(f) for f in manifest.forms],
    }


def check_version(obj: object, record: str, where: str) -> None:
    """Refuse a JSON document of another record type or schema version."""
    if not isinstance(obj, dict) or obj.get("record") != record:
        raise AnnotationError(f"{where}: not an {record} file")
    if obj.get("schema_version") != SCHEMA_VERSION:
        raise AnnotationError(
            f"{where}: schema_version {obj.get('schema_version')!r} is not {SCHEMA_VERSION}"
        )


def read_json(path: Path) -> object:
    """Parse a JSON file, turning I/O and syntax errors into :class:`AnnotationError`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AnnotationError(f"{path}: cannot read ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise AnnotationError(f"{path}: not valid JSON ({exc})") from None


def load_manifest(forms_dir: Path) -> FormsManifest:
    """Read ``FORMS_DIR/forms.json``.

    Raises:
        AnnotationError: If it is missing, of another schema version, or malformed.
    """
    path = forms_dir / MANIFEST_FILE
    if not path.is_file():
        raise AnnotationError(f"{forms_dir}: no {MANIFEST_FILE}; is this a directory made by annotate export?")
    obj = read_json(path)
    where = str(path)
    check_version(obj, "annotation_forms", where)
    r = _Reader(obj, where)
    raters = tuple(str(x) for x in r.array("raters"))
    forms = tuple(form_from_json(f, f"{where}: form {n}") for n, f in enumerate(r.array("forms")))
    return FormsManifest(_kind(r.text("kind"), where), raters, forms, r.opt_int("sample"),
                         r.opt_int("seed") or 0, bool(r.obj.get("redacted_passwords", False)))
