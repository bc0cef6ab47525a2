"""``latent-agent show DIR``: an episode as one self-contained HTML page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from latent_agent.agent.pages.episode_page import render_html
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.atomic_write import write_atomic
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.options import add_force_argument
from latent_agent.demo.client import register as register_demo
from latent_agent.errors import OutputPathError
from latent_agent.outputs import EPISODE_PAGE, claim


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "show", help=COMMANDS["show"].help,
        description="Render an episode directory (written by `latent-agent run`) as one HTML file: "
        "screenshots with the taps and swipes drawn on them, the latent-state estimates beside each step, "
        "every LLM call folded underneath.",
    )
    p.add_argument("directory", type=Path, metavar="DIR", help="episode directory")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write the page ('-' for stdout; default: DIR/episode.html); a file that is "
                   "not an episode page is refused")
    add_force_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    register_demo()  # a demo run's pages say it is no language model's: the registry must know the demo
    target = Path(args.output) if args.output and args.output != "-" else args.directory / "episode.html"
    if args.output != "-":
        # A link is refused (an episode folder someone sent can plant DIR/episode.html pointing at any file).
        claim(target, EPISODE_PAGE, force=args.force, inputs=(args.directory,))
    page = render_html(read_trajectory(args.directory))
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    try:
        # Whole or not at all, and by a rename: a link put in its place meanwhile is replaced, never followed.
        write_atomic(target, page)
    except OSError as exc:
        raise OutputPathError(f"cannot write the page to {target}: {exc.strerror or exc}") from None
    print(target)
    return 0
