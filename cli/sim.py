"""``latent-agent sim ...``: the simulated phone from the command line.

``sim screen`` prints the uiautomator dump of an app's first screen (or the
home screen) and can save its screenshot; ``sim tasks`` lists the sim task
suite; ``sim serve`` (from :mod:`latent_agent.device.adb_server.cli`) serves the phone as
a network adb device.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from latent_agent.accessibility.clean import clean_tree
from latent_agent.accessibility.describe import describe
from latent_agent.benchmarks.suite import load_named_suite
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.options import add_noise_argument
from latent_agent.cli.plain import echo
from latent_agent.device.adb_server.cli import add_serve_parser
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.errors import ConfigError


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sim",
        help=COMMANDS["sim"].help,
        description="Work with the simulated Pixel phone (the default offline device).",
    )
    subsub = p.add_subparsers(dest="sim_command", metavar="SUBCOMMAND", required=True)

    screen = subsub.add_parser(
        "screen",
        help="print the dump of an app's first screen (or the home screen)",
        description="Start the simulated phone, open an app and print its uiautomator dump.",
    )
    screen.add_argument(
        "--app", metavar="NAME", help='app to open, by name ("clock", "the chrome app") or package'
    )
    screen.add_argument("--seed", type=int, default=0, help="seed of the simulated phone (default 0)")
    add_noise_argument(screen, default="none")
    screen.add_argument("--screenshot", metavar="FILE.png",
                        help="save the screen as a PNG (the dump is then printed only if --format asks for it)")
    screen.add_argument(
        "--format",
        choices=("xml", "nl"),
        default=None,
        help="xml: the raw uiautomator dump (default without --screenshot); nl: the cleaned description the "
             "agent reads",
    )
    screen.set_defaults(func=run_screen)

    tasks = subsub.add_parser(
        "tasks", help="list the sim task suite", description="List the simulated phone's tasks."
    )
    tasks.add_argument("--app", metavar="NAME", help="only tasks of this app (e.g. Clock)")
    tasks.add_argument("--json", action="store_true", help="one JSON object per task (id, app, goal, tags)")
    tasks.add_argument("--suite", default="sim", metavar="NAME",
                       help="sim: the sim suite (default); another suite whose tasks the simulated phone checks "
                            "(pixelhelp: the paper's PixelHelp goals), each with the sim task that plays it")
    tasks.set_defaults(func=run_tasks)

    add_serve_parser(subsub)


def run_screen(args: argparse.Namespace) -> int:
    device = SimDevice(seed=args.seed, noise=NoiseConfig.parse(args.noise))
    if args.app:
        device.open_app(args.app)
    if args.screenshot:
        target = Path(args.screenshot)
        if target.suffix.lower() != ".png":
            raise ConfigError(f"--screenshot must name a .png file, not {args.screenshot!r}")
        shot = device.screenshot()
        try:
            target.write_bytes(shot)
        except OSError as exc:
            raise ConfigError(f"cannot write screenshot {args.screenshot!r}: {exc.strerror}") from None
        size = device.screen_size()
        # Said on stderr, so a dump asked for beside it (--format) stays the whole of stdout.
        echo(f"wrote {target} ({size.width}x{size.height} PNG, {len(shot):,} bytes)", file=sys.stderr)
    if args.screenshot and args.format is None:
        return 0  # only the screenshot was asked for (the dump of a screen is some 30 KB of XML)
    hierarchy = device.hierarchy()
    # A dump is a screen's text: printed as every screen's text is, so no label can drive the terminal.
    if args.format == "nl":
        echo(describe(clean_tree(hierarchy.tree)))
    else:
        echo(hierarchy.raw.decode("utf-8"))
    return 0


def run_tasks(args: argparse.Namespace) -> int:
    # Any registered suite's checked tasks, as the registry holds them (a name list here would miss a new suite).
    checked = [(t.id, t.sim_task) for t in load_named_suite(args.suite).tasks if t.sim_task is not None]
    if not checked:
        raise ConfigError(f"suite {args.suite!r} has no task the simulated phone checks (sim and pixelhelp have)")
    tasks = [task for _, task in checked]
    # sim task id -> the id the listed suite gives it, where the two differ (PixelHelp's pixelhelp-NN).
    names = {task.id: listed for listed, task in checked} if any(listed != task.id for listed, task in checked) else {}
    if args.app:
        apps = sorted({t.app for t in tasks})
        tasks = [t for t in tasks if t.app.lower() == args.app.strip().lower()]
        if not tasks:
            raise ConfigError(f"no sim tasks for app {args.app!r}; apps with tasks: {', '.join(apps)}")
    for task in tasks:
        if args.json:
            row = {"id": names.get(task.id, task.id), "app": task.app, "goal": task.goal, "tags": list(task.tags)}
            print(json.dumps(row | ({"sim_task": task.id} if names else {})))
        else:
            shown = f"{names[task.id]} ({task.id})" if names else task.id
            print(f"{shown:<{54 if names else 40}} {task.app:<15} {task.goal}")
    if not args.json:
        print(f"{len(tasks)} tasks", file=sys.stderr)
    return 0
