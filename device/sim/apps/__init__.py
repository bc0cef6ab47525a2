"""The simulated apps, registered in one place.

Add an app by writing a :class:`~latent_agent.device.sim.apps.base.SimApp` module and
listing it in :func:`builtin_apps`.
"""

from __future__ import annotations

from latent_agent.device.sim.apps.base import SimApp
from latent_agent.device.sim.apps.calendar import Calendar
from latent_agent.device.sim.apps.chrome import Chrome
from latent_agent.device.sim.apps.clock import Clock
from latent_agent.device.sim.apps.files import Files
from latent_agent.device.sim.apps.launcher import Launcher
from latent_agent.device.sim.apps.settings import Settings
from latent_agent.device.sim.apps.store import PlayStore
from latent_agent.device.sim.apps.systemui import SystemUI


def builtin_apps() -> list[SimApp]:
    """Fresh instances of every preinstalled app (system UI included)."""
    return [Launcher(), SystemUI(), Settings(), Clock(), Chrome(), PlayStore(), Files(), Calendar()]


__all__ = ["SimApp", "builtin_apps"]
