"""``latent-agent run GOAL``: run one agent episode and watch it step by step.

``--llm demo`` needs no key and no network: it runs a scripted stand-in (it
replays the sim task's reference solution, or reads a MiniWoB++ task's steps from
its utterance; not a language model) behind a local Gemini stand-in, reached
through the real google-genai SDK.

The command is parse, build the request (:class:`~latent_agent.benchmarks.launch.EpisodeRequest`), resolve it,
run the episode (:func:`latent_agent.api.run_episode`) and print: what an episode is (where its goal comes
from, which check judges it, how it starts) is decided in the library, once.
"""

from __future__ import annotations

import argparse
import shlex
import textwrap
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from latent_agent.agent.episode import EpisodeResult
from latent_agent.agent.goal import GoalChoice
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS
from latent_agent.agent.trajectory import TRAJECTORY_FILE, StepRecord
from latent_agent.api import Launched, Watch, run_episode
from latent_agent.benchmarks.launch import DEFAULT_TASK_SEED, EpisodeRequest, shorten
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.interrupted import Reported
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.cli.options import add_force_argument, add_noise_argument, add_observation_argument
from latent_agent.cli.plain import plain
from latent_agent.cli.settings import add_settings_arguments, settings_from_args
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.errors import ConfigError
from latent_agent.exit_codes import EPILOG, for_stop_reason
from latent_agent.grounder.actions import action_to_json
from latent_agent.invocation import command_name
from latent_agent.words import counted


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


def _seed(text: str | None) -> int | None:
    """``--seed`` as an integer (None when not given); the request checks it against the device.

    Raises:
        ConfigError: Not an integer.
    """
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"--seed needs an integer, not {text!r}") from None


def request_from_args(args: argparse.Namespace) -> EpisodeRequest:
    """The episode the options ask for.

    Raises:
        ConfigError: A bad seed, noise, setting or server option.
    """
    return EpisodeRequest(method=args.method, device=args.device, llm=llm_options(args), goal=args.goal,
                          task=args.task, seed=_seed(args.seed), snapshot=args.snapshot, reset=args.reset,
                          settings=settings_from_args(args), observation=args.observation,
                          noise=NoiseConfig.parse(args.noise) if args.noise is not None else None, out=args.out,
                          screenshots=not args.no_screenshots, force=args.force)


class _Printer:
    """What ``run`` shows as the episode goes: how it starts, the goal in use, each step as it ends."""

    def __init__(self, console: Console, device: str) -> None:
        self.console = console
        self.device = device
        self.goal = ""

    def watch(self) -> Watch:
        return Watch(on_start=self.started, on_goal=self.goal_in_use, on_step=self.step)

    def started(self, launched: Launched) -> None:
        """The stand-in's and the resources' notices, the start, the goal and the setup."""
        console = self.console
        if launched.stand_in is not None:
            console.print(plain(launched.stand_in, "yellow"))
        for notice in launched.notices:
            console.print(plain(notice, "yellow"), soft_wrap=True)
        config = launched.config
        self.goal = config.goal
        console.print(plain(f"starting from {launched.started.words}"), soft_wrap=True)
        console.print(plain(shorten(config.goal), "bold").append(
            plain(f" - {config.method}, grounder {config.grounder}, device {self.device} (noise {launched.noise}), "
                  f"LLM {launched.llm}")))

    def goal_in_use(self, choice: GoalChoice) -> None:
        """The goal in use before the first step: the rephrasing, or why the user's own goal is kept."""
        line = plain(f"goal: {shorten(choice.goal)}")
        if choice.rejected is not None:
            line.append(plain(f" (the model's rephrasing was not used: {shorten(choice.rejected)})", "yellow"))
        elif choice.goal != self.goal.strip():
            line.append(" (rephrased)")
        self.console.print(line, soft_wrap=True)

    def step(self, step: StepRecord) -> None:
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
        self.console.print(Panel(table, title=title, title_align="left"))


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
    console = Console(highlight=False)
    resolved = request_from_args(args).resolve()
    try:
        result = run_episode(resolved, _Printer(console, args.device).watch())
    except KeyboardInterrupt:
        if not (resolved.out / TRAJECTORY_FILE).is_file():
            raise
        console.print(plain(f"interrupted; the finished steps are in {resolved.out} "
                            f"({command_name()} show {shlex.quote(str(resolved.out))})", "yellow"), soft_wrap=True)
        raise Reported from None
    _summary(console, result)
    return int(for_stop_reason(result.stop_reason.value))
