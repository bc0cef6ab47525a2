"""Headless Chromium driven by Playwright from an event loop of its own, lending out pages.

The browser lives on one thread running an asyncio loop with Playwright's asynchronous API: the episode
loop is itself an event loop (Playwright's synchronous API refuses to run inside one), and devices used
from several threads at once (a sweep's ``miniwob*4``) then drive their pages concurrently on the one
browser instead of queueing behind each other. Every call is sent to that loop and waited for with a
deadline (a page that hangs raises ``DeviceTimeoutError`` instead of hanging the episode). Each device holds
one page in a context of its own.

A browser holds at most :func:`pages_per_browser` pages (``LATENT_AGENT_MINIWOB_PAGES_PER_BROWSER``, default
:data:`DEFAULT_PAGES_PER_BROWSER`); a page beyond that gets a browser of its own, so ``miniwob*8`` runs on two
browsers of four pages. A browser closes with its last page.

Pages are loaded by file URL, and every other request is aborted (the pages need nothing from the
network; a request that was tried is kept in :attr:`BrowserPage.blocked`, which a load failure names).
What a route does not see is closed too: a WebSocket is answered here and closed, never connected
(:data:`BLOCK_EVERYTHING`), and the launched browser resolves no host and sends WebRTC nowhere
(:data:`LAUNCH_ARGS`), so neither the connection Chromium opens ahead of a navigation, nor WebTransport,
nor a STUN or TURN probe reaches anything, a listener on this machine included.
Chromium is Debian's (``/usr/bin/chromium``); no browser is ever downloaded.

A browser on another machine (:mod:`latent_agent.device.miniwob.endpoint`) is connected to instead of
launched. A file URL of this machine does not exist there, so its pages load from a fixed origin that does
not exist anywhere, :data:`SERVED_ORIGIN`: every request to it is intercepted in the browser and answered
from the local pages folder (Playwright's routes run here), and every other request is aborted as locally.
The remote browser needs neither the pages nor a way back to this machine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import shutil
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlsplit

from latent_agent.device.miniwob.endpoint import BrowserEndpoint
from latent_agent.errors import ConfigError, DeviceError, DeviceTimeoutError
from latent_agent.extras import require

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route, WebSocketRoute

T = TypeVar("T")

#: The system Chromium the browser runs (Debian's package, or the binary ``LATENT_AGENT_CHROMIUM`` names);
#: never a downloaded one.
CHROMIUM = Path(os.environ.get("LATENT_AGENT_CHROMIUM") or "/usr/bin/chromium")
INSTALL_CHROMIUM = "sudo apt-get install chromium"
#: Seconds a browser launch may take.
LAUNCH_TIMEOUT_S = 60.0
#: Seconds any other browser call may take.
CALL_TIMEOUT_S = 30.0
#: Names the number of pages one browser holds before the next page gets another browser.
PAGES_ENV = "LATENT_AGENT_MINIWOB_PAGES_PER_BROWSER"
#: Pages per browser unless :data:`PAGES_ENV` says otherwise.
DEFAULT_PAGES_PER_BROWSER = 4
#: Where a remote browser loads the pages from: a reserved name (RFC 2606) no network answers, so a request
#: that escaped interception would fail rather than reach anything.
SERVED_ORIGIN = "http://miniwob.invalid/"
#: What the launched Chromium is started with, for what Playwright's routes do not see: every host name
#: resolves to nothing (IP literals included: the connection a navigation opens before its request is
#: routed, WebTransport), and WebRTC sends no UDP but through a proxy, of which there is none (STUN, TURN).
LAUNCH_ARGS = ("--host-resolver-rules=MAP * ~NOTFOUND", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
               "--webrtc-ip-handling-policy=disable_non_proxied_udp")
#: Every WebSocket URL, for :meth:`BrowserContext.route_web_socket` (a route for requests never sees one).
BLOCK_EVERYTHING = "**/*"


@dataclass(frozen=True, slots=True)
class PageShape:
    """The page's viewport, in CSS pixels, and its pixel scale.

    Attributes:
        width: Viewport width (CSS px).
        height: Viewport height (CSS px).
        scale: Device pixels per CSS pixel (screenshots and the device's coordinates are in device pixels).
    """

    width: int
    height: int
    scale: int


def _playwright_error() -> type[Exception]:
    from playwright.async_api import Error

    return Error


def pages_per_browser() -> int:
    """How many pages one browser holds (:data:`PAGES_ENV`, else :data:`DEFAULT_PAGES_PER_BROWSER`).

    Raises:
        ConfigError: The variable is not a positive integer.
    """
    named = os.environ.get(PAGES_ENV, "").strip()
    if not named:
        return DEFAULT_PAGES_PER_BROWSER
    try:
        pages = int(named)
    except ValueError:
        pages = 0
    if pages < 1:
        raise ConfigError(f"{PAGES_ENV}={named} must be a positive integer (pages per browser)")
    return pages


def _served_file(url: str, root: Path) -> Path | None:
    """The file under ``root`` that a request to :data:`SERVED_ORIGIN` asks for; None outside it or missing."""
    path = root.joinpath(unquote(urlsplit(url).path).lstrip("/")).resolve()
    return path if path.is_relative_to(root) and path.is_file() else None


def _check_chromium(executable: Path) -> None:
    if not executable.is_file() and shutil.which(str(executable)) is None:
        raise ConfigError(f"MiniWoB++ needs Chromium at {executable}, which is missing; install it with "
                          f"`{INSTALL_CHROMIUM}`")


class BrowserHost:
    """Chromium under Playwright on a thread of its own; use :func:`acquire_page` rather than this directly.

    Args:
        executable: The Chromium binary (launched when no endpoint is given).
        endpoint: A remote browser to connect to instead.

    Raises:
        ConfigError: If the binary or Playwright is missing (one line naming the install command).
        DeviceError: If Chromium does not start, or the remote browser cannot be reached.
    """

    def __init__(self, executable: Path = CHROMIUM, endpoint: BrowserEndpoint | None = None) -> None:
        if endpoint is None:
            _check_chromium(executable)
        self.endpoint = endpoint
        #: Set when the browser went away (crashed, killed, its machine gone): it lends no more pages.
        self.disconnected = False
        require("miniwob", "MiniWoB++", ("playwright",))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="miniwob-browser", daemon=True)
        self._thread.start()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        try:
            self.call(lambda: self._launch(executable), timeout=LAUNCH_TIMEOUT_S)
        except DeviceError as exc:
            self.close()
            if endpoint is None:
                raise
            raise type(exc)(f"the browser at {endpoint.text} cannot be reached: {exc}") from None
        except BaseException:
            self.close()
            raise

    async def _launch(self, executable: Path) -> None:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        chromium = self._playwright.chromium
        if self.endpoint is None:
            self._browser = await chromium.launch(executable_path=str(executable), headless=True,
                                                  args=list(LAUNCH_ARGS))
        elif self.endpoint.protocol == "cdp":
            self._browser = await chromium.connect_over_cdp(self.endpoint.url, timeout=LAUNCH_TIMEOUT_S * 1000)
        else:
            self._browser = await chromium.connect(self.endpoint.url, timeout=LAUNCH_TIMEOUT_S * 1000)
        self._browser.on("disconnected", lambda _: setattr(self, "disconnected", True))

    def call(self, work: Callable[[], Awaitable[T]], *, timeout: float = CALL_TIMEOUT_S) -> T:
        """Run ``work()`` on the browser's loop and return its result.

        Raises:
            DeviceTimeoutError: It did not finish within ``timeout`` seconds (it is cancelled).
            DeviceError: The browser failed (Playwright's error, in one line).
        """

        async def run() -> T:
            return await work()

        future = asyncio.run_coroutine_threadsafe(run(), self._loop)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise DeviceTimeoutError(f"the browser did not answer within {timeout:g} s") from None
        except _playwright_error() as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise DeviceError(f"browser: {first}") from None

    def new_page(self, shape: PageShape, allowed: Path) -> BrowserPage:
        """A page in a context of its own, where only files under ``allowed`` may be loaded.

        A launched browser loads them by file URL; a remote one from :data:`SERVED_ORIGIN`, answered from
        ``allowed`` here.
        """
        return self.call(lambda: self._new_page(shape, allowed.resolve()))

    async def _new_page(self, shape: PageShape, root: Path) -> BrowserPage:
        assert self._browser is not None, "launched in __init__"
        context = await self._browser.new_context(viewport={"width": shape.width, "height": shape.height},
                                                  device_scale_factor=shape.scale)
        origin = SERVED_ORIGIN if self.endpoint is not None else root.as_uri() + "/"
        page = BrowserPage(self, context, await context.new_page(), shape, root, origin)

        async def route(request_route: Route) -> None:
            url = request_route.request.url
            if self.endpoint is None and url.startswith(origin):
                await request_route.continue_()
                return
            served = _served_file(url, root) if self.endpoint is not None and url.startswith(origin) else None
            if served is not None:
                await request_route.fulfill(path=served)
            else:
                page.blocked.append(url)
                await request_route.abort("blockedbyclient")

        async def socket(web_socket: WebSocketRoute) -> None:
            # Handled here without connect_to_server: the page's socket is closed and no connection is opened.
            page.blocked.append(web_socket.url)
            await web_socket.close()

        await context.route("**/*", route)
        await context.route_web_socket(BLOCK_EVERYTHING, socket)
        return page

    def close(self) -> None:
        """Close the browser and stop its loop (idempotent)."""

        async def stop() -> None:
            if self._browser is not None:
                await self._browser.close()
                self._browser = None
            if self._playwright is not None:
                await self._playwright.stop()
                self._playwright = None

        if self._loop.is_running():
            with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError, _playwright_error()):
                # A browser that does not close is killed with the process; nothing else holds it.
                asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=CALL_TIMEOUT_S)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=CALL_TIMEOUT_S)
        if not self._thread.is_alive():
            self._loop.close()


class BrowserPage:
    """One page of the shared browser (see :func:`acquire_page`); every call runs on the browser's loop.

    Attributes:
        shape: Its viewport and scale.
        blocked: URLs of requests that were aborted because they left the allowed folder.
    """

    def __init__(self, host: BrowserHost, context: BrowserContext, page: Page, shape: PageShape, root: Path,
                 origin: str) -> None:
        self._host = host
        self._context = context
        self._page = page
        self._root = root
        self._origin = origin
        self.shape = shape
        self.blocked: list[str] = []
        self.closed = False

    @property
    def gone(self) -> bool:
        """Whether its browser went away (crashed, was killed, its machine is gone): every call fails from then."""
        return self._host.disconnected

    def url_of(self, path: Path) -> str:
        """The URL this page loads the file ``path`` (under the allowed folder) by.

        Raises:
            ConfigError: The file is outside the allowed folder (it would be blocked).
        """
        resolved = path.resolve()
        if not resolved.is_relative_to(self._root):
            raise ConfigError(f"{path} is outside the MiniWoB++ pages folder {self._root}")
        return self._origin + resolved.relative_to(self._root).as_posix()

    def run(self, work: Callable[[Page], Awaitable[T]], *, timeout: float = CALL_TIMEOUT_S) -> T:
        """Run ``work(page)`` on the browser's loop (see :meth:`BrowserHost.call`)."""
        if self.closed:
            raise DeviceError("the MiniWoB++ page is closed")
        return self._host.call(lambda: work(self._page), timeout=timeout)

    def evaluate(self, script: str, arg: Any = None, *, timeout: float = CALL_TIMEOUT_S) -> Any:
        """Evaluate a JavaScript expression or function in the page and return its JSON result."""
        return self.run(lambda page: page.evaluate(script, arg), timeout=timeout)

    def close(self) -> None:
        """Close the page and its context, and give the browser back (idempotent)."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(DeviceError):  # the browser is gone already; the release closes what is left
            self._host.call(self._context.close)
        _release(self._host)


@dataclass(slots=True)
class _Lease:
    """A browser of the process and how many pages it has lent out."""

    host: BrowserHost
    pages: int = 0


_lock = threading.Lock()
#: The process's browsers by what they run: a Chromium binary's path or a remote endpoint.
_leases: dict[str, list[_Lease]] = {}


def acquire_page(shape: PageShape, allowed: Path, executable: Path = CHROMIUM,
                 endpoint: BrowserEndpoint | None = None) -> BrowserPage:
    """A new page of one of the process's browsers; a browser is launched (or connected to, for ``endpoint``)
    when every one of that kind holds :func:`pages_per_browser` pages, and closed with its last page.

    Raises:
        ConfigError: Chromium or Playwright is missing, or the pages-per-browser setting is not a number.
        DeviceError: The browser does not start or cannot be reached.
    """
    if endpoint is None:
        _check_chromium(executable)  # also when a browser is up already: the caller named this one
    cap = pages_per_browser()
    key = endpoint.url if endpoint is not None else str(executable)
    with _lock:
        leases = _leases.setdefault(key, [])
        # A browser that went away keeps its lease until its pages are closed, but lends no new one: a device
        # rebuilt after the crash (a sweep's slot recovering) gets a browser launched or reached afresh.
        lease = next((lease for lease in leases if lease.pages < cap and not lease.host.disconnected), None)
        if lease is None:
            # Launched under the lock: two devices starting together fill one browser rather than start two.
            lease = _Lease(BrowserHost(executable, endpoint))
            leases.append(lease)
        lease.pages += 1
    try:
        return lease.host.new_page(shape, allowed)
    except BaseException:
        _release(lease.host)
        raise


def _release(host: BrowserHost) -> None:
    with _lock:
        found = next(((key, lease) for key, leases in _leases.items() for lease in leases if lease.host is host), None)
        if found is None:
            return
        key, lease = found
        lease.pages -= 1
        if lease.pages > 0:
            return
        _leases[key].remove(lease)
        if not _leases[key]:
            del _leases[key]
    host.close()
