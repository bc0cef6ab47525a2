"""``latent-agent demos``: the CAAP method's expert demonstrations.

``demos build --suite sim --llm SPEC --out D`` replays the reference solutions of the suite's
training tasks on the simulated phone (every task when the suite has no splits; ``--tasks`` picks
others), records each action with the element it acted on, and asks the model for one rationale per
action. Rationales are cached in ``D/rationales.jsonl`` (or ``--cache``), keyed by model, template
and inputs, so a rebuild asks only for the ones it does not have. Episodes use them with
``run --method caap --demos D`` and ``sweep ... --demos D``; an episode is never shown its own task's
demonstration.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from latent_agent.errors import ConfigError

if TYPE_CHECKING:
    from latent_agent.benchmarks.sim_tasks import Task


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from latent_agent.benchmarks.demos import SUITES
    from latent_agent.exit_codes import EPILOG
    from latent_agent.llm.spec import add_llm_arguments

    p = sub.add_parser("demos", help="build the CAAP method's demonstrations (with cached rationales)",
                       description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    demos_sub = p.add_subparsers(dest="demos_command", metavar="SUBCOMMAND", required=True)
    build = demos_sub.add_parser("build", help="record demonstrations and write their rationales",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("--suite", required=True, choices=SUITES,
                       help="the suite whose reference solutions are replayed")
    build.add_argument("--tasks", metavar="PATTERN[,PATTERN...]",
                       help="only tasks whose id matches (fnmatch; default: the suite's train split, or every task)")
    build.add_argument("--out", required=True, type=Path, metavar="DIR", help="demo directory (demos.json)")
    build.add_argument("--cache", type=Path, metavar="FILE", help="rationale cache (default: DIR/rationales.jsonl)")
    build.add_argument("--seed", type=int, default=1000,
                       help="the simulated phone's seed for recording (default 1000, apart from episode seeds)")
    add_llm_arguments(build)
    build.set_defaults(func=run_build)


def _chosen(patterns: str | None) -> tuple[list[Task], list[Task]]:
    import fnmatch

    from latent_agent.benchmarks.sim_tasks import load_suite

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


def run_build(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from latent_agent.benchmarks.demos import build_demos, check_out_dir
    from latent_agent.llm.spec import claim_record_path, client_from_args

    check_out_dir(args.out)
    claim_record_path(args)
    chosen, every = _chosen(args.tasks)
    with ExitStack() as stack:
        client = client_from_args(args)
        stack.callback(client.close)
        client.check_goals([t.goal for t in chosen])
        if client.notice:
            print(client.notice, file=sys.stderr)
        summary = build_demos(chosen, every, client, args.out, seed=args.seed,
                              cache_path=args.cache)
    print(f"{summary.demos} demonstration(s), {summary.actions} action(s): {summary.calls} rationale call(s), "
          f"{summary.cached} from the cache; {summary.kept} earlier demonstration(s) kept")
    print(f"demos: {summary.path}  (latent-agent run GOAL --method caap --demos {args.out})")
    return 0
