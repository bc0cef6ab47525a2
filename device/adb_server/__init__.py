"""The simulated phone as a network adb device (``latent-agent sim serve``).

:class:`AdbServer` speaks the adb transport protocol (CNXN/OPEN/OKAY/WRTE/CLSE)
so the real ``adb`` binary, adbutils and uiautomator2 can drive any
:class:`~latent_agent.device.base.Device` through ``adb connect 127.0.0.1:PORT``. Shell
command lines are parsed like ``/system/bin/sh`` does and mapped onto device
calls (:mod:`latent_agent.device.adb_server.commands`); files live in a small virtual file
system (:mod:`latent_agent.device.adb_server.vfs`).
"""

from latent_agent.device.adb_server.served_phone import ServedPhone, ServerOptions
from latent_agent.device.adb_server.server import AdbServer

__all__ = ["AdbServer", "ServedPhone", "ServerOptions"]
