"""``latent-agent sweep``: run agent variants over a benchmark suite on a pool of devices.

Example::

    latent-agent sweep --suite sim --methods all --devices sim*4 --llm gemini:gemini-2.5-flash \\
        --out runs/sim --seeds 3
    latent-agent sweep --out runs/sim --resume

Every (task, method, seed) episode is planned in OUT/manifest.json and
recorded in OUT/results.jsonl; --resume continues an interrupted sweep
(finished episodes are skipped, interrupted ones redone) with what the manifest
records (suite, methods, devices, LLM, ...): anything given again must match it,
except --devices and the demo's latency (demo@SECONDS), which may change.

Before planning, every real device and the LLM are checked once (one screen-size
call, one short prompt); the sweep stops in one line if one does not answer. When
the same infrastructure failure ends --max-consecutive-errors episodes in a row,
the sweep pauses (exit status 4); --resume runs those episodes again first.

--executor ray runs the episodes on a Ray cluster (the ray extra): each device is an actor on a node that
offers it (ray start --resources '{"sim": 8}'), with its own LLM client, and this process alone writes --out
(docs/scale.md). Without --ray-address the sweep starts a Ray of its own on this machine.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from latent_agent import api
from latent_agent.agent.resources import RESOURCES
from latent_agent.benchmarks.episodes import agent_runner
from latent_agent.benchmarks.launch import ResolvedSweep, SweepRequest
from latent_agent.benchmarks.plan import MANIFEST_FILE, SweepPlan, parse_methods, parse_observations, read_manifest
from latent_agent.benchmarks.pool import ResetPolicy, parse_devices
from latent_agent.benchmarks.preflight import PING_ATTEMPTS, check_devices, check_llm
from latent_agent.benchmarks.ray_cluster import EXECUTORS, RayExecutor, check_reachable, parse_ray_address
from latent_agent.benchmarks.suite import SUITES, load_named_suite, load_task_params
from latent_agent.benchmarks.sweep import (
    MAX_CONSECUTIVE_ERRORS,
    SweepExecutor,
    SweepOptions,
    check_directory,
    run_local,
    run_sweep,
)
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.help_text import plain_help
from latent_agent.cli.interrupted import Reported
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.cli.options import add_force_argument, add_noise_argument, add_observation_argument
from latent_agent.cli.plain import echo
from latent_agent.cli.settings import add_settings_arguments, settings_from_args
from latent_agent.cli.sweep_estimate import dry_run
from latent_agent.cli.usage import missing_options
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.device.spec import user_only as device_user_only
from latent_agent.errors import ConfigError, SweepPausedError, SweepStateError
from latent_agent.exit_codes import EPILOG, ExitCode
from latent_agent.extras import require
from latent_agent.invocation import command_name
from latent_agent.llm.budget import Budget
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.secrets import MASK, redact_url_credentials
from latent_agent.llm.spec import PROVIDERS, parse_spec
from latent_agent.llm.spec import user_only as llm_user_only
from latent_agent.outputs import CASSETTE, SWEEP, claim

if TYPE_CHECKING:
    from latent_agent.benchmarks.plan import SweepPlan
    from latent_agent.benchmarks.suite import BenchmarkTask, Suite
    from latent_agent.benchmarks.sweep import SweepSummary


def add_parser(sub: Any) -> None:

    parser: argparse.ArgumentParser = sub.add_parser(
        "sweep", help=COMMANDS["sweep"].help, description=plain_help(__doc__), epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=sorted(SUITES), help="benchmark suite (taken from the manifest on --resume)")
    parser.add_argument("--methods", help="comma-separated agent variants, or 'all' (default: all)")
    parser.add_argument("--devices", metavar="SPEC[,SPEC...]",
                        help="device pool: sim*4, adb:emulator-5554,adb:emulator-5556, miniwob*4 (MiniWoB++ pages), "
                             "miniwob@cdp://HOST:PORT*4 (pages in a browser elsewhere), ... (one episode per device "
                             "at a time; taken from the manifest on --resume)")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="sweep directory")
    parser.add_argument("--seeds", type=int, help="seeds per (task, method) (default 1; a MiniWoB++ suite's tasks "
                        "run on their suite's seeds, all by default, the first N with --seeds N)")
    add_settings_arguments(parser)
    add_observation_argument(parser, several=True)
    parser.add_argument("--budget", metavar="calls=N,tokens=M",
                        help="LLM budget for the whole sweep run; episodes past it are recorded as errored")
    parser.add_argument("--resume", action="store_true",
                        help="continue the sweep planned in --out (or start it if --out holds none yet)")
    parser.add_argument("--retry-errors", action="store_true", help="with --resume: run errored episodes again")
    parser.add_argument("--tasks", metavar="PATTERN[,PATTERN...]", help="only tasks whose id matches (fnmatch)")
    parser.add_argument("--tag", action="append", default=[], help="only tasks carrying this tag (repeatable)")
    parser.add_argument("--split", metavar="SPLIT[,SPLIT...]",
                        help="only tasks of these splits of the exemplar protocol: train, eval, heldout "
                             "(e.g. train to harvest an exemplar memory, eval,heldout to evaluate with it; the "
                             "MiniWoB++ suites' train split is their tasks on the train seeds 3000-3999)")
    parser.add_argument("--task-params", type=Path, metavar="FILE",
                        help="JSON values for parameterized goals: {task id: {placeholder: value}}")
    parser.add_argument("--snapshot", metavar="NAME",
                        help="emulators: load this snapshot before every episode, and before every later trial of "
                             "a method that tries again (adb emu avd snapshot load; docs/devices.md)")
    parser.add_argument("--no-screenshots", action="store_true", help="do not save a screenshot per step")
    parser.add_argument("--no-progress", action="store_true", help="no live progress bar")
    parser.add_argument("--runner", metavar="MODULE:FUNCTION",
                        help="episode runner taking a benchmarks.episodes.EpisodeJob (default: the agent)")
    parser.add_argument("--max-consecutive-errors", type=int, default=MAX_CONSECUTIVE_ERRORS, metavar="N",
                        help="pause when the same LLM, device or budget failure ends N episodes in a row "
                             f"(default {MAX_CONSECUTIVE_ERRORS}; 0: never pause)")
    parser.add_argument("--no-preflight", action="store_true",
                        help="skip the check that every device and the LLM answer before planning")
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="where episodes run: local (default; one thread per device here) or ray (a Ray "
                             "cluster's nodes, each device an actor on a node offering it; the ray extra; "
                             "docs/scale.md)")
    parser.add_argument("--ray-address", metavar="auto|HOST:PORT",
                        help="with --executor ray: the cluster's head (auto: the one `ray start` started on this "
                             "machine; default: a Ray of the sweep's own on this machine, on loopback)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the planned episodes and an estimate of their LLM calls, tokens and price per "
                             "method (measured figures, llm/prices.json); run and write nothing")
    add_force_argument(parser)
    add_noise_argument(parser)
    add_llm_options(parser, required=False)  # required to start a sweep; --resume takes the planned one
    parser.set_defaults(func=run)


def plan_llm(spec: str) -> str:
    """What of an ``--llm`` spec makes the sweep what it is: the demo's latency (``demo@0.2``) does not.

    The stand-in answers the same with or without a simulated delay, so a sweep planned with
    ``demo@0.2`` is resumed by ``--llm demo``.
    """

    try:
        parsed = parse_spec(spec)
    except ConfigError:
        return spec  # refused with its own message when the client is built
    identity = PROVIDERS[parsed.provider].plan_identity
    return identity(parsed) if identity is not None else spec


def resume_command(args: argparse.Namespace) -> str:
    """The command that continues the sweep in ``--out``: what the manifest does not record, and no more."""

    words = [command_name(), "sweep", "--out", shlex.quote(str(args.out)), "--resume"]
    if args.runner:
        words += ["--runner", shlex.quote(args.runner)]
    if args.llm_base_url:  # a credential in it is masked here: the user puts it back
        words += ["--llm-base-url", shlex.quote(redact_url_credentials(args.llm_base_url))]
    if args.executor != "local":
        words += ["--executor", args.executor]
    if args.ray_address:
        words += ["--ray-address", shlex.quote(args.ray_address)]
    return " ".join(words)


def _resumed_or_given(args: argparse.Namespace, planned: Any) -> None:
    """Take ``--llm`` and ``--devices`` from the manifest when resuming without them; else require them.

    Raises:
        ConfigError: One is missing to start a sweep, or the manifest cannot supply it (a spec whose
            credentials it holds masked, a manifest written before pools were recorded).
    """

    if planned is not None:
        _confirmed(args, planned)
    if planned is not None and args.llm is None:
        if MASK in planned.llm:
            raise ConfigError(f"--llm is required to resume {args.out}: its manifest holds the spec with its "
                              f"credentials masked ({planned.llm})")
        args.llm = planned.llm
    if planned is not None and args.devices is None:
        if planned.devices is None or MASK in planned.devices:
            raise ConfigError(f"--devices is required to resume {args.out}: its manifest does not name a usable "
                              "pool, e.g. --devices 'sim*4'")
        args.devices = planned.devices
    missing = [option for option, value in (("--devices", args.devices), ("--llm", args.llm)) if value is None]
    if missing:
        raise ConfigError(missing_options(missing) + " (--resume takes them from a sweep already planned in --out)")


def _confirmed(args: argparse.Namespace, planned: SweepPlan) -> None:
    """Refuse what a resumed sweep's manifest names that only the command line chooses, unless it is given again.

    The manifest is a file: a sweep folder someone sent can name any LLM endpoint (the key in the environment
    would be sent there), any device address or file naming programs to start, and an embedder that sends
    texts with the user's key. Each is taken from it only when the command line names it again; nothing is
    built or sent before.

    Raises:
        ConfigError: One line naming the manifest's field and the option that confirms it.
    """
    manifest = args.out / MANIFEST_FILE
    confirm = "only your command line chooses that (your keys and your machine go where it says)"
    if args.llm is None and MASK not in planned.llm:
        chosen = llm_user_only(parse_spec(planned.llm), base_url_given=bool(args.llm_base_url))
        if chosen is not None:
            raise ConfigError(f"{manifest}: field llm names {chosen}; {confirm}: pass --llm "
                              f"{shlex.quote(planned.llm)} to confirm it")
    if args.devices is None and planned.devices is not None and MASK not in planned.devices:
        for spec in parse_devices(planned.devices):
            if (chosen := device_user_only(spec)) is not None:
                raise ConfigError(f"{manifest}: field devices names {chosen}; {confirm}: pass --devices "
                                  f"{shlex.quote(planned.devices)} to confirm it")
    for name, value in planned.resources.entries:
        user_only = RESOURCES[name].user_only
        if getattr(args, name, None) is not None or user_only is None:
            continue
        if (chosen := user_only(str(value))) is not None:
            raise ConfigError(f"{manifest}: field resources.{name} names {chosen}; {confirm}: pass "
                              f"{RESOURCES[name].option} {shlex.quote(str(value))} to confirm it")


def parse_budget(text: str | None) -> Any:
    """``calls=N,tokens=M`` (either part optional) as an :class:`latent_agent.llm.budget.Budget`."""
    if not text:
        return None

    limits: dict[str, int] = {}
    for part in text.split(","):
        name, sep, value = part.strip().partition("=")
        if name not in ("calls", "tokens") or not sep or name in limits:
            raise ConfigError(f"--budget {text!r}: expected calls=N and/or tokens=M, comma-separated")
        try:
            limits[name] = int(value)
        except ValueError:
            raise ConfigError(f"--budget {text!r}: {name} must be an integer") from None
    return Budget(max_calls=limits.get("calls"), max_tokens=limits.get("tokens"))


def load_runner(text: str | None) -> Any:

    if not text:
        return agent_runner
    module_name, sep, attr = text.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"--runner {text!r}: expected MODULE:FUNCTION")
    try:
        runner = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"--runner {text!r}: cannot import ({exc})") from None
    if not callable(runner):
        raise ConfigError(f"--runner {text!r} is not callable")
    return runner


def preflight(args: argparse.Namespace, devices: Any) -> None:
    """Check every real device and the LLM once before anything is planned.

    See :mod:`latent_agent.benchmarks.preflight`.

    Raises:
        PreflightError: A device or the LLM does not answer.
    """

    check_devices(devices)
    # A model that answers in the process (replay, scripted, the demo) or a server the command starts is
    # checked by building its client; a remote one is asked once.
    if PROVIDERS[parse_spec(args.llm).provider].remote:

        client = llm_options(args).open(retry=RetryPolicy(max_attempts=PING_ATTEMPTS), record=False)
        try:
            check_llm(client, args.llm)
        finally:
            client.close()


def run(args: argparse.Namespace) -> int:
    _check_flags(args)
    sweep = _prepare(args)
    if args.dry_run:
        return _dry_run(args, sweep)
    return _finish(args, _execute(args, sweep))


def _check_flags(args: argparse.Namespace) -> None:
    """Refuse options that contradict each other, before anything is read.

    Raises:
        ConfigError: A negative --max-consecutive-errors, or --force with --resume.
        OutputPathError: The record path of ``--llm record:...`` is taken.
    """

    if args.max_consecutive_errors < 0:
        raise ConfigError(f"--max-consecutive-errors must be >= 0, got {args.max_consecutive_errors}")
    if args.force and args.resume:
        raise ConfigError("--force replaces the sweep in --out and --resume continues it; pass one of them")
    _check_executor(args)
    if not args.dry_run and args.llm_record:
        claim(Path(args.llm_record), CASSETTE, force=args.force)


def _check_executor(args: argparse.Namespace) -> None:
    """Refuse what the Ray executor cannot do as asked, and a missing ray extra, before anything is read.

    Raises:
        ConfigError: ``--ray-address`` without ``--executor ray``, a malformed address, or an option whose
            effect lives in this process (``--budget``, ``--llm-record``) with ``--executor ray``.
        MissingExtraError: ``--executor ray`` without the ray extra.
    """

    if args.executor != "ray":
        if args.ray_address is not None:
            raise ConfigError("--ray-address names the cluster of --executor ray; add --executor ray")
        return
    parse_ray_address(args.ray_address)
    for option, value in (("--budget", args.budget), ("--llm-record", args.llm_record)):
        if value:
            raise ConfigError(f"{option} is kept by this process, and with --executor ray the LLM calls are made "
                              "by the device actors on the cluster's nodes; leave it out, or use --executor local")
    require("ray", "--executor ray")


def _executor(args: argparse.Namespace) -> SweepExecutor:
    """The executor ``--executor`` names."""

    return RayExecutor(parse_ray_address(args.ray_address)) if args.executor == "ray" else run_local


def _read_planned(args: argparse.Namespace) -> SweepPlan | None:
    """The sweep planned in ``--out`` when resuming one (None when starting, or when none was planned yet).

    Raises:
        SweepStateError: The manifest is unreadable, or plans a sweep of another suite than ``--suite``.
    """

    planned = read_manifest(args.out) if args.resume and (args.out / MANIFEST_FILE).exists() else None
    if args.resume and planned is None and args.suite is not None:
        # "start or continue": a sweep killed before its manifest was written resumes the same way. Without
        # --suite there is nothing to start: that is said once, as an error (_prepare), not announced first.
        print(f"latent-agent: no sweep planned in {args.out} yet; starting one", file=sys.stderr)
    if planned and args.suite and args.suite != planned.suite:
        raise SweepStateError(f"{args.out} holds another sweep (suite {planned.suite}, {len(planned.episodes)} "
                              f"episodes planned), not one of suite {args.suite}; choose another --out, or leave "
                              "out --suite to resume that one")
    return planned


def _select_tasks(args: argparse.Namespace, suite_name: str,
                  planned: SweepPlan | None) -> tuple[Suite, tuple[BenchmarkTask, ...]]:
    """The suite with the tasks asked for, and its runnable tasks: on a resume without a new selection, the
    planned tasks on their planned seeds.

    Raises:
        ConfigError, InputError: A bad selection or task parameters.
        SweepStateError: The planned tasks are no longer all in the suite.
    """


    suite = load_named_suite(suite_name)
    if args.task_params:
        suite = suite.with_params(load_task_params(args.task_params))
    if args.tasks or args.tag:
        suite = suite.select([p.strip() for p in (args.tasks or "").split(",") if p.strip()], args.tag)
    if args.split:
        suite = suite.split([p.strip() for p in args.split.split(",") if p.strip()])
    if not planned or args.tasks or args.tag or args.task_params or args.split:
        return suite, tuple(suite.runnable())
    # Resuming without a new selection: the manifest says which tasks (and goals) were planned.
    planned_tasks = dict.fromkeys((e.task_id, e.goal) for e in planned.episodes)
    missing = sorted({task_id for task_id, _ in planned_tasks} - {t.id for t in suite.tasks})
    if missing:
        raise SweepStateError(f"{args.out} plans {len(missing)} task(s) that suite {suite.name} no longer has "
                              f"(e.g. {', '.join(missing[:3])}); it holds another version of the suite")
    suite = suite.select([task_id for task_id, _ in planned_tasks])
    # A task with seeds of its own runs on the planned ones (those of the split the sweep was planned with).
    planned_seeds: dict[str, dict[int, None]] = {}
    for e in planned.episodes:
        planned_seeds.setdefault(e.task_id, {})[e.seed] = None
    return suite, tuple(replace(task, seeds=tuple(planned_seeds[task.id])) if task.seeds else task
                        for task in (suite.task(task_id) for task_id, _ in planned_tasks))


def _seeds(args: argparse.Namespace, planned: SweepPlan | None, suite: Suite,
           runnable: Sequence[BenchmarkTask]) -> int:
    """Seeds per (task, method): ``--seeds``, else the planned number, else a suite's own seeds (all) or 1."""
    # A suite whose tasks bring their own seeds (MiniWoB++) runs on all of them unless --seeds takes fewer.
    own_seeds = max((len(t.seeds) for t in runnable), default=0)
    seeds: int = args.seeds if args.seeds is not None else (planned.seeds if planned else own_seeds or 1)
    short = [t for t in runnable if t.seeds and len(t.seeds) < seeds]
    # Said only of a number someone chose (--seeds, or the planned one): without one every task runs on all
    # of its own seeds, and a union suite's tasks simply have different numbers of them.
    if short and (args.seeds is not None or planned is not None):
        sizes = sorted({len(t.seeds) for t in short})
        print(f"latent-agent: --seeds {seeds}: {len(short)} task(s) of {suite.name} have fewer seeds of their own "
              f"({', '.join(map(str, sizes))}); each runs on all of its own", file=sys.stderr)
    skipped = len(suite.tasks) - len(runnable)
    if skipped:
        print(f"latent-agent: {skipped} parameterized task(s) of {suite.name} skipped (no --task-params values)",
              file=sys.stderr)
    return seeds


def _named(args: argparse.Namespace, planned: SweepPlan | None) -> bool:
    """Whether the methods were named (``--methods`` other than ``all``); a resumed sweep's were, when planned."""
    return args.methods.strip() != "all" if args.methods is not None else planned is not None


def _prepare(args: argparse.Namespace) -> ResolvedSweep:
    """Plan the sweep ``args`` ask for (or read the one to resume and check it is the same sweep's).

    Raises:
        ConfigError, InputError, SweepStateError, MissingExtraError: Whatever refuses the sweep, in one line.
    """

    planned = _read_planned(args)
    suite_name = args.suite or (planned.suite if planned else None)
    if suite_name is None:
        raise ConfigError(f"--suite is required to start a sweep ({args.out} holds none to resume yet)"
                          if args.resume else "--suite is required (or --resume, to continue the sweep in --out)")
    _resumed_or_given(args, planned)
    # An empty --methods (an unset shell variable) is refused by the parser, not read as "all".
    methods = (parse_methods(args.methods) if args.methods is not None
               else (planned.methods if planned else parse_methods("all")))
    observations = (parse_observations(args.observation) if args.observation
                    else (planned.observations if planned else ("a11y",)))
    if args.llm_max_output is None and planned is not None:  # a resumed sweep keeps its ceiling
        args.llm_max_output = planned.llm_max_output
    if args.llm_structured is None and planned is not None:  # and whether its answers were held to their shapes
        args.llm_structured = "on" if planned.llm_structured else "off"
    suite, runnable = _select_tasks(args, suite_name, planned)
    seeds = _seeds(args, planned, suite, runnable)
    noise = NoiseConfig.parse(args.noise if args.noise is not None else (planned.noise if planned else None) or "none")
    # A resumed sweep runs with the settings it was planned with, but for those given again (and the same files).
    sweep = SweepRequest(suite, args.devices, llm_options(args), methods, named=_named(args, planned), seeds=seeds,
                         tasks=runnable, settings=settings_from_args(args, planned), observations=observations,
                         noise=noise, llm_record=_llm_record(args, planned)).resolve()
    if sweep.unscored:
        print(sweep.unscored, file=sys.stderr)
    return sweep


def _llm_record(args: argparse.Namespace, planned: SweepPlan | None) -> str:
    """The ``--llm`` spec the manifest and the report show: a base URL's credentials masked (the same on
    --resume), and a resumed sweep's own spec when only the demo's simulated latency differs (demo@SECONDS)."""

    record: str = redact_url_credentials(args.llm)
    return planned.llm if planned is not None and plan_llm(planned.llm) == plan_llm(record) else record


def _dry_run(args: argparse.Namespace, sweep: ResolvedSweep) -> int:
    """Print the plan and its estimate; before any client is built, a dry run asks nothing of the model and
    writes nothing."""

    if not args.force:  # what --force would replace is not checked
        check_directory(args.out, sweep.plan, resume=args.resume)
    for note in (*sweep.notices, *sweep.notes):
        if note:
            print(note if note.startswith("latent-agent:") else f"latent-agent: {note}", file=sys.stderr)
    print(dry_run(args, sweep.plan))
    return 0


def _execute(args: argparse.Namespace, sweep: ResolvedSweep) -> SweepSummary:
    """Claim ``--out``, build the clients, check the devices and the model, and run the sweep.

    Raises:
        SweepStateError: ``--out`` cannot take the sweep.
        PreflightError: A device or the LLM does not answer.
        SweepPausedError: The same failure ended too many episodes in a row (the message says how to continue).
        KeyboardInterrupt: After saying how to continue.
    """

    if args.force:  # once every other refusal (a bad suite, a missing extra) is past: a refused sweep removes nothing
        claim(args.out, SWEEP, force=True)
    check_directory(args.out, sweep.plan, resume=args.resume)  # before the LLM client: a wrong --out is the one message
    if args.executor == "ray":  # before anything is written: a wrong address is one line
        check_reachable(parse_ray_address(args.ray_address))
    budget = parse_budget(args.budget)
    runner = load_runner(args.runner)
    client_factory, notice = api.client_factory(llm_options(args), [t.goal for t in sweep.runnable],
                                                what=repr(sweep.suite.name), budget=budget)
    if notice is not None:
        print(f"latent-agent: {notice}", file=sys.stderr)
    for notice in sweep.notices:  # once every refusal is past: a refused sweep says only why
        print(f"latent-agent: {notice}", file=sys.stderr)
    for note in sweep.notes:  # after the model's own refusals, which say more
        if note:
            print(note, file=sys.stderr)
    if not args.no_preflight:  # a Ray sweep's devices are on the nodes that offer them; their actors check them
        preflight(args, sweep.devices if args.executor == "local" else ())
    options = SweepOptions(resume=args.resume, retry_errors=args.retry_errors, reset=ResetPolicy(args.snapshot),
                           screenshots=not args.no_screenshots, progress=not args.no_progress,
                           max_consecutive_errors=args.max_consecutive_errors)
    try:
        return run_sweep(args.out, sweep.suite, sweep.plan, sweep.devices, client_factory=client_factory,
                         options=options, runner=runner, executor=_executor(args))
    except KeyboardInterrupt:
        print(f"latent-agent: interrupted; what was recorded is kept. Continue with: {resume_command(args)}",
              file=sys.stderr)
        raise Reported from None
    except SweepPausedError as exc:
        raise type(exc)(f"{exc}; continue with: {resume_command(args)}") from None


def _finish(args: argparse.Namespace, summary: SweepSummary) -> int:
    """Say what the run did and where the results are; the exit status says whether the sweep is complete."""

    if summary.ran == 0 and summary.remaining == 0:
        print(f"nothing to run: all {summary.planned} planned episode(s) are recorded")
    else:
        print(f"{summary.ran} episode(s) run ({summary.errored} errored), {summary.skipped} already recorded, "
              f"{summary.remaining} of {summary.planned} still to run; {summary.elapsed_s:.1f} s, "
              f"{summary.episodes_per_hour:.0f} episodes/hour")
    if summary.moved_aside:
        print(f"{summary.moved_aside} interrupted episode(s) moved to {args.out / 'attempts'}")
    for line in summary.retired:  # a device's name and error, as the device and the manifest gave them
        echo(f"device retired: {line}", file=sys.stderr)
    print(f"results: {args.out / 'results.jsonl'}  ({command_name()} report {shlex.quote(str(args.out))})")
    if summary.remaining:
        print(f"latent-agent: continue with: {resume_command(args)}", file=sys.stderr)
        return int(ExitCode.PAUSED)
    if summary.errored_total:
        print(f"latent-agent: {summary.errored_total} episode(s) of the sweep are recorded as errored "
              "(--resume --retry-errors runs them again)", file=sys.stderr)
        return int(ExitCode.INFRASTRUCTURE)
    return int(ExitCode.OK)
