"""``latent-agent describe FILE``: show a screen as the agent sees it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.accessibility.elements import elements_json, grounder_elements
from latent_agent.accessibility.load import load_tree, parse_any
from latent_agent.accessibility.stats import screen_stats
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.plain import echo, safe_json


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "describe",
        help=COMMANDS["describe"].help,
        description="Parse a screen dump, clean it, and print it as the agent sees it.",
    )
    p.add_argument("file", help="screen dump file, or - for standard input")
    p.add_argument(
        "--format",
        choices=("nl", "json", "stats"),
        default="nl",
        help="nl: natural-language description; json: the grounder's element list; "
        "stats: node and token counts of each representation",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.file == "-":
        raw_bytes = sys.stdin.buffer.read()
        tree = parse_any(raw_bytes, source="<stdin>")
    else:
        tree = load_tree(args.file)
        raw_bytes = Path(args.file).read_bytes()
    # Labels are the screen's app's text: control characters in them must not reach the terminal.
    if args.format == "nl":
        echo(describe(clean_tree(tree)))
    elif args.format == "json":
        print(safe_json(elements_json(grounder_elements(clean_tree(tree)))))
    else:
        raw = raw_bytes.decode("utf-8", errors="replace") if tree.source != "androidenv" else raw_bytes.hex()
        reps = screen_stats(raw, tree)
        base = reps[0].tokens or 1
        print(f"{'representation':<28}{'elements':>9}{'tokens':>9}{'% of raw':>10}")
        for r in reps:
            print(f"{r.name:<28}{r.elements:>9}{r.tokens:>9}{100 * r.tokens / base:>9.1f}%")
        print("tokens: o200k_base BPE (offline); ratios are what matter")
    return 0
