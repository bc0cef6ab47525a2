"""The options several commands share, each declared once: ``--force``, ``--noise`` and ``--observation``.

The library takes what they give as typed values (an output path's policy, a
:class:`~latent_agent.device.sim.noise.NoiseConfig`, observation sources); only the command line knows argparse.
"""

from __future__ import annotations

import argparse

from latent_agent.agent.observe import OBSERVATION_SOURCES

#: Help of ``--noise`` (run, sweep, sim screen).
NOISE_HELP = ("noise of the simulated phone: a profile (none, paper) and/or knobs, e.g. 'paper', "
              "'popup_rate=0.3,frozen_screen=0.1' or 'paper,wrong_text=0' (default none; see docs/noise.md). "
              "Real devices refuse it; a phone served by `sim serve --noise` must match it")

#: Help of ``--observation``: what each source is, and the default.
OBSERVATION_HELP = ("where the agent's view of each screen comes from: a11y (the accessibility dump), screen (the "
                    "screenshot alone, read by OCR and shape analysis; the dump is never requested) or both (the dump "
                    "plus what only the screenshot shows). Default: a11y, but screen for CAAP and its ablations on a "
                    "web page (MiniWoB++) in run, as its paper saw only screenshots; docs/observer.md")


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--force``: replace outputs this command did not write (:mod:`latent_agent.outputs`)."""
    parser.add_argument("--force", action="store_true",
                        help="replace an existing output path the command would otherwise refuse")


def add_noise_argument(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """Add ``--noise PROFILE|KNOB=LEVEL,...`` (read by :meth:`NoiseConfig.parse
    <latent_agent.device.sim.noise.NoiseConfig.parse>`; None when not given, unless ``default``)."""
    parser.add_argument("--noise", default=default, metavar="PROFILE|KNOB=LEVEL,...", help=NOISE_HELP)


def add_observation_argument(parser: argparse.ArgumentParser, *, several: bool) -> None:
    """Add ``--observation``: one source (``run``), or several, comma-separated (``sweep``: every (task, method,
    seed) runs under each, read by :func:`~latent_agent.benchmarks.plan.parse_observations`). No default: a run's
    is its method's on the device's surface, a sweep's a11y."""
    if several:
        parser.add_argument("--observation", metavar="SOURCE[,SOURCE...]",
                            help=OBSERVATION_HELP + "; several, comma-separated (a11y,screen), run every (task, "
                                 "method, seed) under each, and the report compares them per method")
    else:
        parser.add_argument("--observation", choices=OBSERVATION_SOURCES, help=OBSERVATION_HELP)
