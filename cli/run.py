"""``latent-agent run GOAL``: run one agent episode and watch it step by step.

``--llm demo`` needs no key and no network: it runs a scripted stand-in (it
replays the sim task's reference solution, or reads a MiniWoB++ task's steps from
its utterance; not a language model) behind a local Gemini stand-in, reached
through the real google-genai SDK.
"""

from __future__ import annotations

import argparse
import re
import shlex
import textwrap
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS, get_method
from latent_agent.agent.resources import prepare
from latent_agent.agent.trajectory import TRAJECTORY_FILE
from latent_agent.benchmarks.suite import SUITES, checked_tasks
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.interrupted import Reported
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.cli.needs import require_extras
from latent_agent.cli.options import add_force_argument, add_noise_argument, add_observation_argument
from latent_agent.cli.plain import plain
from latent_agent.cli.settings import add_settings_arguments, settings_from_args
from latent_agent.demo.client import check_playable, stand_in_notice
from latent_agent.device.reset import reset, start_state
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import capabilities_of, load_device, noise_record, parse_device_spec
from latent_agent.device.task_env import task_device
from latent_agent.errors import ConfigError
from latent_agent.exit_codes import EPILOG, for_stop_reason
from latent_agent.grounder.actions import action_to_json
from latent_agent.invocation import command_name
from latent_agent.outputs import EPISODE, claim
from latent_agent.suggest import closest
from latent_agent.surfaces import surface_of
from latent_agent.words import counted

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from latent_agent.agent.episode import EpisodeResult
    from latent_agent.agent.goal import GoalChoice
    from latent_agent.agent.trajectory import StepRecord
    from latent_agent.benchmarks.sim_tasks import Task as SimTask
    from latent_agent.device.base import Device


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:

    p = sub.add_parser(
        "run", help=COMMANDS["run"].help,
        description="Run one agent episode: observe, estimate latent state, choose a step, ground it, act. "
        "Each step is shown as it ends and written to the episode directory (see `latent-agent show`). "
        "--llm demo runs offline: a scripted stand-in that replays the sim task's reference solution, or "
        "reads the steps of MiniWoB++ click-button, click-checkboxes and enter-text from the task's utterance "
        "(not a language model) behind a local Gemini stand-in.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="methods:\n" + _methods_list() + "\n\n" + EPILOG,
    )
    p.add_argument("goal", metavar="GOAL", nargs="?",
                   help="what to do, in words (left out on a device whose task gives the goal: miniwob:TASK)")
    p.add_argument("--device", required=True, metavar="SPEC",
                   help="sim, sim:SEED, adb:SERIAL, u2:SERIAL, miniwob:TASK, ...")
    p.add_argument("--seed", metavar="N",
                   help="start a device with a seeded start state from seed N (a MiniWoB++ task: its problem; "
                        f"default {DEFAULT_TASK_SEED} there)")
    add_noise_argument(p)
    add_llm_options(p)
    p.add_argument("--method", default="zero-shot+", choices=list(METHODS), metavar="NAME",
                   help=f"agent: {', '.join(METHODS)} (default: zero-shot+)")
    add_settings_arguments(p)
    add_observation_argument(p, several=False)
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="episode directory (default: runs/<time>-<method>); must not hold an episode yet")
    p.add_argument("--no-screenshots", action="store_true", help="do not take screenshots")
    p.add_argument("--task", metavar="ID",
                   help="the benchmark task the goal is (recorded in the trajectory; an unknown id is refused). On "
                        "the simulated phone the task's automatic check runs when the episode ends and the summary "
                        "shows it beside the stop reason (task check: passed/failed), as for a goal that is a "
                        "task's goal word for word")
    p.add_argument("--reset", action="store_true",
                   help="start from a reset phone: a served sim (sim serve) is reset fully; other phones go home "
                        "(the app in front force-stopped, Home pressed)")
    p.add_argument("--snapshot", metavar="NAME",
                   help="emulators: every reset loads this snapshot first (adb emu avd snapshot load): --reset, and "
                        "the reset before each later trial of a method that tries again; docs/devices.md")
    add_force_argument(p)
    p.set_defaults(func=run)


#: The seed a judged task starts from when ``--seed`` names none.
DEFAULT_TASK_SEED = 0


def _seed(args: argparse.Namespace) -> int | None:
    """``--seed``, checked against the device (None when not given).

    Raises:
        ConfigError: Not a non-negative integer, or a device without a seeded start state.
    """

    if args.seed is None:
        return None
    try:
        seed = int(args.seed)
    except ValueError:
        raise ConfigError(f"--seed needs an integer, not {args.seed!r}") from None
    if seed < 0:
        raise ConfigError(f"--seed needs an integer >= 0, not {seed}")
    if not capabilities_of(parse_device_spec(args.device)).seeded_reset:
        raise ConfigError(f"--seed {seed}: --device {args.device} has no seeded start state (it is one particular "
                          "device)")
    return seed


def _check_goal(args: argparse.Namespace) -> bool:
    """Whether the device's task gives the goal; checks that GOAL is given exactly when it does not.

    Raises:
        ConfigError: A goal given for a device whose task gives it, or none for any other device.
    """

    from_task = capabilities_of(parse_device_spec(args.device)).task_reward
    if from_task and args.goal is not None:
        raise ConfigError(f"--device {args.device} takes its goal from the task; leave out the goal "
                          f"{_shorten(args.goal, 60)!r}")
    if not from_task and args.goal is None:
        raise ConfigError(f"GOAL is required with --device {args.device} (only a device whose task gives the goal, "
                          "such as miniwob:TASK, runs without one)")
    return from_task


def _load_task(device: Device, seed: int | None) -> tuple[str, str, int]:
    """Open the judged task the device was named with: (its goal, its name, the seed it started from).

    Raises:
        ConfigError: The device names no task (``miniwob`` without ``:TASK``).
        DeviceError: The task does not load.
    """

    judged = task_device(device)
    assert judged is not None, "checked by the device's capabilities"
    if judged.task is None:
        raise ConfigError("name the task to run: --device miniwob:TASK (a sweep names one per episode)")
    start = DEFAULT_TASK_SEED if seed is None else seed
    return judged.load_task(judged.task, start), judged.task, start


def _noise_words(device: Device) -> str:
    """The device's noise in words: its knobs, ``none``, or that a real phone's is unknown."""

    caps = device.capabilities
    # A phone reached over a connection has noise of its own, unknown; a page in a remote browser has none.
    return noise_record(device) or ("of a real phone" if caps.remote and caps.launcher_and_apps else "none")


def _default_out(method: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return Path("runs") / f"{stamp}-{re.sub(r'[^a-z0-9]+', '', method.replace('+', 'plus'))}"


def _shorten(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut to ``limit`` characters (a goal echoed in a message)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _live(console: Console) -> object:


    def show(step: StepRecord) -> None:
        table = Table.grid(padding=(0, 1))
        table.add_column(style="dim", no_wrap=True)
        table.add_column()
        latent = latent_of(step)
        if latent is not None:
            if latent.previous_action:
                table.add_row("performed", plain(latent.previous_action))
            table.add_row("screen", plain(latent.screen_summary))
            if not latent.mistakes.startswith("No mistakes"):
                table.add_row("mistakes", plain(latent.mistakes))
        else:
            table.add_row("screen", plain(step.foreground_package))
        table.add_row("step", plain(step.selected_step))
        if step.action is not None:
            rule = " (rule)" if step.grounder == "rule" else ""
            table.add_row("action", plain(str(action_to_json(step.action)) + rule))
        if step.executed:
            table.add_row("executed", plain(step.executed_detail))
        if step.grounding_error:
            table.add_row("grounding", plain(step.grounding_error, "red"))
        if step.execution_error:
            table.add_row("execution", plain(step.execution_error, "red"))
        if latent is not None and latent.completion:
            table.add_row("complete?", plain(latent.completion))
        title = plain(f"step {step.index} - {step.duration_s:.2f} s, {counted(step.usage.calls, 'LLM call')}, "
                      f"{counted(step.usage.prompt_tokens + step.usage.output_tokens, 'token')}")
        console.print(Panel(table, title=title, title_align="left"))

    return show


def _goal_line(console: Console, given: str) -> Callable[[GoalChoice], None]:
    """Show the goal in use before the first step: the rephrasing, or why the user's own goal is kept."""


    def show(choice: GoalChoice) -> None:
        line = plain(f"goal: {_shorten(choice.goal)}")
        if choice.rejected is not None:
            line.append(plain(f" (the model's rephrasing was not used: {_shorten(choice.rejected)})", "yellow"))
        elif choice.goal != given.strip():
            line.append(" (rephrased)")
        console.print(line, soft_wrap=True)

    return show


def _start(device: Device, args: argparse.Namespace) -> str:
    """Reset the phone if asked; say which state the episode starts from."""

    if args.reset:
        return reset(device, args.snapshot)
    # A device built in this process for the run is fresh; one reached over a connection is as it was left.
    return start_state(device, fresh=not capabilities_of(parse_device_spec(args.device)).remote)


def _goal_key(text: str) -> str:
    return " ".join(text.strip().rstrip(".").split()).casefold()


#: The width the methods list of ``run --help`` is wrapped to.
HELP_WIDTH = 110


def _methods_list(width: int = HELP_WIDTH) -> str:
    """Every registered method and its line, in two columns as wide as the longest name (the summaries wrapped
    beside it), so a long name never pushes its line out of the column."""
    column = max(len(name) for name in METHODS) + 2
    return "\n".join(
        textwrap.fill(m.summary, width=width, initial_indent=f"  {m.name:<{column}}",
                      subsequent_indent=" " * (column + 2))
        for m in METHODS.values())


def _sim_task(args: argparse.Namespace) -> SimTask | None:
    """The simulated phone's task the run is: the one ``--task`` names, else the one whose goal is GOAL (None
    when there is none, or the device's state cannot be checked). The registered suites say which tasks have
    checks, so a suite registered from outside is checked too."""

    if not capabilities_of(parse_device_spec(args.device)).state_checks:
        return None
    tasks = checked_tasks()
    if args.task:
        return tasks.get(args.task)
    if args.goal is None:
        return None
    return next((t for t in tasks.values() if _goal_key(t.goal) == _goal_key(args.goal)), None)


def _check_task_id(args: argparse.Namespace, sim_task: SimTask | None) -> None:
    """Refuse a ``--task`` that names no task, before anything is written.

    On a device whose state the simulated phone's checks read, the id must be one of its tasks (their check
    then runs); on any other device it is recorded only, and must be a task of one of the suites.

    Raises:
        ConfigError: An unknown id.
    """

    if args.task is None or sim_task is not None:
        return
    if capabilities_of(parse_device_spec(args.device)).state_checks:
        close = closest(args.task, checked_tasks())
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise ConfigError(f"--task {args.task!r}: the simulated phone has no task of that id{hint} "
                          f"(`{command_name()} sim tasks` lists them)")
    if not any(t.id == args.task for source in SUITES.values() for t in source.load().tasks):
        raise ConfigError(f"--task {args.task!r} is no task of any suite (`{command_name()} sim tasks` lists the "
                          "simulated phone's; a suite's ids are in results.jsonl of its sweeps)")


def _trial_check(args: argparse.Namespace, sim_task: SimTask | None) -> Callable[[Device], bool] | None:
    """The task's automatic check: handed to every episode of a known sim task (it runs when the episode ends,
    beside the agent's own verdict), and to a method that judges its trials by it on a judged task.

    Raises:
        ConfigError: The method needs the check and it cannot run here (a device other than the
            simulated phone in process, or no sim task for the goal): refused rather than letting the
            agent judge itself under the method's name.
    """

    needed = get_method(args.method).needs_task_check
    caps = capabilities_of(parse_device_spec(args.device))
    if caps.task_reward:
        if not needed:
            return None  # the task's own reward judges the episode (the summary shows it)

        def rewarded(phone: Device) -> bool:  # the task's own reward is the check
            judged = task_device(phone)
            return judged is not None and judged.task_reward().success

        return rewarded
    if sim_task is not None:
        def check(phone: Device) -> bool:
            return isinstance(phone, SimDevice) and sim_task.succeeded(phone.state)

        return check
    if not needed:
        return None
    if not caps.state_checks:
        raise ConfigError(f"--method {args.method} judges each trial by the sim task's automatic check, which runs "
                          f"only on --device sim (not {args.device}); use --method reflection there")
    named = f"the id {args.task!r}" if args.task else f"the goal {_shorten(args.goal, 60)!r}"
    raise ConfigError(f"--method {args.method} judges each trial by a sim task's automatic check, and no sim "
                      f"task has {named}; use --method reflection (the agent judges its own trials)")


def _snapshot(args: argparse.Namespace) -> str | None:
    """The emulator snapshot every reset loads, if one is named.

    Raises:
        ConfigError: A snapshot named for the simulated phone in process (it resets exactly, without one).
    """

    caps = capabilities_of(parse_device_spec(args.device))
    if args.snapshot and not (caps.remote and caps.launcher_and_apps):  # only an emulated phone has snapshots
        raise ConfigError(f"--snapshot {args.snapshot} loads an emulator snapshot; --device {args.device} resets "
                          "exactly without one (serve it as an emulator, sim serve --emulator, to try snapshots)")
    return str(args.snapshot) if args.snapshot else None


def _require_extras(args: argparse.Namespace) -> None:
    """Check the optional extras the device, the LLM and the observation source need.

    Raises:
        MissingExtraError: One is not installed (one line naming the command that installs it).
    """

    require_extras(llm=args.llm, device_kinds=[parse_device_spec(args.device).kind], observations=[args.observation])


def _summary(console: Console, result: EpisodeResult) -> None:


    table = Table(show_header=False, box=None)
    table.add_row("goal", plain(result.normalized_goal))
    # The task's check beside the agent's own verdict: the stop reason is what the agent believed.
    checked = "" if result.task_check is None else f" (task check: {'passed' if result.task_check else 'failed'})"
    table.add_row("stopped", plain(f"{result.stop_reason.value}{checked}"
                                   + (f" - {result.detail}" if result.detail else "")))
    table.add_row("steps", str(result.steps))
    if result.reward is not None:
        r = result.reward
        verdict = ("success" if r.success else "failure" if r.done
                   else "failure: the agent stopped before the task ended")
        table.add_row("reward", f"raw {r.raw:g}, time-scaled {r.time_scaled:g} - {verdict}")
    u = result.usage
    table.add_row("LLM", f"{counted(u.calls, 'call')}, {u.prompt_tokens} prompt + "
                         f"{counted(u.output_tokens, 'output token')}, {counted(u.retries, 'retry', 'retries')}")
    table.add_row("time", f"{result.duration_s:.2f} s")
    table.add_row("trajectory", plain(result.directory))
    table.add_row("view", plain(f"{command_name()} show {shlex.quote(str(result.directory))}"))
    console.print(table)


def run(args: argparse.Namespace) -> int:



    settings = settings_from_args(args)
    notices = prepare([get_method(args.method)], settings.resources)
    if args.observation is None:  # the method's own on the device's surface (CAAP sees a web page's screenshot)
        surface = surface_of(capabilities_of(parse_device_spec(args.device)).surface)
        args.observation = get_method(args.method).default_observation(surface)
    console = Console(highlight=False)
    from_task = _check_goal(args)
    seed = _seed(args)
    sim_task = _sim_task(args)
    _check_task_id(args, sim_task)
    trial_check = _trial_check(args, sim_task)
    _require_extras(args)  # before the episode folder is claimed: a missing extra leaves nothing behind

    def configured(goal: str, task_id: str | None) -> EpisodeConfig:
        return EpisodeConfig(goal=goal, method=args.method, task_id=task_id, seed=seed,
                             screenshots=not args.no_screenshots, trial_check=trial_check,
                             reset_snapshot=_snapshot(args), observation=args.observation, **settings.as_kwargs())

    # A goal given is checked before anything starts; a task's goal is known once its page is loaded.
    # A goal that is a sim task's is that task (its check runs), and is recorded so.
    config = None if from_task else configured(args.goal, args.task or (sim_task.id if sim_task else None))
    noise = NoiseConfig.parse(args.noise) if args.noise is not None else None
    out = claim(args.out or _default_out(args.method), EPISODE, force=args.force)
    llm = llm_options(args)
    llm.claim_record(force=args.force)
    with ExitStack() as stack:
        # Cheap checks first (key, goal, device), so a bad argument fails before any call starts.
        client = llm.open()
        stack.callback(client.close)
        if config is not None:
            check_playable(client, [config.goal])
        device = stack.enter_context(load_device(args.device, noise))
        if config is None:
            goal, task, seed = _load_task(device, seed)
            config = configured(goal, args.task or task)
            check_playable(client, [config.goal])
            start = f"task {task} loaded from seed {seed}"  # a fresh start: loading the task is its reset
        elif seed is not None:
            start = device.reset(seed=seed)
        else:
            start = _start(device, args)
        if (notice := stand_in_notice(client)) is not None:
            console.print(plain(notice, "yellow"))
        for notice in notices:
            console.print(plain(notice, "yellow"), soft_wrap=True)
        console.print(plain(f"starting from {start}"), soft_wrap=True)
        console.print(plain(_shorten(config.goal), "bold").append(
            plain(f" - {config.method}, grounder {config.grounder}, device {args.device} "
                  f"(noise {_noise_words(device)}), LLM {client.name}")))
        try:
            result = run_episode_sync(config, device, client, out, on_step=_live(console),  # type: ignore[arg-type]
                                      on_goal=_goal_line(console, config.goal))
        except KeyboardInterrupt:
            if not (out / TRAJECTORY_FILE).is_file():
                raise
            console.print(plain(f"interrupted; the finished steps are in {out} "
                                f"({command_name()} show {shlex.quote(str(out))})",
                                "yellow"), soft_wrap=True)
            raise Reported from None
    _summary(console, result)
    return int(for_stop_reason(result.stop_reason.value))
