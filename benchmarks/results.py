"""Per-episode results of a sweep: the typed record and the append-only ``results.jsonl``.

Each finished (or errored) episode is one JSON line, written in one ``write``
of a complete line followed by ``fsync``. A crash can therefore leave at most a
torn last line, which :meth:`ResultsLog.load` moves aside (never deletes) and
drops, so the episode is simply run again. Metrics read only these records, so
rater scores can replace the automatic ones record by record (:mod:`latent_agent.benchmarks.ratings`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from latent_agent.agent.trajectory import StopReason
from latent_agent.atomic_write import fsync_dir, open_append
from latent_agent.benchmarks.partial import partial_completion
from latent_agent.errors import InputError, SweepStateError
from latent_agent.json_lines import record_lines
from latent_agent.safe_paths import path_inside

SCHEMA_VERSION = 1
RESULTS_FILE = "results.jsonl"
#: Stop reasons that mean the agent itself decided the task was finished.
SELF_STOPS = frozenset({StopReason.COMPLETED, StopReason.DONE})


_INT_FIELDS = ("seed", "attempt", "steps", "llm_calls", "prompt_tokens", "output_tokens", "grounding_errors")
_FLOAT_FIELDS = ("duration_s", "finished_at")
#: Numbers that are None where they do not apply (the rewards of a task a device does not judge).
_OPTIONAL_FLOAT_FIELDS = ("raw_reward", "time_scaled_reward")
_STR_FIELDS = ("key", "suite", "task_id", "goal", "method", "device", "error", "error_kind", "trajectory", "noise",
               "observation")


class EpisodeStatus(StrEnum):
    """How an episode ended, as far as the sweep is concerned."""

    FINISHED = "finished"  # the agent ran to a stop reason; success may be known or left to raters
    ERROR = "error"  # the device, the LLM or the runner failed; excluded from success metrics


class StopJudgement(StrEnum):
    """When the agent stopped, relative to when the task was done (the raters' stopping question)."""

    RIGHT_TIME = "right_time"
    PREMATURE = "premature"
    EXTRA_STEPS = "extra_steps"
    DID_NOT_STOP = "did_not_stop"


@dataclass(frozen=True, slots=True)
class PartialAnswer:
    """One partial-completion question and its answer (``None`` until a rater answers)."""

    question: str
    answer: bool | None


@dataclass(frozen=True, slots=True)
class EpisodeRecord:
    """One line of ``results.jsonl``.

    Attributes:
        key: ``task__method__sSEED``: the planned episode this records.
        suite: Suite name.
        task_id: Task id within the suite.
        goal: The goal as given to the agent.
        method: Agent variant (``zero-shot+`` ...).
        seed: Episode seed.
        device: Which device of the pool ran it.
        attempt: 1 for the first run; higher when errored episodes were retried.
        status: Finished or errored.
        success: Task completed (regardless of stopping); ``None`` when raters will judge. For a hosted task
            (MiniWoB++) it is the page's judgement: the task ended with raw reward 1.0.
        partial: Partial-completion answers.
        stop_judgement: When the agent stopped relative to success; ``None`` when unknown.
        stop_reason: The trajectory's stop reason (``completed``, ``max_steps``, ...), if it ended.
        steps: Steps taken.
        llm_calls: LLM calls made.
        prompt_tokens: Prompt tokens used.
        output_tokens: Output tokens used.
        duration_s: Wall time of the episode.
        grounding_errors: Steps whose grounding failed.
        success_step: First step after whose action the task held as done (automatic checks only).
        error: Why the episode errored (empty when it did not).
        error_kind: What failed for an errored episode: ``device``, ``llm``, ``budget``,
            ``interrupted`` or ``runner`` (empty when it did not error).
        trajectory: Episode directory, relative to the sweep directory.
        finished_at: Unix time the record was written.
        noise: The simulated phone's noise the episode ran with (``NoiseConfig.spec``: ``none`` or
            ``knob=level,...``; empty in records written before noise could be set).
        observation: Where the agent's view of each screen came from (``a11y``, ``screen`` or ``both``;
            ``a11y`` in records written before it could be chosen).
        raw_reward: A hosted task's own reward at the end of the episode, without the time penalty (1.0
            solved, -1.0 failed, in between for partial credit, 0.0 if the task had not ended); None for
            tasks no device judges (and in records written before rewards were recorded).
        time_scaled_reward: The same reward scaled down by the time taken, as the task reports it (the
            papers' harnesses' reward); None where ``raw_reward`` is.
    """

    key: str
    suite: str
    task_id: str
    goal: str
    method: str
    seed: int
    device: str
    attempt: int
    status: EpisodeStatus
    success: bool | None
    partial: tuple[PartialAnswer, ...] = ()
    stop_judgement: StopJudgement | None = None
    stop_reason: StopReason | None = None
    steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0
    grounding_errors: int = 0
    success_step: int | None = None
    error: str = ""
    error_kind: str = ""
    trajectory: str = ""
    finished_at: float = field(default_factory=time.time)
    noise: str = ""
    observation: str = "a11y"
    raw_reward: float | None = None
    time_scaled_reward: float | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens

    @property
    def self_stopped(self) -> bool:
        """Whether the agent stopped because it judged the task done."""
        return self.stop_reason in SELF_STOPS

    @property
    def partial_score(self) -> float | None:
        """Partial completion (:func:`latent_agent.benchmarks.partial.partial_completion`).

        ``None`` if nothing is answered.
        """
        return partial_completion(p.answer for p in self.partial)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["status"] = self.status.value
        out["stop_judgement"] = self.stop_judgement.value if self.stop_judgement else None
        out["partial"] = [asdict(p) for p in self.partial]
        return {"record": "episode", "schema_version": SCHEMA_VERSION, **out}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], where: str) -> EpisodeRecord:
        """Parse one line's object.

        Raises:
            SweepStateError: For a wrong schema version or a malformed record.
        """
        if obj.get("schema_version") != SCHEMA_VERSION or obj.get("record") != "episode":
            raise SweepStateError(f"{where}: not an episode record of schema_version {SCHEMA_VERSION}")
        data = {k: v for k, v in obj.items() if k not in ("record", "schema_version")}
        wrong = [name for name in _INT_FIELDS if name in data and (type(data[name]) is not int)]
        wrong += [name for name in _FLOAT_FIELDS if name in data and type(data[name]) not in (int, float)]
        wrong += [name for name in _STR_FIELDS if name in data and not isinstance(data[name], str)]
        wrong += [name for name in _OPTIONAL_FLOAT_FIELDS
                  if data.get(name) is not None and type(data[name]) not in (int, float)]
        if data.get("success") not in (True, False, None):
            wrong.append("success")
        if wrong:
            raise SweepStateError(f"{where}: malformed episode record (wrong type of {', '.join(wrong)})")
        try:
            data["status"] = EpisodeStatus(data["status"])
            judgement = data.get("stop_judgement")
            data["stop_judgement"] = StopJudgement(judgement) if judgement is not None else None
            reason = data.get("stop_reason")
            data["stop_reason"] = StopReason(reason) if reason is not None else None
            data["partial"] = tuple(PartialAnswer(str(p["question"]), p["answer"]) for p in data.get("partial", ()))
            for name in _OPTIONAL_FLOAT_FIELDS:
                if data.get(name) is not None:
                    data[name] = float(data[name])
            return cls(**data)
        except (KeyError, TypeError, ValueError) as exc:
            raise SweepStateError(f"{where}: malformed episode record ({exc})") from None


def episode_directory(sweep: Path, record: EpisodeRecord) -> Path:
    """The episode folder ``record`` names, inside ``sweep``: every reader of a sweep's trajectories (the report and
    its sections, memory building, demonstrations) gets it here, since ``results.jsonl`` may be a copied one.

    Raises:
        SweepStateError: The trajectory path is absolute or leads out of the sweep (``..``, a link).
    """
    try:
        return path_inside(sweep, record.trajectory, f"trajectory of episode {record.key}")
    except InputError as exc:
        raise SweepStateError(f"{sweep / RESULTS_FILE}: {exc}") from None


class ResultsLog:
    """The append-only ``results.jsonl`` of one sweep directory (one writer process at a time)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / RESULTS_FILE
        self._lock = threading.Lock()

    def load(self, *, repair: bool = False) -> list[EpisodeRecord]:
        """All records, in the order written.

        Args:
            repair: Move a torn last line (left by a crash mid-write) to ``attempts/``
                and cut it from the file; without it a torn line is just ignored.

        Raises:
            SweepStateError: For a malformed complete line.
        """
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data) and repair:
            self._set_aside_torn(data[end:], end)
        records: list[EpisodeRecord] = []
        for number, line in enumerate(record_lines(data[:end].decode("utf-8")), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SweepStateError(f"{self.path}:{number}: not JSON ({exc})") from None
            records.append(EpisodeRecord.from_json(obj, f"{self.path}:{number}"))
        return records

    def _set_aside_torn(self, torn: bytes, keep: int) -> None:
        aside = self.directory / "attempts"
        aside.mkdir(exist_ok=True)
        target = aside / f"results-torn-{time.time_ns()}.jsonl"
        target.write_bytes(torn)
        with self.path.open("r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        fsync_dir(aside)

    def append(self, record: EpisodeRecord) -> None:
        """Write one record durably (a complete line, then fsync)."""
        line = (json.dumps(record.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            fd = open_append(self.path)  # a link planted as results.jsonl is refused, never followed
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)


def latest(records: Iterable[EpisodeRecord]) -> dict[str, EpisodeRecord]:
    """The last record of every episode key (a retried episode's newest attempt wins)."""
    out: dict[str, EpisodeRecord] = {}
    for record in records:
        current = out.get(record.key)
        if current is None or record.attempt >= current.attempt:
            out[record.key] = record
    return out
