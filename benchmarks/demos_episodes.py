"""CAAP demonstrations from recorded episodes: the successful train-seed episodes of a sweep.

CAAP's demonstrations were recorded by a person on seeds apart from the evaluated ones. A MiniWoB++ task
has no reference solution to replay, so its demonstrations are the episodes of a sweep on the task's train
seeds (3000-3999) that the page's reward judged successful, whichever method played them. An episode is
taken when harvesting would take it for an exemplar memory (:class:`~latent_agent.benchmarks.harvest.
TaskOrigins`: finished, successful, in the ``train`` split; never an evaluation seed or a held-out task).
Each executed step of its last trial becomes one action in script form: the catalogue function, the
attributes of the listed element under the action's point on the screen the step was decided on, and its
other arguments; the element lists before and after it come from the same screens (after the last action
the task had ended, and no screen was recorded: the list is empty). One demonstration is kept per task and
goal.

**The surface and the observer.** An episode played on a web page (its device, as the results line names it,
declares that surface: MiniWoB++) is written in the published MiniWoB++ functions
(:func:`~latent_agent.agent.caap.scripts.web_script_actions`: one action may be several, a click then the
typing, a drag's hold, move and release; an action none stands for leaves the episode out), its rationales
speak of a web page, and its element lists are read **with the screen observer**, the observer CAAP is
evaluated with there: from the saved screenshots (or the saved screens themselves when the episode was
observed that way), never from the page's tree, so the demonstrations list elements as the evaluated episodes
see them. The parts of one action share the screen after it. A phone's episodes are read from their saved
dumps, one function per action, as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.load import parse_any
from latent_agent.accessibility.screen.observer import ScreenObserver
from latent_agent.agent.caap.demos import TaskInfo
from latent_agent.agent.caap.elements import UIElement, build_elements
from latent_agent.agent.caap.scripts import NotAFunction, script_actions
from latent_agent.agent.episode_files import MAX_SCREEN_BYTES, read_screen, screen_path, screenshot_path
from latent_agent.agent.trajectory import StepRecord, Trajectory
from latent_agent.benchmarks.demos import RecordedAction, RecordedDemo
from latent_agent.benchmarks.harvest import TaskOrigins, Unfit, read_bounded
from latent_agent.benchmarks.results import RESULTS_FILE, EpisodeStatus, ResultsLog, episode_directory, latest
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.device.spec import capabilities_of, parse_device_spec
from latent_agent.errors import InputError, MissingExtraError, SweepStateError
from latent_agent.safe_paths import read_capped
from latent_agent.surfaces import PHONE, Surface, surface_of


@dataclass(frozen=True, slots=True)
class EpisodeDemos:
    """The demonstrations recorded from sweeps, the tasks they came from, and how many episodes were skipped why."""

    demos: tuple[RecordedDemo, ...]
    tasks: tuple[TaskInfo, ...]
    skipped: Counter[str]


#: What the screens of a web page's episode are read with (its element lists, as CAAP sees them there).
WEB_OBSERVATION = "screen"


def _elements(trajectory: Trajectory, step: StepRecord, observer: ScreenObserver | None) -> tuple[UIElement, ...]:
    """The element list of the screen ``step`` was decided on: its saved dump, or (with ``observer``, for an
    episode that saved the page's tree) its screenshot read by the screen observer."""
    directory = trajectory.directory
    if observer is None or trajectory.header.observation == WEB_OBSERVATION:
        raw = read_screen(directory, step)  # inside the episode, and not larger than a screen
        return build_elements(clean_tree(parse_any(raw, source=str(screen_path(directory, step)))))
    shot = screenshot_path(directory, step)
    if shot is None:
        raise InputError(f"{directory}: step {step.index} has no screenshot for the screen observer to read")
    png = read_capped(shot, MAX_SCREEN_BYTES, f"step {step.index}: screenshot")
    return build_elements(clean_tree(observer.read(png, package=step.foreground_package).tree))


def record_episode(trajectory: Trajectory, task_id: str, family: str | None, surface: Surface = PHONE,
                   observer: ScreenObserver | None = None) -> RecordedDemo:
    """The demonstration an episode's last trial gives, in ``surface``'s functions.

    Args:
        trajectory: The episode.
        task_id: Its task.
        family: The task's family.
        surface: What the episode was played on.
        observer: On a web page, what reads the screenshots (a new screen observer when None).

    Raises:
        InputError: The trajectory names a screen outside its folder, executed nothing, or (on a web page) a
            step has no screenshot.
        NotAFunction: An action no function of ``surface``'s catalogue stands for.
        ParseError: A screen dump or a screenshot cannot be read.
        OSError: A screen file cannot be read.
    """
    last = max((s.trial for s in trajectory.steps), default=0)
    steps = [s for s in trajectory.steps
             if s.trial == last and s.executed and s.action is not None and s.execution_error is None]
    if not steps:
        raise InputError(f"{trajectory.directory}: the episode executed no step")
    reader = (observer or ScreenObserver()) if surface.web else None
    screens = [_elements(trajectory, s, reader) for s in steps]
    actions = []
    for i, step in enumerate(steps):
        assert step.action is not None
        after = screens[i + 1] if i + 1 < len(screens) else ()
        actions += [RecordedAction(script, screens[i], after)
                    for script in script_actions(step.action, screens[i], surface)]
    if not actions:
        raise InputError(f"{trajectory.directory}: no step of the episode is a function of the catalogue")
    return RecordedDemo(task_id, trajectory.header.goal, family, tuple(actions), surface.kind)


def episode_surface(device: str) -> Surface:
    """What the device a results line names (``miniwob#2``, ``sim#1``, ``adb:SERIAL``) shows: its registry
    entry's declared surface.

    Raises:
        ConfigError: The name is no device spec.
    """
    spec, _, copy = device.rpartition("#")
    return surface_of(capabilities_of(parse_device_spec(spec if copy.isdigit() else device)).surface)


def demos_from_sweeps(runs: Sequence[Path]) -> EpisodeDemos:
    """The demonstrations of the successful train-split episodes of the sweeps ``runs``.

    Raises:
        SweepStateError: A directory is not a sweep, or it names a trajectory outside it (as ``report`` refuses).
        MissingExtraError: A web page's episode is to be read and the screen observer's OCR is not installed.
    """
    known = TaskOrigins(load_suite())
    observer = ScreenObserver()  # one for the build: its OCR models load once, on the first screenshot
    demos: list[RecordedDemo] = []
    tasks: dict[str, TaskInfo] = {}
    seen: set[tuple[str, str]] = set()
    skipped: Counter[str] = Counter()
    for run in runs:
        if not (run / RESULTS_FILE).is_file():
            raise SweepStateError(f"{run} is not a sweep directory (it has no {RESULTS_FILE})")
        for record in sorted(latest(ResultsLog(run).load()).values(), key=lambda r: r.key):
            origin = known.origin(record)
            if record.status is not EpisodeStatus.FINISHED or not record.success:
                skipped["not a success"] += 1
                continue
            if origin is None or origin.split != "train":
                skipped["not a train-split episode"] += 1
                continue
            directory = episode_directory(run, record)  # refuses the sweep when it leads outside
            try:
                trajectory = read_bounded(directory)
                if (record.task_id, trajectory.header.goal) in seen:
                    skipped["same task and goal as a demonstration kept"] += 1
                    continue
                surface = episode_surface(record.device)
                demo = record_episode(trajectory, record.task_id, origin.family, surface,
                                      observer if surface.web else None)
            except Unfit as unfit:
                skipped[unfit.reason] += 1
                continue
            except NotAFunction:
                skipped["an action no CAAP function stands for"] += 1
                continue
            except MissingExtraError:
                raise  # the screen observer's OCR is not installed: no web page's episode can be read
            except (InputError, OSError) as exc:
                skipped[f"unreadable ({type(exc).__name__})"] += 1
                continue
            seen.add((record.task_id, demo.goal))
            demos.append(demo)
            tasks.setdefault(record.task_id, TaskInfo(record.task_id, demo.goal, origin.family))
    return EpisodeDemos(tuple(demos), tuple(tasks.values()), skipped)
