"""``latent-agent sim serve``: expose the simulated phone as a network adb device.

:func:`add_serve_parser` adds the ``serve`` sub-subcommand to the ``sim``
command's subparsers; ``python -m latent_agent.device.adb_server`` runs the same thing
stand-alone.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from latent_agent.device.adb_server import AdbServer, ServerOptions
from latent_agent.device.adb_server.emulator import EmulatorServer, read_token
from latent_agent.device.sim.device import SimDevice
from latent_agent.device.sim.noise import NoiseConfig
from latent_agent.errors import ConfigError, LatentAgentError


def add_serve_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``serve`` on ``sub`` (an ``add_subparsers()`` result) and return its parser."""
    p: argparse.ArgumentParser = sub.add_parser(
        "serve", help="serve the simulated phone as a network adb device (adb connect 127.0.0.1:PORT)",
        description="Serve the simulated phone over the adb protocol. Connect with "
                    "`adb connect 127.0.0.1:PORT`, then use adb, AdbDevice (--device adb:127.0.0.1:PORT) "
                    "or uiautomator2's adb-side calls against it. Stops on Ctrl-C or SIGTERM.")
    add_serve_arguments(p)
    p.set_defaults(func=run_serve)
    return p


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=int, required=True,
                   help="TCP port to listen on (0 picks a free one); with --emulator, the console's port (even; "
                        "adbd listens on the next)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated phone (default 0)")
    p.add_argument("--noise", default="none", metavar="PROFILE|KNOB=LEVEL,...",
                   help="noise of the served phone: a profile (none, paper) and/or knobs, e.g. 'paper' or "
                        "'popup_rate=0.3,frozen_screen=0.1' (see docs/noise.md); it reports them as the "
                        "system property ro.latentagent.sim.noise, which run and sweep check")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--no-adb-keyboard", action="store_true",
                   help="serve a phone without the ADB Keyboard IME (non-ASCII text input then fails)")
    p.add_argument("--dump-delay", type=float, default=0.0, metavar="SECONDS",
                   help="make each uiautomator dump take this long, as on a real phone (1-3 s)")
    p.add_argument("--idle-failures", type=int, default=0, metavar="N",
                   help="the first N uiautomator dumps fail with 'could not get idle state'")
    p.add_argument("--emulator", action="store_true",
                   help="serve it as an emulator: a console on --port (adb emu: avd snapshot save|load|list|delete, "
                        "auth by ~/.emulator_console_auth_token as an emulator does), adbd on the next port, "
                        "registered with the running adb server (ANDROID_ADB_SERVER_PORT, default 5037) as "
                        "emulator-PORT; docs/devices.md")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="log every shell command the phone runs to stderr, as it starts")


def run_serve(args: argparse.Namespace) -> int:
    """Serve until interrupted; prints the serial to connect to."""
    noise = NoiseConfig.parse(args.noise)
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port must be between 0 and 65535, not {args.port}")
    if args.dump_delay < 0 or args.idle_failures < 0:
        raise ConfigError("--dump-delay and --idle-failures must be >= 0")
    options = ServerOptions(adb_keyboard=not args.no_adb_keyboard, dump_delay=args.dump_delay,
                            idle_failures=args.idle_failures)
    if args.verbose:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("sim serve: %(message)s"))
        logger = logging.getLogger("latent_agent.device.adb_server")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    device = SimDevice(seed=args.seed, noise=noise)
    if args.emulator:
        return _serve_emulator(device, args, options)
    server = AdbServer(device, host=args.host, port=args.port, options=options).start()

    def stop(signum: int, frame: object) -> None:
        server.close(timeout=0)

    signal.signal(signal.SIGTERM, stop)
    print(f"serving the simulated phone (seed {args.seed}, noise {noise.spec}) on {server.serial}; "
          f"adb connect {server.serial}", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def _serve_emulator(device: Any, args: argparse.Namespace, options: Any) -> int:
    """``sim serve --emulator``: serve until interrupted, registered with the adb server as ``emulator-PORT``."""
    server = EmulatorServer(device, console_port=args.port, host=args.host, options=options,
                            auth_token=read_token()).start()
    try:
        adb_port = int(os.environ.get("ANDROID_ADB_SERVER_PORT") or 5037)
        server.register(adb_port)
        assert server.adb is not None

        def stop(signum: int, frame: object) -> None:
            server.close()

        signal.signal(signal.SIGTERM, stop)
        print(f"serving the simulated phone (seed {args.seed}, noise {device.noise.spec}) as {server.serial}: "
              f"console {args.host}:{server.console_port}, adbd {server.adb.serial}, registered with the adb server "
              f"on port {adb_port}; adb -s {server.serial} emu avd snapshot list", flush=True)
        server.adb.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m latent_agent.device.adb_server", description=__doc__)
    add_serve_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_serve(args)
    except LatentAgentError as exc:  # a bad option or a port that cannot be bound: one line, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
