"""The commands the served phone's shell knows, as a name -> handler registry.

Each handler answers the way the Android tool of that name does for the
arguments adb clients actually send (output text, stderr messages, exit
status), and turns the request into :class:`~latent_agent.device.base.Device` calls on the
phone. Arguments the simulated phone cannot honour are refused with a message,
never silently ignored.

The handlers live by concept: :mod:`.coreutils` (shell builtins, files),
:mod:`.ui` (uiautomator, screencap, input), :mod:`.packages` (am, monkey, pm,
cmd) and :mod:`.system` (dumpsys, wm, getprop, settings, ime).
"""

from __future__ import annotations

from latent_agent.device.adb_server.commands import coreutils, packages, system, ui
from latent_agent.device.adb_server.shell import Handler

COMMANDS: dict[str, Handler] = {**coreutils.COMMANDS, **ui.COMMANDS, **packages.COMMANDS, **system.COMMANDS}

__all__ = ["COMMANDS"]
