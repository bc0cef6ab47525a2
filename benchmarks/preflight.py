"""The checks a sweep makes before it plans anything: every device answers, and so does the LLM.

A sweep over an unreachable LLM or a switched-off emulator would otherwise plan
hundreds of episodes and spend every episode's retries finding out. The checks
are cheap: one screen-size call per device (a simulated phone is built in process in
milliseconds; a browser page or a phone may be missing) and one short prompt to the LLM, the ``llm ping`` path,
with fewer retries than an episode gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from latent_agent.device.base import Device
from latent_agent.device.spec import DeviceSpec, load_device
from latent_agent.errors import DeviceError, LLMError, PreflightError
from latent_agent.invocation import command_name
from latent_agent.llm.base import LLMClient
from latent_agent.llm.ping import ping

#: Attempts of the preflight ping: enough to ride out one dropped connection.
PING_ATTEMPTS = 2


def check_devices(specs: Sequence[DeviceSpec], build: Callable[[str], Device] = load_device) -> int:
    """Build every device of the pool once and ask for its screen size.

    Args:
        specs: The pool.
        build: Opens a device from its spec (the ``--device`` loader).

    Returns:
        How many devices were checked.

    Raises:
        PreflightError: A device could not be reached or did not answer (nothing was run).
    """
    checked = 0
    for spec in dict.fromkeys(specs):
        try:
            device = build(str(spec))
            try:
                device.screen_size()
            finally:
                device.close()
        except DeviceError as exc:
            raise PreflightError(f"device {spec} does not answer ({type(exc).__name__}: {exc}); "
                                 "nothing was run") from None
        checked += 1
    return checked


def check_llm(client: LLMClient, spec: str) -> None:
    """Send the LLM one short prompt.

    Args:
        client: A client built like the sweep's, without recording.
        spec: The ``--llm`` spec, for the message.

    Raises:
        PreflightError: The LLM did not answer (nothing was run).
    """
    try:
        ping(client)
    except LLMError as exc:
        raise PreflightError(f"the LLM {spec} does not answer ({type(exc).__name__}: {exc}); nothing was run "
                             f"(check it with: {command_name()} llm ping --llm {spec})") from None
