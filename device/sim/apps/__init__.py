"""The simulated apps, registered in one place.

Add an app by writing a :class:`~device.sim.apps.base.SimApp` module and
listing it in :func:`builtin_apps`.
"""

from __future__ import annotations

from device.sim.apps.base import SimApp


def builtin_apps() -> list[SimApp]:
    """Fresh instances of every preinstalled app (system UI included)."""
    from device.sim.apps.calendar import Calendar
    from device.sim.apps.chrome import Chrome
    from device.sim.apps.clock import Clock
    from device.sim.apps.files import Files
    from device.sim.apps.launcher import Launcher
    from device.sim.apps.settings import Settings
    from device.sim.apps.store import PlayStore
    from device.sim.apps.systemui import SystemUI

    return [Launcher(), SystemUI(), Settings(), Clock(), Chrome(), PlayStore(), Files(), Calendar()]


__all__ = ["SimApp", "builtin_apps"]
