"""``latent-agent memory``: build, inspect and query an exemplar memory (docs/memory.md).

Examples::

    latent-agent sweep --suite sim --split train --methods zero-shot+ --devices sim*2 --llm demo --out runs/train
    latent-agent memory build runs/train --out runs/memory
    latent-agent memory stats runs/memory
    latent-agent memory show runs/memory settings_roaming_off__zero-shot+__s0
    latent-agent memory query runs/memory "Disable roaming"
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from latent_agent.agent.exemplars.memory import ExemplarMemory
from latent_agent.agent.exemplars.retrieval import DEFAULT_FLOOR, DEFAULT_K, Retriever
from latent_agent.benchmarks.harvest import HARVEST_SPLITS, build_memory, check_splits, harvest
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.embedder_options import add_embedder_options, embedder_options
from latent_agent.cli.help_text import plain_help
from latent_agent.cli.options import add_force_argument
from latent_agent.cli.plain import echo
from latent_agent.errors import ConfigError, InputError
from latent_agent.grounder.actions import action_to_json
from latent_agent.llm.embed.registry import load_embedder
from latent_agent.outputs import OutputKind, Reuse, claim

#: A memory directory, for the one overwrite policy (recognized by its manifest and exemplars file).
MEMORY = OutputKind("an exemplar memory", "memory", "--out", Reuse.REFUSE, signature=("exemplars.jsonl",))


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", help=COMMANDS["memory"].help,
                       description=plain_help(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    cmds = p.add_subparsers(dest="memory_command", metavar="SUBCOMMAND", required=True)

    build = cmds.add_parser("build", help="harvest exemplars from sweeps into a new memory",
                            description="Harvest the episodes of the sweeps whose automatic check passed, on tasks of "
                            "the training split (never the evaluation splits), cut them into pieces, embed their goals "
                            "and the suite's paraphrases as keys, and write the memory to --out.")
    build.add_argument("runs", nargs="+", metavar="RUN", help="sweep directory (with results.jsonl)")
    build.add_argument("--out", required=True, metavar="M", help="memory directory to write (new or empty)")
    build.add_argument("--split", default=",".join(HARVEST_SPLITS), metavar="SPLIT",
                       help=f"task split to harvest (default {','.join(HARVEST_SPLITS)}; eval and heldout refused)")
    add_embedder_options(build)
    add_force_argument(build)
    build.set_defaults(func=run_build)

    show = cmds.add_parser("show", help="list a memory's exemplars, or show one",
                           description="Without ID: one line per exemplar. With ID: its pieces and steps.")
    show.add_argument("memory", metavar="M")
    show.add_argument("id", nargs="?", metavar="ID", help="exemplar id (as the list shows it)")
    show.add_argument("--screens", action="store_true", help="print each piece's whole screen description")
    show.set_defaults(func=run_show)

    stats = cmds.add_parser("stats", help="counts per family, pieces per exemplar, the embedder")
    stats.add_argument("memory", metavar="M")
    stats.add_argument("--json", action="store_true", help="print the figures as JSON")
    stats.set_defaults(func=run_stats)

    query = cmds.add_parser("query", help="which family and exemplars a goal retrieves",
                            description="Embed GOAL with the memory's embedder and show the nearest keys, the "
                            "family they vote for, and whether the similarity clears the floor.")
    query.add_argument("memory", metavar="M")
    query.add_argument("goal", metavar="GOAL")
    query.add_argument("--k", type=int, default=DEFAULT_K, help=f"nearest keys that vote (default {DEFAULT_K})")
    query.add_argument("--floor", type=float, default=DEFAULT_FLOOR,
                       help=f"cosine below which no exemplars are used (default {DEFAULT_FLOOR})")
    query.add_argument("--embedder", metavar="NAME[:MODEL]",
                       help="the memory's embedder, named to confirm one that sends texts with your API key "
                            "(default: the one the memory was built with)")
    query.add_argument("--embedder-base-url", metavar="URL", help="embedder endpoint override (proxy, stand-in)")
    query.add_argument("--embedder-api-key", metavar="KEY", help="embedder API key (prefer the environment)")
    query.set_defaults(func=run_query)


def run_build(args: argparse.Namespace) -> int:
    runs = [Path(r) for r in args.runs]
    out = Path(args.out)
    splits = check_splits(args.split.split(","))
    # A refused path is said before any work; with --force, what is there is removed only once the new
    # memory is built, so a missing embedder, a bad key or a failing embedding leaves the old one whole.
    if not args.force:
        claim(out, MEMORY, inputs=runs)
    start = time.perf_counter()
    found = harvest(runs, splits=splits)
    embedder = load_embedder(args.embedder, embedder_options(args))
    try:
        memory = build_memory(found, embedder)
    finally:
        embedder.close()
    if args.force:
        claim(out, MEMORY, force=True, inputs=runs)
    memory.save(out)
    seconds = time.perf_counter() - start
    echo(f"memory {out}: {len(memory.exemplars)} exemplar(s) of {len(memory.families)} famil"
          f"{'y' if len(memory.families) == 1 else 'ies'}, {len(memory.keys)} key(s), embedder "
          f"{memory.embedder.spec} ({memory.embedder.dimension} dimensions); {seconds:.1f} s")
    for reason, count in sorted(found.skip_counts().items()):
        echo(f"  skipped {count} episode(s): {reason}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    # Goals, screens and the model's words come from recorded episodes (and a memory may be a copied
    # folder): every line goes out through echo, so none of them can drive the terminal.

    memory = ExemplarMemory.load(Path(args.memory))
    if args.id is None:
        for x in memory.exemplars:
            echo(f"{x.id}\t{x.family}\t{len(x.pieces)} piece(s), {len(x.steps)} step(s)\t{x.goal}")
        return 0
    x = memory.exemplar(args.id)
    src = x.source
    echo(f"exemplar {x.id}\n  goal: {x.goal}\n  family: {x.family}\n  from: {src.run} episode {src.episode} "
          f"(task {src.task}, split {src.split}, method {src.method}, seed {src.seed}, check passed: {src.checked})")
    for number, piece in enumerate(x.pieces, 1):
        lines = piece.screen.splitlines()
        echo(f"piece {number}: screen of {len(lines)} line(s)")
        if args.screens:
            echo("\n".join(f"    | {line}" for line in lines))
        if piece.observation is not None:
            echo(f"  observation: {piece.observation}")
        if piece.task is not None:
            echo(f"  explicit task: {piece.task}")
        for step in piece.steps:
            changed = "screen changed" if step.screen_changed else "screen unchanged"
            echo(f"  - {step.words}  ->  {json.dumps(action_to_json(step.action))}  ({changed})")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    memory = ExemplarMemory.load(Path(args.memory))
    keys_of: dict[str, int] = {}
    for key in memory.keys:
        keys_of[key.family] = keys_of.get(key.family, 0) + 1
    families = []
    for family in memory.families:
        xs = memory.exemplars_of(family)
        pieces = [len(x.pieces) for x in xs]
        families.append({"family": family, "exemplars": len(xs), "keys": keys_of.get(family, 0),
                         "pieces_mean": statistics.fmean(pieces), "pieces_min": min(pieces),
                         "pieces_max": max(pieces), "steps": sum(len(x.steps) for x in xs)})
    manifest = memory.manifest()
    if args.json:
        print(json.dumps({**manifest, "families": families}, indent=2))
        return 0
    counts = manifest["counts"]
    pieces_all = [len(x.pieces) for x in memory.exemplars]
    echo(f"memory {args.memory}\n  embedder: {memory.embedder.spec} ({memory.embedder.dimension} dimensions)\n"
          f"  exemplars: {counts['exemplars']}, families: {counts['families']}, keys: {counts['keys']}, "
          f"pieces: {counts['pieces']}, steps: {counts['steps']}")
    if pieces_all:
        echo(f"  pieces per exemplar: mean {statistics.fmean(pieces_all):.1f}, median "
              f"{statistics.median(pieces_all):g}, max {max(pieces_all)}")
    echo(f"  built from: {', '.join(memory.runs) or '(not recorded)'}")
    echo(f"\n{'family':<32}{'exemplars':>10}{'keys':>6}{'pieces/ex':>11}{'steps':>7}")
    for row in families:
        echo(f"{row['family']:<32}{row['exemplars']:>10}{row['keys']:>6}{row['pieces_mean']:>11.1f}"
              f"{row['steps']:>7}")
    return 0


def run_query(args: argparse.Namespace) -> int:
    if not args.goal.strip():
        raise InputError("memory query: the goal is empty")
    memory = ExemplarMemory.load(Path(args.memory))
    # The memory's own embedder comes from a file: one that sends texts with the user's key needs --embedder.
    embedder = load_embedder(args.embedder or memory.embedder, embedder_options(args))
    if embedder.info != memory.embedder:
        embedder.close()
        raise ConfigError(f"--embedder {args.embedder} is not the memory's embedder ({memory.embedder.spec}, "
                          f"{memory.embedder.dimension} dimensions)")
    try:
        found = Retriever(memory, embedder, k=args.k, floor=args.floor).retrieve(args.goal)
    finally:
        embedder.close()
    for family, score in found.neighbours:
        echo(f"  {score:.3f}  {family}")
    if found.family is None:
        echo(f"no family: the nearest key's similarity {found.similarity:.3f} is under the floor {args.floor:g}; "
              "the agent would run without exemplars")
    else:
        echo(f"family {found.family} (similarity {found.similarity:.3f}): "
              f"{', '.join(x.id for x in found.exemplars) or 'no exemplars'}")
    return 0
