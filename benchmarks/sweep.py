"""Parallel, resumable sweeps: every planned episode run once on a pool of devices.

Layout of a sweep directory::

    DIR/manifest.json          the plan (written once, atomically)
    DIR/results.jsonl          one line per finished or errored episode (appended + fsync'ed)
    DIR/episodes/KEY/          each episode's trajectory (KEY.retryN for retried errored episodes)
    DIR/attempts/              trajectories of episodes a crash interrupted, moved aside (never deleted)
    DIR/paused.json            why the sweep paused, and the errored episodes ``--resume`` runs again
    DIR/.sweep.lock            held (flock) while a sweep process works on DIR

A result line is written only after the episode's trajectory is complete, so on
``--resume`` an episode is either recorded (skipped) or not (its leftover
directory is moved to ``attempts/`` and it runs again): nothing is lost and
nothing counted twice. Each device runs one episode at a time in its own
thread; the LLM waits dominate an episode, so threads overlap well. That is the
local executor; ``--executor ray`` runs each device as an actor on the Ray node
that offers it (:mod:`latent_agent.benchmarks.ray_executor`), and this process
still writes every file.

When the same infrastructure failure (the LLM, a device, the budget) ends
``max_consecutive_errors`` episodes in a row, the sweep pauses: no new episode
starts, the episodes of that streak are listed in ``paused.json``, and
:class:`ConsecutiveErrorsError` is raised. ``--resume`` runs those episodes
again (as a new attempt; their errored records stay) and then the rest.
"""

from __future__ import annotations

import collections
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from latent_agent.agent.methods import get_method
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.atomic_write import fsync_dir, open_append, write_atomic
from latent_agent.benchmarks.episodes import (
    EpisodeJob,
    EpisodeRunner,
    SuccessTracker,
    agent_runner,
    errored_record,
    record_from_trajectory,
)
from latent_agent.benchmarks.launch import trial_check
from latent_agent.benchmarks.plan import MANIFEST_FILE, PlannedEpisode, SweepPlan, read_manifest, write_manifest
from latent_agent.benchmarks.pool import DeviceBuilder, DeviceSlot, ResetPolicy, make_pool
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, latest
from latent_agent.benchmarks.suite import Suite
from latent_agent.device.base import Device
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import DeviceSpec, load_device
from latent_agent.device.task_env import task_device
from latent_agent.errors import (
    ConfigError,
    ConsecutiveErrorsError,
    DeviceError,
    DevicePoolExhaustedError,
    InputError,
    SweepLockedError,
    SweepStateError,
)
from latent_agent.safe_paths import refuse_links

EPISODES_DIR = "episodes"
ATTEMPTS_DIR = "attempts"
LOCK_FILE = ".sweep.lock"
PAUSED_FILE = "paused.json"
#: Error kinds of infrastructure failures (a streak of one of them pauses a sweep).
INFRASTRUCTURE_KINDS = frozenset({"llm", "device", "budget"})
#: Default of ``--max-consecutive-errors``: few enough that a dead LLM costs little, more than a fluke.
MAX_CONSECUTIVE_ERRORS = 3


@dataclass(frozen=True, slots=True)
class SweepOptions:
    """How to run a planned sweep.

    Attributes:
        resume: Continue a sweep already planned in the directory.
        retry_errors: With ``resume``, run errored episodes again (as a new attempt).
        reset: Reset policy for real devices.
        screenshots: Whether episodes save screenshots.
        progress: Show the live progress bar (on stderr).
        max_consecutive_errors: Pause after this many episodes in a row ended on the same kind of
            infrastructure failure (0: never pause).
    """

    resume: bool = False
    retry_errors: bool = False
    reset: ResetPolicy = field(default_factory=ResetPolicy)
    screenshots: bool = True
    progress: bool = True
    max_consecutive_errors: int = MAX_CONSECUTIVE_ERRORS


@dataclass(frozen=True, slots=True)
class SweepSummary:
    """What a sweep run did.

    Attributes:
        planned: Episodes in the plan.
        skipped: Already recorded when this run started.
        ran: Episodes this run recorded.
        errored: Of those, how many errored.
        remaining: Planned episodes still without a record.
        moved_aside: Leftover directories of interrupted episodes moved to ``attempts/``.
        elapsed_s: Wall time of this run.
        retired: Devices taken out of the pool, with the reason.
        errored_total: Episodes of the whole sweep whose latest record is an error (this run's and earlier).
    """

    planned: int
    skipped: int
    ran: int
    errored: int
    remaining: int
    moved_aside: int
    elapsed_s: float
    retired: tuple[str, ...] = ()
    errored_total: int = 0

    @property
    def episodes_per_hour(self) -> float:
        return self.ran / self.elapsed_s * 3600 if self.elapsed_s > 0 else 0.0


class _Progress:
    """Thread-safe counts behind the progress bar."""

    def __init__(self, total: int, already: int) -> None:
        self._lock = threading.Lock()
        self.total = total
        self.already = already
        self.done = 0
        self.failed = 0
        self.running = 0

    def started(self) -> None:
        with self._lock:
            self.running += 1

    def finished(self, failed: bool) -> None:
        with self._lock:
            self.running -= 1
            self.done += 1
            self.failed += int(failed)

    def abandoned(self) -> None:
        """An episode that started stopped without a record (its device went away); it runs again."""
        with self._lock:
            self.running -= 1

    def snapshot(self) -> tuple[int, int, int]:
        with self._lock:
            return self.done, self.failed, self.running


class SweepLock:
    """An exclusive ``flock`` on ``DIR/.sweep.lock`` (released when the process dies)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_FILE
        self._fh: IO[str] | None = None

    def __enter__(self) -> SweepLock:
        self._fh = os.fdopen(open_append(self.path), "a", encoding="utf-8")  # never through a planted link
        try:
            fcntl.flock(self._fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise SweepLockedError(f"{self.path.parent} is in use by another sweep process") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()


def episode_dirname(planned: PlannedEpisode, attempt: int) -> str:
    return planned.key if attempt == 1 else f"{planned.key}.retry{attempt}"


def check_directory(directory: Path, plan: SweepPlan, *, resume: bool) -> bool:
    """Check, without writing anything, that ``directory`` can take the sweep ``plan``.

    Returns:
        Whether the directory already holds this sweep's manifest.

    Raises:
        SweepStateError: If it is a file, holds another sweep, holds a sweep and ``resume`` is off,
            or holds files but no sweep.
        OutputPathError: It holds a symbolic link (a copied sweep's ``episodes/`` pointing elsewhere would
            take the episodes written on a resume there).
    """
    if directory.exists() and not directory.is_dir():
        raise SweepStateError(f"--out {directory} is a file, not a sweep directory")
    refuse_links(directory, "--out")
    if (directory / MANIFEST_FILE).exists():
        if not resume:
            raise SweepStateError(f"{directory} already holds a sweep; pass --resume to continue it, "
                                  "or choose another --out")
        planned = read_manifest(directory)
        diff = planned.differences(plan)
        if diff:
            raise SweepStateError(f"{directory} holds a different sweep: " + "; ".join(diff))
        return True
    if not directory.exists():
        return False
    # What a process killed before its manifest was durable can leave behind; anything else is someone's data,
    # which a sweep (even with --resume, which starts a sweep that was never planned) must not move aside.
    foreign = [p.name for p in directory.iterdir()
               if not (p.name == LOCK_FILE or _manifest_temporary(p.name)
                       or (p.name == EPISODES_DIR and p.is_dir() and not any(p.iterdir())))]
    if foreign:
        raise SweepStateError(f"{directory} is not empty and holds no sweep (found {', '.join(sorted(foreign)[:3])}); "
                              "choose another --out")
    return False


def _manifest_temporary(name: str) -> bool:
    """Whether ``name`` is the temporary file of a manifest being written (:func:`write_atomic`)."""
    return name.startswith(f".{MANIFEST_FILE}.") and name.endswith(".tmp")


def prepare_directory(directory: Path, plan: SweepPlan, *, resume: bool) -> None:
    """Create the sweep directory and its manifest, or check an existing one against ``plan``.

    Raises:
        SweepStateError: See :func:`check_directory`.
    """
    _make_directory(directory)
    if check_directory(directory, plan, resume=resume):
        return
    (directory / EPISODES_DIR).mkdir(exist_ok=True)
    write_manifest(directory, plan)


def _make_directory(directory: Path) -> None:
    """Create the sweep directory (and its parents) if missing.

    Raises:
        SweepStateError: If it is a file, or cannot be created.
    """
    if directory.exists() and not directory.is_dir():
        raise SweepStateError(f"--out {directory} is a file, not a sweep directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SweepStateError(f"cannot create the sweep directory {directory} ({exc.strerror})") from None


def _move_aside(directory: Path, referenced: set[str]) -> int:
    """Move episode directories no record refers to (interrupted attempts) into ``attempts/``."""
    episodes = directory / EPISODES_DIR
    if not episodes.is_dir():
        return 0
    aside = directory / ATTEMPTS_DIR
    moved = 0
    for entry in sorted(episodes.iterdir()):
        if f"{EPISODES_DIR}/{entry.name}" in referenced:
            continue
        aside.mkdir(exist_ok=True)
        n = 1
        while (aside / f"{entry.name}.{n}").exists():
            n += 1
        os.replace(entry, aside / f"{entry.name}.{n}")
        moved += 1
    if moved:
        fsync_dir(aside)
        fsync_dir(episodes)
    return moved


def _referenced(records: Sequence[EpisodeRecord]) -> set[str]:
    """Episode directories (relative to the sweep) some record refers to, by their top folder."""
    out = set()
    for record in records:
        parts = Path(record.trajectory).parts
        if len(parts) >= 2:
            out.add(f"{parts[0]}/{parts[1]}")
    return out


@dataclass(frozen=True, slots=True)
class EpisodeContext:
    """What running one planned episode takes besides its device and its LLM client: the same in a worker
    thread here and in a device actor on another machine (:mod:`latent_agent.benchmarks.ray_executor`).

    Attributes:
        suite: The suite the plan's tasks come from.
        plan: The plan.
        directory: Where ``episodes/KEY`` is written: the sweep directory, or a worker's scratch folder whose
            episodes are sent to the driver.
        runner: Runs one episode.
        options: Screenshots, reset policy, ....
    """

    suite: Suite
    plan: SweepPlan
    directory: Path
    runner: EpisodeRunner
    options: SweepOptions


@dataclass
class SweepState:
    """What the workers of a sweep share: the queue, the results log (one writer: this process), the
    progress counts and the pause (an executor's worker threads here, or the Ray driver's loop)."""

    suite: Suite
    plan: SweepPlan
    directory: Path
    log: ResultsLog
    runner: EpisodeRunner
    client_factory: Callable[[], AbstractContextManager[Any]]
    options: SweepOptions
    progress: _Progress
    queue: collections.deque[tuple[PlannedEpisode, int]]
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    ran: int = 0
    errored: int = 0
    streak: list[EpisodeRecord] = field(default_factory=list)
    paused: list[EpisodeRecord] = field(default_factory=list)

    def note(self, record: EpisodeRecord) -> None:
        """Count ``record`` into the run of same-kind infrastructure failures; pause the sweep when it is long."""
        kind = record.error_kind if record.status is EpisodeStatus.ERROR else ""
        with self.lock:
            self.ran += 1
            self.errored += int(record.status is EpisodeStatus.ERROR)
            if self.paused:
                # Episodes that were already running when the sweep paused: theirs are redone too.
                if kind in INFRASTRUCTURE_KINDS:
                    self.paused.append(record)
                return
            if kind not in INFRASTRUCTURE_KINDS or (self.streak and self.streak[-1].error_kind != kind):
                self.streak.clear()
            if kind in INFRASTRUCTURE_KINDS:
                self.streak.append(record)
            limit = self.options.max_consecutive_errors
            if limit and len(self.streak) >= limit:
                self.paused = list(self.streak)
                self.stop.set()

    @property
    def context(self) -> EpisodeContext:
        """What every episode of the sweep is run with."""
        return EpisodeContext(self.suite, self.plan, self.directory, self.runner, self.options)

    def take(self) -> tuple[PlannedEpisode, int] | None:
        with self.lock:
            if self.stop.is_set() or not self.queue:
                return None
            return self.queue.popleft()

    def give_back(self, item: tuple[PlannedEpisode, int]) -> None:
        with self.lock:
            self.queue.appendleft(item)


def _run_one(context: EpisodeContext, slot: DeviceSlot, client: Any, planned: PlannedEpisode, attempt: int,
             device: Device) -> EpisodeRecord:
    task = context.suite.task(planned.task_id)
    benchmark = task.benchmark or context.suite.name  # a task of `paper` counts towards its own benchmark
    dirname = episode_dirname(planned, attempt)
    relative = f"{EPISODES_DIR}/{dirname}"
    out_dir = context.directory / relative
    tracker = SuccessTracker(task, device) if task.sim_task is not None else None

    def failed(exc: BaseException) -> EpisodeRecord:
        return errored_record(planned=planned, suite=benchmark, device_name=slot.name, attempt=attempt,
                              relative_dir=relative, exc=exc, out_dir=out_dir)

    if task.hosted is not None:
        try:
            planned = replace(planned, goal=_load_hosted(task.hosted, planned.seed, device, slot.name))
        except (ConfigError, DeviceError) as exc:
            if isinstance(exc, DeviceError):
                slot.recover(f"{type(exc).__name__}: {exc}")
            return failed(exc)
    job = EpisodeJob(planned=planned, device=device, client=client, out_dir=out_dir,
                     screenshots=context.options.screenshots, on_step=tracker,
                     trial_check=trial_check(get_method(planned.method), device.capabilities, task.sim_task),
                     reset_snapshot=context.options.reset.snapshot, **context.plan.as_kwargs())
    try:
        written = Path(context.runner(job)).resolve()
    except Exception as exc:  # a failing episode must not stop the sweep; the record keeps the reason
        if isinstance(exc, DeviceError):
            slot.recover(f"{type(exc).__name__}: {exc}")
        return failed(exc)

    try:
        inside = written.relative_to(context.directory.resolve()).as_posix()
        trajectory = read_trajectory(written)
    except (InputError, ValueError) as exc:
        return failed(exc)
    slot.note_packages(s.foreground_package for s in trajectory.steps)
    try:
        record = record_from_trajectory(planned=planned, suite=benchmark, task=task, device=device,
                                        device_name=slot.name, attempt=attempt, trajectory=trajectory,
                                        relative_dir=inside, tracker=tracker)
    except DeviceError as exc:  # a hosted task's reward could not be read: the episode has no verdict
        slot.recover(f"{type(exc).__name__}: {exc}")
        return failed(exc)
    if record.stop_reason is StopReason.DEVICE_ERROR:
        slot.recover(record.error)
    return record


def _load_hosted(task: str, seed: int, device: Device, name: str) -> str:
    """Open a hosted task on the episode's device with the episode's seed; returns the page's goal.

    Raises:
        ConfigError: The device hosts no judged tasks.
        DeviceError: The task does not load.
    """
    host = task_device(device)
    if host is None:
        raise ConfigError(f"{task} is a task page a device hosting judged tasks loads (e.g. --devices miniwob*N); "
                          f"{name} hosts none")
    return host.load_task(task, seed)


def play(context: EpisodeContext, slot: DeviceSlot, client: Any, planned: PlannedEpisode, attempt: int, *,
         started: Callable[[], None] = lambda: None) -> EpisodeRecord | None:
    """Reset the slot's device for a planned episode and run it.

    Args:
        context: What the episode is run with.
        slot: The device (rebuilt once, or retired, when it fails).
        client: The LLM client of this worker.
        planned: The episode.
        attempt: Its attempt number.
        started: Called once the device is reset, as the episode starts.

    Returns:
        The episode's record (errored when the episode failed), or None when the reset failed and the episode
        did not start (the slot recovered or was retired; the episode is the caller's to give back).
    """
    try:
        device = slot.prepare(planned.seed, hosted=context.suite.task(planned.task_id).hosted is not None)
    except DeviceError as exc:
        slot.recover(f"reset before {planned.key} failed: {exc}")
        return None
    started()
    record = _run_one(context, slot, client, planned, attempt, device)
    return replace(record, noise=context.plan.noise, observation=planned.observation)


def _worker(shared: SweepState, slot: DeviceSlot) -> None:
    try:
        opened = shared.client_factory()
    except Exception as exc:  # without a client this worker can run nothing; the others go on
        slot.retired = f"opening the LLM client failed: {type(exc).__name__}: {exc}"
        return
    try:
        with opened as client:
            while not slot.retired:
                item = shared.take()
                if item is None:
                    return
                planned, attempt = item
                record = play(shared.context, slot, client, planned, attempt, started=shared.progress.started)
                if record is None:  # the reset failed: another device (or this one, rebuilt) runs it
                    shared.give_back(item)
                    continue
                shared.log.append(record)
                failed = record.status is EpisodeStatus.ERROR or record.success is False
                shared.note(record)
                shared.progress.finished(failed)
    finally:
        slot.close()


def _pending(plan: SweepPlan, records: Sequence[EpisodeRecord], retry_errors: bool,
             redo: frozenset[tuple[str, int]] = frozenset()) -> list[tuple[PlannedEpisode, int]]:
    """Episodes to run: those without a record, and errored ones with ``retry_errors`` or listed in ``redo``.

    ``redo`` holds (key, attempt) pairs of a pause's streak; the streak's episodes come first.
    """
    recorded = latest(records)
    first: list[tuple[PlannedEpisode, int]] = []
    out: list[tuple[PlannedEpisode, int]] = []
    for planned in plan.episodes:
        record = recorded.get(planned.key)
        if record is None:
            out.append((planned, 1))
        elif record.status is EpisodeStatus.ERROR and (record.key, record.attempt) in redo:
            first.append((planned, record.attempt + 1))
        elif retry_errors and record.status is EpisodeStatus.ERROR:
            out.append((planned, record.attempt + 1))
    return first + out


def read_paused(directory: Path) -> frozenset[tuple[str, int]]:
    """The (key, attempt) pairs ``paused.json`` asks to run again (none when the sweep did not pause).

    Raises:
        SweepStateError: The file is malformed.
    """
    path = directory / PAUSED_FILE
    if not path.exists():
        return frozenset()
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
        return frozenset((str(e["key"]), int(e["attempt"])) for e in obj["redo"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SweepStateError(f"{path}: malformed ({exc})") from None


def _write_paused(directory: Path, reason: str, records: Sequence[EpisodeRecord]) -> None:
    redo = [{"key": r.key, "attempt": r.attempt, "error": r.error} for r in records]
    write_atomic(directory / PAUSED_FILE,
                 json.dumps({"schema_version": 1, "reason": reason, "redo": redo}, indent=1, ensure_ascii=False) + "\n")


def _pause_message(records: Sequence[EpisodeRecord], remaining: int) -> str:
    last = records[-1]
    what = {"llm": "LLM", "device": "device", "budget": "LLM budget"}.get(last.error_kind, last.error_kind)
    error = " ".join(last.error.split())
    error = error if len(error) <= 300 else error[:299] + "…"
    return (f"sweep paused: the same {what} failure ended {len(records)} episodes in a row (last: {error}); "
            f"{remaining} episode(s) not run yet. Fix the cause, then run the same command with --resume "
            "(it runs these episodes again first)")


@dataclass(frozen=True, slots=True)
class Executed:
    """What an executor reports once its workers are done.

    Attributes:
        retired: The devices taken out of the pool, each ``NAME: why``.
        exhausted: Whether every device of the pool was retired.
    """

    retired: tuple[str, ...]
    exhausted: bool


#: Runs the queued episodes of a sweep (:class:`SweepState`) on its device pool (the ``--devices`` specs, built
#: with the builder) until the queue is empty, the sweep pauses or no device is left, and shows the progress:
#: the worker threads of this process (:func:`run_local`, the default) or a Ray cluster's device actors
#: (:mod:`latent_agent.benchmarks.ray_executor`).
SweepExecutor = Callable[[SweepState, Sequence[DeviceSpec], DeviceBuilder], Executed]


def run_local(shared: SweepState, devices: Sequence[DeviceSpec], build_device: DeviceBuilder) -> Executed:
    """The local executor: one thread per device of the pool, each running one episode at a time."""
    slots = make_pool(devices, shared.options.reset, build_device, noise=NoiseConfig.parse(shared.plan.noise))
    threads = [threading.Thread(target=_worker, args=(shared, slot), name=f"sweep-{slot.name}", daemon=True)
               for slot in slots]
    for thread in threads:
        thread.start()
    watch(threads, shared.progress, enabled=shared.options.progress)
    return Executed(tuple(f"{s.name}: {s.retired}" for s in slots if s.retired), all(s.retired for s in slots))


def run_sweep(directory: Path, suite: Suite, plan: SweepPlan, devices: Sequence[DeviceSpec], *,
              client_factory: Callable[[], AbstractContextManager[Any]], options: SweepOptions | None = None,
              runner: EpisodeRunner = agent_runner,
              build_device: DeviceBuilder = load_device, executor: SweepExecutor = run_local) -> SweepSummary:
    """Run every planned episode not yet recorded in ``directory``.

    Args:
        directory: The sweep directory (created if missing).
        suite: The suite the plan's tasks come from.
        plan: The plan (checked against the manifest when resuming).
        devices: The pool.
        client_factory: Opens one LLM client per device worker (a context manager: the client
            is closed, and a local stand-in server stopped, when the worker ends). A sweep-wide
            budget or accountant is given to every client it opens (the clients apply them).
        options: Resume, retries, reset policy, screenshots, progress bar.
        runner: Runs one episode (the agent by default).
        build_device: Builds a device from its spec and the sweep's noise (the ``--device`` loader).
        executor: Runs the episodes on the pool (:data:`SweepExecutor`): threads here by default.

    Raises:
        SweepStateError: The directory holds another sweep (or one and ``resume`` is off).
        SweepLockedError: Another process is running a sweep in ``directory``.
        DevicePoolExhaustedError: Every device failed before the plan was done.
    """
    options = options or SweepOptions()
    _make_directory(directory)
    started = time.monotonic()
    with SweepLock(directory):
        prepare_directory(directory, plan, resume=options.resume)
        log = ResultsLog(directory)
        records = log.load(repair=True)
        known = {e.key for e in plan.episodes}
        stray = sorted({r.key for r in records} - known)
        if stray:
            raise SweepStateError(f"{log.path} records episodes the plan does not have: {', '.join(stray[:5])}")
        moved = _move_aside(directory, _referenced(records))
        redo = read_paused(directory) if options.resume else frozenset()
        pending = _pending(plan, records, options.retry_errors, redo)
        skipped = len(latest(records)) - sum(1 for _, attempt in pending if attempt > 1)
        progress = _Progress(len(pending), skipped)
        shared = SweepState(suite=suite, plan=plan, directory=directory, log=log, runner=runner,
                         client_factory=client_factory, options=options, progress=progress,
                         queue=collections.deque(pending))
        try:
            executed = executor(shared, devices, build_device)
        except KeyboardInterrupt:
            shared.stop.set()
            raise
        final = log.load()
        remaining = len(_pending(plan, final, retry_errors=False))
        retired = executed.retired
        if shared.paused:
            message = _pause_message(shared.paused, remaining)
            _write_paused(directory, message, shared.paused)
            raise ConsecutiveErrorsError(message)
        newest = latest(final)
        if all(key in newest and newest[key].attempt > attempt for key, attempt in redo):
            (directory / PAUSED_FILE).unlink(missing_ok=True)  # every episode of the pause has been run again
        if shared.queue and executed.exhausted:
            raise DevicePoolExhaustedError(
                f"every device failed; {len(shared.queue)} episodes not run (--resume continues): " + "; ".join(retired)
            )
        errored_total = sum(r.status is EpisodeStatus.ERROR for r in newest.values())
        return SweepSummary(planned=len(plan.episodes), skipped=skipped, ran=shared.ran, errored=shared.errored,
                            remaining=remaining, moved_aside=moved, elapsed_s=time.monotonic() - started,
                            retired=retired, errored_total=errored_total)


def watch(threads: Sequence[threading.Thread], progress: _Progress, *, enabled: bool) -> None:
    """Wait for the workers, showing done / failed / running and an ETA (no bar when nothing is to run)."""
    if not enabled or progress.total == 0:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
        return

    console = Console(stderr=True)
    columns = (TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("", total=progress.total)
        while any(t.is_alive() for t in threads):
            done, failed, running = progress.snapshot()
            bar.update(task, completed=done, description=f"done {done} · failed {failed} · running {running}")
            threads[0].join(0.2) if threads[0].is_alive() else time.sleep(0.2)
        done, failed, running = progress.snapshot()
        bar.update(task, completed=done, description=f"done {done} · failed {failed} · running {running}")
