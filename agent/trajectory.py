"""Episode trajectories: typed records, written step by step, read back for sweeps and raters.

One directory per episode::

    EPISODE_DIR/
      trajectory.jsonl        one JSON object per line, each with "record" and "schema_version":
                              "episode" (header), then one "step" per step (a "trial" between
                              two trials of a method that tries again), then "end"
      screens/step_000.xml    raw accessibility dump the step observed (as the device produced it)
      screens/step_000.png    screenshot of the same moment

Lines are flushed and fsync'ed as they are written, so a crash loses at most
the step in progress; :func:`read_trajectory` reports a trajectory without an
``end`` record as unfinished rather than guessing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

from latent_agent import codec
from latent_agent.agent.record_types import checked
from latent_agent.device.task_env import TaskReward
from latent_agent.errors import InputError, OutputPathError
from latent_agent.grounder.actions import Action
from latent_agent.llm.images import ImageInfo
from latent_agent.llm.secrets import redact
from latent_agent.llm.types import MessageInfo

#: Version 2 added the list of inferred previous actions, the commanded step and the previous step's
#: error to the latent state, and the stop rule to the header and the end record. Version 3 replaced
#: the step's ``latent`` with the method's ``state`` (tagged with its ``kind``) and the fixed timing
#: fields with a dict of ``phases``; older steps are converted as they are read. Version 4 added what a
#: real model showed was missing: each call's finish reasons, output cap and parse error, why a rewritten
#: goal was refused (the header's ``goal_rejected``), the calls of a step cut short by an LLM error (the
#: end record's ``calls``) and the stop reason ``gave_up``; older records read with those empty. The
#: header's ``llm_server`` (what a local server said about itself) is optional: absent, it reads as None.
SCHEMA_VERSION = 4
#: Versions :func:`read_trajectory` reads (older records lack fields that have defaults).
READABLE_VERSIONS = (1, 2, 3, 4)
#: The timing fields of versions 1 and 2, each a phase of version 3 (``observe_s`` -> ``observe``).
_OLD_PHASES = ("observe", "latent", "select", "ground", "complete", "execute")
#: The state kind of the latent-state method's estimates (``agent/latent_state/state.py``), which versions 1
#: and 2 wrote as the step's ``latent``: such a step reads as that state.
LATENT_KIND = "latent"
TRAJECTORY_FILE = "trajectory.jsonl"


class StopReason(StrEnum):
    """Why an episode (or a trial of it) ended: one reason each.

    Files written before ``method_cap`` existed say ``max_steps`` where a method's own cap ended the episode,
    and files written before CAAP's "infeasible" was ``gave_up`` say ``done`` for it (the end record's detail
    tells them apart); they are read as written.
    """

    COMPLETED = "completed"  # + agents: the completion estimate began with "Yes"
    #: The method's own answer said the task is done: a - agent's selected step (read by the stop rule), the
    #: exemplar agent's DONE, CAAP's "complete" status or its answer, the reflection planner's DONE.
    DONE = "done"
    #: The episode's step limit (``max_steps``, per trial) was reached: the method had not stopped.
    MAX_STEPS = "max_steps"
    #: The method's own cap on its steps or plans ended the trial (CAAP's step cap, the exemplar agent's
    #: piece cap), without judging the task complete; the episode's step limit is :attr:`MAX_STEPS`.
    METHOD_CAP = "method_cap"
    REPEATED_ACTIONS = "repeated_actions"  # three identical steps in a row (executed, or each failing to ground)
    #: The method ended its trial without judging the task complete (structured reflection: the last step
    #: changed nothing, a screen came back, a step could not be carried out, or no plan was left; CAAP: the
    #: agent reported the task infeasible).
    GAVE_UP = "gave_up"
    #: The device's judged task ended (its done flag, e.g. MiniWoB++'s): its own reward judges the episode.
    TASK_ENDED = "task_ended"
    BUDGET_EXHAUSTED = "budget_exhausted"
    DEVICE_ERROR = "device_error"
    LLM_ERROR = "llm_error"
    INTERRUPTED = "interrupted"


class StopRule(StrEnum):
    """Which stop rule ended an episode that stopped on its own."""

    DONE_IN_ACTION = "done_in_action"  # - agents, the method's rule: "done" anywhere in the action
    DONE_EXACT = "done_exact"  # - agents, the stricter option: the action is only "done" / "You should be done."
    COMPLETION_YES = "completion_yes"  # + agents: the completion estimate began with "Yes"


class PolicyState(Protocol):
    """What a method records about one step besides the screen, the step and the action.

    Each policy defines its own frozen dataclass; :attr:`kind` tags it in the trajectory, and
    :func:`state_kind` registers the class so the reader can rebuild it.
    """

    @property
    def kind(self) -> str:
        """The tag written beside the state's fields."""
        ...


S = TypeVar("S")
_STATE_KINDS: dict[str, type[Any]] = {}


def state_kind(cls: type[S]) -> type[S]:
    """Class decorator: register a dataclass state under its ``kind`` so trajectories read it back.

    Raises:
        ValueError: Another class already uses that kind (two methods would read each other's records).
    """
    kind = getattr(cls, "KIND", None)
    if not isinstance(kind, str) or not is_dataclass(cls):
        raise ValueError(f"{cls.__name__} must be a dataclass with a str KIND")
    known = _STATE_KINDS.get(kind)
    # The same class imported again (a module reloaded) may register again; another class may not.
    if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"state kind {kind!r} is already used by {known.__qualname__}")
    _STATE_KINDS[kind] = cls
    return cls


@dataclass(frozen=True, slots=True)
class OpaqueState:
    """A state whose kind this installation does not know (a method since removed): kept as written."""

    kind: str
    fields: Mapping[str, Any]


def state_to_json(state: PolicyState) -> dict[str, Any]:
    """``{"kind": ..., **fields}``."""
    if isinstance(state, OpaqueState):
        return {"kind": state.kind, **state.fields}
    if not is_dataclass(state) or isinstance(state, type):
        raise TypeError(f"a step state must be a dataclass instance, got {type(state).__name__}")
    return {"kind": state.kind, **codec.encode(state)}


def _read_state(obj: Any) -> PolicyState:
    """The codec's reader of a step's ``state``: its kind's class, each field checked; fields the class no
    longer has are dropped (a method may lose one), and an unknown kind is kept as :class:`OpaqueState`."""
    if type(obj) is not dict:
        raise codec.mismatch(f"is a {type(obj).__name__}, not an object")
    data = dict(obj)
    kind = data.pop("kind", None)
    if type(kind) is not str:
        raise codec.mismatch(f"has the kind {kind!r}, not a str")
    cls = _STATE_KINDS.get(kind)
    if cls is None:
        return OpaqueState(kind, data)
    names = {f.name for f in fields(cls)}
    state: PolicyState = codec.decoder(cls)({k: v for k, v in data.items() if k in names})
    return state


def state_from_json(obj: Mapping[str, Any]) -> PolicyState:
    """The state :func:`state_to_json` wrote (lists back to tuples); an unknown kind as :class:`OpaqueState`.

    Raises:
        codec.DecodeError: A field does not hold its type.
    """
    return codec.decode(PolicyState, dict(obj))  # type: ignore[type-abstract]


codec.register(PolicyState, state_to_json, _read_state)


@dataclass(frozen=True, slots=True)
class LLMUsage:
    """LLM cost of a step or an episode."""

    calls: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(self.calls + other.calls, self.prompt_tokens + other.prompt_tokens,
                        self.output_tokens + other.output_tokens, self.latency_s + other.latency_s,
                        self.retries + other.retries)


@dataclass(frozen=True, slots=True)
class LLMCall:
    """One LLM call as the trajectory keeps it (the prompt and every sample, tokens and timing).

    Attributes:
        purpose: What the call was for: ``normalize_goal``, ``previous_action``, ``screen_summary``,
            ``progression``, ``mistakes``, ``completion``, ``select``, ``ground``.
        prompt: The rendered prompt.
        outputs: Every sample's text (empty when the call failed).
        temperature: Sampling temperature asked for.
        n: Samples asked for.
        model: The model that answered (or the client's model when the call failed).
        prompt_tokens: Prompt tokens, as the provider counted them.
        output_tokens: Output tokens over all samples.
        latency_s: Wall time of the call.
        retries: Retries it took.
        started_s: When the call began, in seconds from the start of its step.
        error: ``ErrorType: message`` when the call failed, else ``None``.
        messages: The turns sent before the prompt (multi-turn calls; empty for a bare prompt).
        images: What the images shown with the prompt were (type, size, bytes, SHA-256; never pixels).
        image_tokens: The part of ``prompt_tokens`` the images took (reported or estimated).
        finish_reasons: Why each sample ended, aligned with ``outputs``: ``stop`` (the model finished),
            ``length`` (cut at ``max_output_tokens``: the answer is incomplete), ``safety`` or ``other``;
            empty in records older than schema version 4 and for failed calls.
        max_output_tokens: The output cap each sample was sent with (None: the provider's default).
        parse_error: Why the method could not use the answer (unreadable, cut at the cap, a template's own
            placeholder copied back), the answer itself staying in ``outputs``; None when it was used.
        shape: How the answer's shape was sent (``--llm-structured on``): ``json_schema``, ``grammar`` (GBNF) or
            ``regex``; None when none was (the call kind's answer is free, shapes were off, or see ``shape_note``).
        shape_note: Why a call with a shape was sent without it (the API has no field for it, the server did not
            say it takes one, or refused it); None otherwise.
    """

    purpose: str
    prompt: str
    outputs: tuple[str, ...] = ()
    temperature: float = 0.0
    n: int = 1
    model: str = ""
    prompt_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0
    started_s: float = 0.0
    error: str | None = None
    messages: tuple[MessageInfo, ...] = ()
    images: tuple[ImageInfo, ...] = ()
    image_tokens: int = 0
    finish_reasons: tuple[str, ...] = ()
    max_output_tokens: int | None = None
    parse_error: str | None = None
    shape: str | None = None
    shape_note: str | None = None

    @property
    def truncated(self) -> bool:
        """Whether any sample was cut at the output cap."""
        return "length" in self.finish_reasons


@dataclass(frozen=True, slots=True)
class StepTiming:
    """Where a step's wall time went (seconds).

    Attributes:
        phases: Seconds per phase, named by the loop (``observe``, ``ground``, ``execute``) and by the
            method (the latent-state policy: ``latent``, ``select``, ``complete``); phases that run
            at once (grounding beside a stop check) both count their whole wall time.
        llm_s: Wall time during which at least one LLM call was in flight.
        device_s: Wall time spent in device calls.
        overhead_s: The rest: the agent's own work (rendering, parsing, describing the screen).
        total_s: The whole step, up to (not including) writing its record.
    """

    phases: Mapping[str, float] = field(default_factory=dict)
    llm_s: float = 0.0
    device_s: float = 0.0
    overhead_s: float = 0.0
    total_s: float = 0.0


@dataclass(frozen=True, slots=True)
class EpisodeHeader:
    """What was run: first line of every trajectory.

    ``stop_rule`` is the ``-`` agents' stop rule the episode ran with (``paper`` or ``strict``, see
    :class:`latent_agent.agent.episode.EpisodeConfig`); None in records older than schema version 2.
    """

    episode_id: str
    goal: str
    normalized_goal: str
    method: str
    grounder: str
    llm: str
    device: str
    max_steps: int
    started_at: float
    task_id: str | None = None
    seed: int | None = None
    setup_calls: tuple[LLMCall, ...] = ()
    stop_rule: str | None = None
    #: The simulated phone's noise knobs (``NoiseConfig.spec``, ``none`` for none); None for a real phone.
    noise: str | None = None
    #: Where each step's tree came from: ``a11y``, ``screen`` or ``both`` (older records: the dump, ``a11y``).
    observation: str = "a11y"
    #: Why the model's rewrite of the goal was refused, so that ``normalized_goal`` is the user's own goal
    #: (:mod:`latent_agent.agent.goal_guard`); None when the rewrite was used or none was made.
    goal_rejected: str | None = None
    #: What the LLM's server said about itself (``ServerProfile.to_json``: server, context window and where it
    #: was read, whether ``n`` is sent, images, tokenizer); None for a client with nothing to ask (a cloud API).
    llm_server: dict[str, Any] | None = None
    #: Whether the calls asked for their answers' shapes (``--llm-structured on``); False in older records.
    llm_structured: bool = False


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One step: what was observed, estimated, selected, grounded and executed.

    Attributes:
        index: 0-based step number.
        screen_file: Raw dump, relative to the episode directory.
        screenshot_file: Screenshot (PNG), relative to the episode directory, if taken.
        foreground_package: App in the foreground when observed.
        description: The natural-language screen description the LLM saw.
        state: What the method recorded about the step (its registered policy state, see
            :func:`state_kind`), if anything.
        selected_step: The next step in words, as the action selector chose it.
        samples: Raw selector outputs (the CoT-SC samples, or the ReAct reply).
        action: The grounded action (kept, not executed, when a ``+`` agent stopped at this step);
            ``None`` if grounding failed or a ``-`` agent's selector answered "done".
        grounding_error: Why grounding failed, if it did.
        executed: Whether the action was sent to the device.
        usage: LLM calls made during this step.
        duration_s: Wall time of the whole step.
        executed_detail: What was sent to the device, in words (``tap(540, 1200)``).
        execution_error: Why executing the action failed (an app that is not installed), if it did.
        grounder: Which grounder produced the action (``llm`` or ``rule``), if any.
        calls: Every LLM call of the step, in the order they started.
        timing: Where the step's time went.
        trial: Which trial of the goal the step belongs to (0-based; methods that try again after
            an episode ends, see :class:`TrialRecord`).
    """

    index: int
    screen_file: str
    screenshot_file: str | None
    foreground_package: str
    description: str
    state: PolicyState | None
    selected_step: str
    samples: tuple[str, ...] = ()
    action: Action | None = None
    grounding_error: str | None = None
    executed: bool = False
    usage: LLMUsage = field(default_factory=LLMUsage)
    duration_s: float = 0.0
    executed_detail: str = ""
    execution_error: str | None = None
    grounder: str | None = None
    calls: tuple[LLMCall, ...] = ()
    timing: StepTiming = field(default_factory=StepTiming)
    trial: int = 0


@dataclass(frozen=True, slots=True)
class TrialRecord:
    """Written between two trials of a method that may try the goal again: how the trial ended.

    Attributes:
        trial: The trial that ended (0-based).
        steps: Steps recorded so far, over every trial.
        stop_reason: Why the trial ended.
        detail: More about it.
        again: Whether the method tried again.
        reset: What resetting the phone did, in words (empty when it did not try again).
        calls: The method's LLM calls between the trials.
        usage: Their cost.
        checked: What the task's automatic check said of the phone when the trial ended; None when
            no check ran (no check given, or a file written before the field existed).
        reward: The judged task's own reward when the trial ended, on a device that hosts one (the papers'
            code counted a trial ended with reward > 0 a success); None elsewhere and in older files.
    """

    trial: int
    steps: int
    stop_reason: StopReason
    detail: str
    again: bool
    reset: str = ""
    calls: tuple[LLMCall, ...] = ()
    usage: LLMUsage = field(default_factory=LLMUsage)
    checked: bool | None = None
    reward: TaskReward | None = None


@dataclass(frozen=True, slots=True)
class EpisodeEnd:
    """Last line of a finished trajectory.

    ``calls`` are the LLM calls of a step that ended without a step record (an LLM error, a spent budget,
    an interruption): the finished ones and the one that failed, with its prompt and error. ``reward`` is the
    judged task's own reward when the episode ended, on a device that hosts one (MiniWoB++), else None (and
    in trajectories written before it was recorded). ``task_check`` is what the task's automatic check said of
    the phone when the episode ended (``EpisodeConfig.trial_check``: the goal is a known task and the device's
    state can be checked), else None: the agent's stop reason is its own verdict, this one is not.
    """

    stop_reason: StopReason
    steps: int
    duration_s: float
    usage: LLMUsage
    detail: str = ""
    stop_rule: StopRule | None = None
    calls: tuple[LLMCall, ...] = ()
    reward: TaskReward | None = None
    task_check: bool | None = None


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A trajectory read back from disk. ``end`` is ``None`` while (or if) unfinished."""

    directory: Path
    header: EpisodeHeader
    steps: tuple[StepRecord, ...]
    end: EpisodeEnd | None
    trials: tuple[TrialRecord, ...] = ()


def _call_from_json(obj: dict[str, Any]) -> LLMCall:
    # Calls written before images and turns were recorded have neither key: they read as empty.
    return codec.decode(LLMCall, obj)


def _header_from_json(obj: dict[str, Any]) -> EpisodeHeader:
    calls = tuple(_call_from_json(c) for c in obj.get("setup_calls", ()))
    return EpisodeHeader(**{**obj, "setup_calls": calls})


def _upgrade_step(obj: dict[str, Any], version: int) -> dict[str, Any]:
    """A step record of an older schema version in the current shape (``obj`` is changed)."""
    if version < 3:
        # Versions 1 and 2 kept the latent state as "latent", and one timing field per phase of the paper's flows.
        latent = obj.pop("latent", None)
        obj["state"] = {"kind": LATENT_KIND, **latent} if isinstance(latent, dict) else latent
        timing = obj.get("timing")
        if isinstance(timing, dict):
            obj["timing"] = {**{k: v for k, v in timing.items() if not k.endswith("_s") or k[:-2] not in _OLD_PHASES},
                             "phases": {p: timing[f"{p}_s"] for p in _OLD_PHASES if timing.get(f"{p}_s")}}
    return obj


def prepare_directory(directory: Path) -> Path:
    """Create ``directory`` (and its ``screens/``) for a new episode; returns it.

    Called before an episode's first LLM call, so a bad ``--out`` costs nothing.

    Raises:
        OutputPathError: It already holds a trajectory, or it cannot be created.
    """
    path = directory / TRAJECTORY_FILE
    if path.exists():
        raise OutputPathError(f"{path} already exists; refusing to overwrite an episode")
    try:
        (directory / "screens").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"cannot create the episode directory {directory}: {exc.strerror or exc}") from None
    return directory


class TrajectoryWriter:
    """Appends records to ``EPISODE_DIR/trajectory.jsonl`` durably, one line per record.

    Refuses to write into a directory that already holds a trajectory, so a
    finished episode is never overwritten.

    Raises:
        OutputPathError: The directory holds a trajectory already, or cannot be created or written.
    """

    def __init__(self, directory: Path, header: EpisodeHeader) -> None:
        self.directory = directory
        self.screens = prepare_directory(directory) / "screens"
        path = directory / TRAJECTORY_FILE
        try:
            self._fh: IO[str] = path.open("x", encoding="utf-8")
        except FileExistsError:
            raise OutputPathError(f"{path} already exists; refusing to overwrite an episode") from None
        except OSError as exc:
            raise OutputPathError(f"cannot write {path}: {exc.strerror or exc}") from None
        self._write("episode", asdict(header))

    def _write(self, kind: str, payload: dict[str, Any]) -> None:
        # A message may quote a key or a base URL's credentials (an error's "cannot connect to URL").
        line = redact(json.dumps({"record": kind, "schema_version": SCHEMA_VERSION, **payload}, ensure_ascii=False))
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def save_screen(self, index: int, raw: bytes, screenshot: bytes | None) -> tuple[str, str | None]:
        """Store a step's raw dump and screenshot; returns their relative paths."""
        dump_name = f"screens/step_{index:03d}.xml"
        (self.directory / dump_name).write_bytes(raw)
        shot_name = None
        if screenshot is not None:
            shot_name = f"screens/step_{index:03d}.png"
            (self.directory / shot_name).write_bytes(screenshot)
        return dump_name, shot_name

    def step(self, record: StepRecord) -> None:
        self._write("step", codec.encode(record))

    def trial(self, record: TrialRecord) -> None:
        self._write("trial", codec.encode(record))

    def end(self, record: EpisodeEnd) -> None:
        self._write("end", codec.encode(record))
        self.close()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


def read_trajectory(directory: Path) -> Trajectory:
    """Read an episode directory written by :class:`TrajectoryWriter`.

    Raises:
        InputError: If the file is missing, from a newer schema, or malformed
            (the message names the line).
    """
    if not directory.is_dir():
        raise InputError(f"{directory}: " + ("not a directory" if directory.exists() else "no such directory"))
    path = directory / TRAJECTORY_FILE
    if not path.is_file():
        raise InputError(f"{path}: no trajectory file (is {directory} an episode directory?)")
    header: EpisodeHeader | None = None
    steps: list[StepRecord] = []
    trials: list[TrialRecord] = []
    end: EpisodeEnd | None = None
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise TypeError(f"a JSON {type(obj).__name__}, not an object")
                if obj.get("schema_version") not in READABLE_VERSIONS:
                    raise InputError(f"{path}:{number}: schema_version {obj.get('schema_version')!r} is not one "
                                     f"of {', '.join(map(str, READABLE_VERSIONS))}")
                kind = obj.pop("record")
                version = obj.pop("schema_version")
                # Checked by the codec: the file may come from anyone, and its values end up in pages.
                if kind == "episode":
                    header = checked(_header_from_json(obj))
                elif kind == "step":
                    steps.append(codec.decode(StepRecord, _upgrade_step(obj, version)))
                elif kind == "trial":
                    trials.append(codec.decode(TrialRecord, obj))
                elif kind == "end":
                    end = codec.decode(EpisodeEnd, obj)
                else:
                    raise InputError(f"{path}:{number}: unknown record {kind!r}")
            except codec.DecodeError as exc:
                raise InputError(f"{path}:{number}: malformed record ({exc})") from None
            except InputError:
                raise
            except (ValueError, KeyError, TypeError) as exc:
                # A torn last line is what a crash mid-write leaves: treat as unfinished.
                if number > 1 and line and not line.endswith("\n"):
                    break
                raise InputError(f"{path}:{number}: malformed record ({exc})") from None
    if header is None:
        raise InputError(f"{path}: no episode header")
    return Trajectory(directory=directory, header=header, steps=tuple(steps), end=end, trials=tuple(trials))
