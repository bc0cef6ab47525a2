"""``latent-agent demos``: the CAAP method's expert demonstrations.

``demos build --suite sim --llm SPEC --out D`` replays the reference solutions of the suite's
training tasks on the simulated phone (every task when the suite has no splits; ``--tasks`` picks
others), records each action with the element it acted on, and asks the model for one rationale per
action. Rationales are cached in ``D/rationales.jsonl`` (or ``--cache``), keyed by model, template
and inputs, so a rebuild asks only for the ones it does not have. Episodes use them with
``run --method caap --demos D`` and ``sweep ... --demos D``; an episode is never shown the instance it is
evaluated on.

``demos build --from RUN [RUN ...] --llm SPEC --out D`` records them instead from the successful
train-split episodes of sweeps (a MiniWoB++ suite swept with ``--split train``: the tasks' train seeds
3000-3999), one per task and goal; an episode is then shown every demonstration of its task. A web page's
episodes are written in the published MiniWoB++ functions, their element lists read from the screenshots by
the screen observer (the one CAAP is evaluated with there), so they need the ``ocr`` extra and the sweep's
screenshots.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.agent.caap.demos import DEMOS_FILE, load_demos
from latent_agent.benchmarks.demos import CACHE_FILE, RationaleCache, build_demos, check_out_dir, write_demos
from latent_agent.benchmarks.demos_episodes import demos_from_sweeps
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.benchmarks.suite import sim_task_list_suites
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.help_text import plain_help
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.demo.client import check_playable, stand_in_notice
from latent_agent.errors import ConfigError
from latent_agent.exit_codes import EPILOG
from latent_agent.invocation import command_name

if TYPE_CHECKING:
    from latent_agent.benchmarks.sim_tasks import Task


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demos", help=COMMANDS["demos"].help,
                       description=plain_help(__doc__), epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    demos_sub = p.add_subparsers(dest="demos_command", metavar="SUBCOMMAND", required=True)
    build = demos_sub.add_parser("build", help="record demonstrations and write their rationales",
                                 description=plain_help(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    source = build.add_mutually_exclusive_group(required=True)
    # Demonstrations need reference solutions on the simulated phone: the suites of its task list have them.
    source.add_argument("--suite", choices=sim_task_list_suites(),
                        help="the suite whose reference solutions are replayed")
    source.add_argument("--from", dest="runs", nargs="+", type=Path, metavar="RUN",
                        help="sweep directories whose successful train-split episodes become the demonstrations")
    build.add_argument("--tasks", metavar="PATTERN[,PATTERN...]",
                       help="only tasks whose id matches (fnmatch; default: the suite's train split, or every task)")
    build.add_argument("--out", required=True, type=Path, metavar="DIR", help="demo directory (demos.json)")
    build.add_argument("--cache", type=Path, metavar="FILE", help="rationale cache (default: DIR/rationales.jsonl)")
    build.add_argument("--seed", type=int, default=1000,
                       help="the simulated phone's seed for recording (default 1000, apart from episode seeds)")
    add_llm_options(build)
    build.set_defaults(func=run_build)


def _chosen(patterns: str | None) -> tuple[list[Task], list[Task]]:
    tasks = load_suite()
    if patterns:
        wanted = [p.strip() for p in patterns.split(",") if p.strip()]
        chosen = [t for t in tasks if any(fnmatch.fnmatchcase(t.id, p) for p in wanted)]
        if not chosen:
            raise ConfigError(f"--tasks {patterns}: no task of the sim suite matches")
    elif any(t.split for t in tasks):
        chosen = [t for t in tasks if t.split == "train"]
    else:
        chosen = list(tasks)
    return list(chosen), list(tasks)


def _build_from_runs(args: argparse.Namespace) -> int:
    if args.tasks:
        raise ConfigError("--tasks picks reference solutions to replay; with --from every successful "
                          "train-split episode of the sweeps is recorded")
    found = demos_from_sweeps(args.runs)
    if not found.demos:
        counts = ", ".join(f"{n} {why}" for why, n in sorted(found.skipped.items())) or "no episodes"
        raise ConfigError(f"no episode of {', '.join(map(str, args.runs))} can be a demonstration ({counts})")
    previous = load_demos(args.out) if (args.out / DEMOS_FILE).exists() else None
    cache = RationaleCache(args.cache or args.out / CACHE_FILE)
    with ExitStack() as stack:
        client = llm_options(args).open()
        stack.callback(client.close)
        # Chosen by task only, as the published code does: a task without train-seed demonstrations of its
        # own (no train-seed episode succeeded on it) is shown none.
        summary = write_demos(found.demos, found.tasks, client, args.out, suite="episodes", cache=cache,
                              previous=previous, by_task=True)
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(found.skipped.items()))
    print(f"{summary.demos} demonstration(s) of {len(found.tasks)} task(s), {summary.actions} action(s): "
          f"{summary.calls} rationale call(s), {summary.cached} from the cache"
          + (f"; skipped {skipped}" if skipped else ""))
    print(f"demos: {summary.path}  ({command_name()} sweep ... --methods caap --demos {args.out})")
    return 0


def run_build(args: argparse.Namespace) -> int:
    check_out_dir(args.out)
    llm_options(args).claim_record()
    if args.runs:
        return _build_from_runs(args)
    chosen, every = _chosen(args.tasks)
    with ExitStack() as stack:
        client = llm_options(args).open()
        stack.callback(client.close)
        check_playable(client, [t.goal for t in chosen])
        if (notice := stand_in_notice(client)) is not None:
            print(notice, file=sys.stderr)
        summary = build_demos(chosen, every, client, args.out, seed=args.seed,
                              cache_path=args.cache)
    print(f"{summary.demos} demonstration(s), {summary.actions} action(s): {summary.calls} rationale call(s), "
          f"{summary.cached} from the cache; {summary.kept} earlier demonstration(s) kept")
    print(f"demos: {summary.path}  ({command_name()} run GOAL --method caap --demos {args.out})")
    return 0
