"""Where a remote browser is reached: the part of ``--device miniwob@ENDPOINT`` after the ``@``.

Two protocols reach a Chromium on another machine, both Playwright's own:

* a Playwright browser server (``playwright launch-server``, ``browserType.launchServer``), reached by
  ``browser_type.connect`` at its ``ws://HOST:PORT/PATH`` (or ``wss://``);
* the Chrome DevTools Protocol of a Chromium started with ``--remote-debugging-port``, reached by
  ``connect_over_cdp`` at ``cdp://HOST:PORT`` (its HTTP endpoint), ``http(s)://HOST:PORT`` or the browser's
  own ``ws://HOST:PORT/devtools/browser/ID``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from latent_agent.errors import ConfigError

#: The accepted forms, for messages.
ENDPOINT_FORMS = "ws://HOST:PORT/PATH (a Playwright server), cdp://HOST:PORT or http://HOST:PORT (Chromium's DevTools)"
#: The path of a DevTools browser websocket (what ``--remote-debugging-port`` prints), which is CDP, not Playwright.
_DEVTOOLS_PATH = "/devtools/browser/"

Protocol = Literal["playwright", "cdp"]


@dataclass(frozen=True, slots=True)
class BrowserEndpoint:
    """A browser to connect to instead of launching one.

    Attributes:
        protocol: ``playwright`` (``browser_type.connect``) or ``cdp`` (``connect_over_cdp``).
        url: What Playwright is given (``cdp://`` becomes the ``http://`` DevTools endpoint).
        text: The endpoint as it was written (the spec shows it back).
    """

    protocol: Protocol
    url: str
    text: str


def parse_endpoint(text: str) -> BrowserEndpoint:
    """Parse an endpoint without connecting to it.

    Raises:
        ConfigError: An unknown scheme, or no host and port (one line listing the forms).
    """
    parts = urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise ConfigError(f"browser endpoint {text!r} needs a host and a port; accepted: {ENDPOINT_FORMS}")
    scheme = parts.scheme.lower()
    if scheme == "cdp":
        return BrowserEndpoint("cdp", parts._replace(scheme="http").geturl(), text)
    if scheme in ("http", "https"):
        return BrowserEndpoint("cdp", text, text)
    if scheme in ("ws", "wss"):
        return BrowserEndpoint("cdp" if parts.path.startswith(_DEVTOOLS_PATH) else "playwright", text, text)
    raise ConfigError(f"browser endpoint {text!r} has an unknown scheme; accepted: {ENDPOINT_FORMS}")
