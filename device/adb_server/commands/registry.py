"""What every command module shares: the registry type and the phone's naming conventions."""

from __future__ import annotations

from collections.abc import Callable

from latent_agent.device.adb_server.shell import Handler, Invocation
from latent_agent.errors import DeviceError

#: The launcher activity of every simulated app, as ``dumpsys`` and ``cmd package`` name it.
ACTIVITY = "{pkg}/.MainActivity"


class Registry(dict[str, Handler]):
    """Command name -> handler, filled by the :meth:`command` decorator."""

    def command(self, *names: str) -> Callable[[Handler], Handler]:
        """Register a handler under one or more command names."""

        def register(fn: Handler) -> Handler:
            for name in names:
                self[name] = fn
            return fn

        return register


def device_failed(inv: Invocation, exc: DeviceError) -> int:
    """Report a failed device call the way a tool reports an internal error: on stderr, status 1."""
    return inv.fail(f"device error: {exc}", 1)
