"""``latent-agent report DIR``: Markdown + HTML report of a sweep (partial sweeps too).

Writes ``DIR/report/report.md``, ``report.html`` and ``charts/*.png``: per suite a
table laid out like the paper's Table 3 (each reasoning method without and with
latent state), paired permutation tests, error analysis and a link to every
episode; a MiniWoB++ sweep of a paper's method also gets ``papers.md`` and
``papers.html``, its tables and charts beside the published numbers. ``--ratings FILE`` applies rater scores (JSONL, see
``benchmarks/ratings.py``) to episodes no check could score.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from latent_agent import api
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.help_text import plain_help
from latent_agent.cli.options import add_force_argument


def add_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "report", help=COMMANDS["report"].help, description=plain_help(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path, metavar="DIR", help="sweep directory")
    parser.add_argument("--out", type=Path, metavar="OUT", help="report directory (default DIR/report)")
    parser.add_argument("--ratings", type=Path, metavar="FILE", help="rater scores (ratings JSONL)")
    parser.add_argument("--resamples", type=int, default=20_000, metavar="N",
                        help="permutation-test resamples (exact enumeration when 2^pairs <= N)")
    parser.add_argument("--no-episode-pages", action="store_true",
                        help="link trajectories instead of rendering each episode's page")
    add_force_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    files = api.report(args.dir, args.out, ratings=args.ratings, resamples=args.resamples,
                       episode_pages=not args.no_episode_pages, force=args.force)
    print(f"report: {files.markdown}")
    print(f"        {files.html}")
    if files.papers is not None:
        print(f"papers: {files.papers}")
    for chart in files.charts:
        print(f"chart:  {chart}")
    if files.episode_pages:
        print(f"{files.episode_pages} episode page(s) rendered")
    return 0
