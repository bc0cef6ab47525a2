"""Harvesting an exemplar memory from sweeps: successful training episodes, cut into pieces.

An episode becomes an exemplar only when all of these hold (anything else is skipped with its reason,
and ``memory build`` prints the count of each reason):

* it is the newest attempt of its key in the sweep's ``results.jsonl``, finished, and the task's
  automatic check passed (``success`` true; episodes judged by raters have no verdict and are skipped);
* its task is a sim task with a family and a split, or a hosted task (a MiniWoB++ page), and the split is
  one harvesting may use (:data:`HARVEST_SPLITS`): episodes of the evaluation splits (``eval``,
  ``heldout``) are never harvested, whatever the command line says, so the memory cannot hold the answers
  to the tasks it is scored on. A hosted task is its own family (the published memory votes on the task
  name), and its episode is in ``train`` only on one of the task's train seeds (3000-3999, never an
  evaluation seed) and only for a task its paper did not hold out;
* its trajectory can be read and cut (:func:`latent_agent.agent.exemplars.pieces.cut`);
* no exemplar already kept has the same goal and the same device actions (a sweep runs each task under
  several methods that mostly take the same steps; repeating one demonstration only costs prompt tokens).

Keys: every distinct goal an exemplar achieved, plus the ``goal_variants`` the suite lists for the tasks
that gave exemplars (the paraphrases stand for the ~5 goal strings per template the method card asks
for), each labelled with the task's family. Variants of evaluation tasks are never keys. A hosted task's
keys are its train seeds' utterances each with the first state of its episode (``Task: ...\nState:\n<html>``,
:func:`~latent_agent.agent.exemplars.retrieval.page_key`), as the published code keys each task by 5 of its
instances; its exemplars are in Synapse's syntax, cut by :func:`~latent_agent.agent.exemplars.pieces.cut_page`
(an episode played by another method is skipped: ``not in Synapse's action syntax``).

One memory serves both of Synapse's settings: ``exemplars`` retrieves the nearest task by the goal
(multi-task), ``exemplars-task`` shows the episode's own task's exemplars (per task).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from latent_agent.agent.episode import MAX_GOAL_CHARS
from latent_agent.agent.episode_files import check_sizes, check_trajectory_size
from latent_agent.agent.exemplars.memory import Exemplar, ExemplarMemory, GoalKey, Source
from latent_agent.agent.exemplars.pieces import ForeignSyntax, cut, cut_page
from latent_agent.agent.exemplars.retrieval import page_key
from latent_agent.agent.trajectory import Trajectory, read_trajectory
from latent_agent.benchmarks.results import (
    RESULTS_FILE,
    EpisodeRecord,
    EpisodeStatus,
    ResultsLog,
    episode_directory,
    latest,
)
from latent_agent.benchmarks.sim_tasks import SPLITS, Task, load_suite
from latent_agent.benchmarks.suite import SUITES, BenchmarkTask, load_named_suite
from latent_agent.errors import ConfigError, FileTooLargeError, InputError, SweepStateError, TaskSuiteError
from latent_agent.grounder.actions import action_to_json
from latent_agent.llm.embed.base import Embedder

#: The splits exemplars may come from.
HARVEST_SPLITS = ("train",)
#: The splits that are evaluated: never harvested.
EVALUATION_SPLITS = tuple(s for s in SPLITS if s not in HARVEST_SPLITS)


@dataclass(frozen=True, slots=True)
class Origin:
    """What harvesting needs of an episode's task.

    Attributes:
        task: The task id.
        family: The family its exemplars are filed and retrieved under.
        split: The split the episode belongs to.
        variants: Paraphrases of its goal that become keys.
        page: Whether its episodes ran on a web page (a hosted MiniWoB++ task): its exemplars are Synapse's, in
            its commands, keyed by the task and the first state.
    """

    task: str
    family: str | None
    split: str | None
    variants: tuple[str, ...] = ()
    page: bool = False


def sim_origin(task: Task) -> Origin:
    return Origin(task.id, task.family, task.split, task.goal_variants)


def hosted_origin(task: BenchmarkTask, seed: int | None) -> Origin:
    """A hosted task is its own family; its episode is in ``train`` only on a train seed of a task not held out."""
    if task.split == "heldout" or seed not in task.train_seeds:
        return Origin(task.id, task.id, task.split if task.split == "heldout" else "eval", page=True)
    return Origin(task.id, task.id, "train", page=True)


class TaskOrigins:
    """Finds the task of a results line: the simulated phone's tasks for a suite of that task list
    (:attr:`SuiteSource.sim_task_list`), and the hosted tasks of the suite it names (read once per suite)."""

    def __init__(self, sim: Sequence[Task]) -> None:
        self.sim = {t.id: t for t in sim}
        self.hosted: dict[str, dict[str, BenchmarkTask]] = {}

    def origin(self, record: EpisodeRecord) -> Origin | None:
        """The family and split of ``record``'s episode, or None for a task of neither kind."""
        source = SUITES.get(record.suite)
        if source is not None and source.sim_task_list:
            task = self.sim.get(record.task_id)
            return sim_origin(task) if task is not None else None
        if record.suite not in self.hosted:
            try:
                tasks = load_named_suite(record.suite).tasks
            except (ConfigError, TaskSuiteError):
                tasks = ()
            self.hosted[record.suite] = {t.id: t for t in tasks if t.hosted is not None}
        hosted = self.hosted[record.suite].get(record.task_id)
        return hosted_origin(hosted, record.seed) if hosted is not None else None


@dataclass(frozen=True, slots=True)
class Skipped:
    """An episode that gave no exemplar.

    Attributes:
        run: The sweep directory.
        key: The episode key.
        reason: Why, in a few words (the same words for the same reason, so they can be counted).
        detail: More, when there is more (the error of an unreadable trajectory, the exemplar a
            duplicate repeats).
    """

    run: str
    key: str
    reason: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Harvest:
    """What harvesting found: the exemplars, their keys, and what was left out."""

    exemplars: tuple[Exemplar, ...]
    keys: tuple[GoalKey, ...]
    skipped: tuple[Skipped, ...]
    runs: tuple[str, ...]
    families: Mapping[str, int] = field(default_factory=dict)

    def skip_counts(self) -> Counter[str]:
        """How many episodes each reason left out."""
        return Counter(s.reason for s in self.skipped)


def check_splits(splits: Sequence[str]) -> tuple[str, ...]:
    """The splits to harvest, after refusing the evaluation splits and unknown names.

    Raises:
        ConfigError: An evaluation split or an unknown split is named.
    """
    chosen = tuple(dict.fromkeys(s.strip() for s in splits if s.strip()))
    leaking = [s for s in chosen if s in EVALUATION_SPLITS]
    if leaking:
        raise ConfigError(f"--split {','.join(leaking)}: exemplars are never harvested from the evaluation "
                          f"splits ({', '.join(EVALUATION_SPLITS)}); the memory would hold the answers to the "
                          f"tasks it is scored on. Use --split {','.join(HARVEST_SPLITS)}")
    unknown = [s for s in chosen if s not in HARVEST_SPLITS]
    if unknown or not chosen:
        raise ConfigError(f"--split {','.join(unknown) or '(none)'}: unknown split; harvesting uses "
                          f"{', '.join(HARVEST_SPLITS)}")
    return chosen


def harvest(runs: Sequence[Path], *, tasks: Sequence[Task] | None = None,
            splits: Sequence[str] = HARVEST_SPLITS) -> Harvest:
    """Collect exemplars and keys from the sweep directories ``runs``.

    Args:
        runs: Sweep directories (each with ``results.jsonl``).
        tasks: The sim tasks that give each episode's family and split (default: the sim suite); a hosted
            task's come from the suite its results line names.
        splits: The splits to harvest (see :func:`check_splits`).

    Raises:
        SweepStateError: A directory is not a sweep, its results file is malformed, or it names a trajectory
            outside the sweep.
        ConfigError: An evaluation split is asked for.
    """
    allowed = check_splits(splits)
    known = TaskOrigins(load_suite() if tasks is None else tasks)
    exemplars: list[Exemplar] = []
    skipped: list[Skipped] = []
    used_ids: set[str] = set()
    seen: dict[tuple[str, tuple[str, ...]], str] = {}
    sources: list[Origin] = []
    for run in runs:
        if not (run / RESULTS_FILE).is_file():
            raise SweepStateError(f"{run} is not a sweep directory (it has no {RESULTS_FILE}); "
                                  "memory build harvests sweeps, whose results say which episodes passed the check")
        for record in sorted(latest(ResultsLog(run).load()).values(), key=lambda r: r.key):
            task = known.origin(record)
            reason = _refusal(record.status, record.success, task, allowed)
            if reason is not None:
                skipped.append(Skipped(str(run), record.key, reason))
                continue
            assert task is not None and task.family is not None and task.split is not None
            directory = episode_directory(run, record)  # refuses the sweep when it leads outside, as report does
            try:
                trajectory = read_bounded(directory)
                pieces = cut_page(trajectory) if task.page else cut(trajectory)
            except Unfit as unfit:
                skipped.append(Skipped(str(run), record.key, unfit.reason, unfit.detail))
                continue
            except ForeignSyntax as exc:
                skipped.append(Skipped(str(run), record.key, "not in Synapse's action syntax", str(exc)))
                continue
            except (InputError, OSError, KeyError, TypeError, ValueError) as exc:
                skipped.append(Skipped(str(run), record.key, "trajectory unreadable", str(exc)))
                continue
            # Sweeps run each task under many methods that take the same steps: one exemplar of a goal
            # per distinct sequence of device actions is all a prompt can use.
            taken = (trajectory.header.goal, tuple(json.dumps(action_to_json(st.action), sort_keys=True)
                                                    for piece in pieces for st in piece.steps))
            if taken in seen:
                skipped.append(Skipped(str(run), record.key, "same goal and actions as an exemplar kept",
                                       seen[taken]))
                continue
            exemplar_id = _unique(record.key, used_ids)
            seen[taken] = exemplar_id
            source = Source(run=str(run), episode=record.key, task=record.task_id, method=record.method,
                            checked=True, split=task.split, seed=record.seed)
            exemplars.append(Exemplar(exemplar_id, trajectory.header.goal, task.family, pieces, source))
            sources.append(task)
    return Harvest(tuple(exemplars), _keys(exemplars, sources), tuple(skipped), tuple(str(r) for r in runs),
                   dict(Counter(x.family for x in exemplars)))


class Unfit(Exception):
    """An episode too large to read, or holding what a run never records (:func:`read_bounded`).

    Attributes:
        reason: Why, in a few words (a skip reason, counted).
        detail: The refusal's own line, when there is one.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def read_bounded(directory: Path) -> Trajectory:
    """An episode of a copied sweep, read within the bounds a run keeps to: a trajectory file and screen dumps no
    larger than :mod:`latent_agent.agent.episode_files` allows (checked before they are read), and a goal no
    longer than a run accepts.

    Raises:
        Unfit: It is out of bounds.
        InputError: The trajectory cannot be read.
    """
    try:
        check_trajectory_size(directory)
        trajectory = read_trajectory(directory)
        check_sizes(trajectory)
    except FileTooLargeError as exc:
        raise Unfit("too large", str(exc)) from None
    if len(trajectory.header.goal) > MAX_GOAL_CHARS:
        raise Unfit("goal longer than a run accepts")
    return trajectory


def _refusal(status: EpisodeStatus, success: bool | None, task: Origin | None,
             allowed: tuple[str, ...]) -> str | None:
    if status is not EpisodeStatus.FINISHED:
        return "errored"
    if success is None:
        return "no automatic check"
    if not success:
        return "check failed"
    if task is None:
        return "not a sim or hosted task"
    if task.family is None or task.split is None:
        return "task has no family or split"
    if task.split not in allowed:
        return f"{task.split} split"
    return None


def _unique(base: str, used: set[str]) -> str:
    candidate, n = base, 1
    while candidate in used:
        n += 1
        candidate = f"{base}#{n}"
    used.add(candidate)
    return candidate


def _keys(exemplars: Sequence[Exemplar], tasks: Sequence[Origin]) -> tuple[GoalKey, ...]:
    keys: dict[tuple[str, str], GoalKey] = {}
    for exemplar, task in zip(exemplars, tasks, strict=True):
        text = page_key(exemplar.goal, exemplar.pieces[0].screen) if task.page else exemplar.goal
        keys.setdefault((text, exemplar.family), GoalKey(text, exemplar.family, exemplar.id))
    for task in tasks:
        assert task.family is not None
        for variant in task.variants:
            keys.setdefault((variant, task.family), GoalKey(variant, task.family, None))
    return tuple(keys.values())


def build_memory(found: Harvest, embedder: Embedder) -> ExemplarMemory:
    """The memory of a harvest: its keys embedded with ``embedder``.

    Raises:
        InputError: The harvest holds no exemplar (nothing passed; the skip reasons say why).
    """
    if not found.exemplars:
        counts = ", ".join(f"{n} {reason}" for reason, n in sorted(found.skip_counts().items())) or "no episodes"
        raise InputError(f"no episode of {', '.join(found.runs)} can be an exemplar ({counts})")
    vectors = embedder.embed([k.text for k in found.keys])
    return ExemplarMemory(exemplars=found.exemplars, keys=found.keys, vectors=vectors, embedder=embedder.info,
                          runs=found.runs)
