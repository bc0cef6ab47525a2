"""One headless Chromium per process, driven by Playwright from an event loop of its own, lending out pages.

The browser lives on one thread running an asyncio loop with Playwright's asynchronous API: the episode
loop is itself an event loop (Playwright's synchronous API refuses to run inside one), and devices used
from several threads at once (a sweep's ``miniwob*4``) then drive their pages concurrently on the one
browser instead of queueing behind each other. Every call is sent to that loop and waited for with a
deadline (a page that hangs raises ``DeviceTimeoutError`` instead of hanging the episode). Each device holds
one page in a context of its own, and the browser closes with the last page.

Pages are loaded by file URL, and every other request is aborted (the pages need nothing from the
network; a request that was tried is kept in :attr:`BrowserPage.blocked`, which a load failure names).
Chromium is Debian's (``/usr/bin/chromium``); no browser is ever downloaded.
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

from latent_agent.errors import ConfigError, DeviceError, DeviceTimeoutError

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route

T = TypeVar("T")

#: The system Chromium the browser runs (Debian's package, or the binary ``LATENT_AGENT_CHROMIUM`` names);
#: never a downloaded one.
CHROMIUM = Path(os.environ.get("LATENT_AGENT_CHROMIUM") or "/usr/bin/chromium")
INSTALL_CHROMIUM = "sudo apt-get install chromium"
#: Seconds a browser launch may take.
LAUNCH_TIMEOUT_S = 60.0
#: Seconds any other browser call may take.
CALL_TIMEOUT_S = 30.0


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


def _check_chromium(executable: Path) -> None:
    if not executable.is_file() and shutil.which(str(executable)) is None:
        raise ConfigError(f"MiniWoB++ needs Chromium at {executable}, which is missing; install it with "
                          f"`{INSTALL_CHROMIUM}`")


class BrowserHost:
    """Chromium under Playwright on a thread of its own; use :func:`acquire_page` rather than this directly.

    Args:
        executable: The Chromium binary.

    Raises:
        ConfigError: If the binary or Playwright is missing (one line naming the install command).
        DeviceError: If Chromium does not start.
    """

    def __init__(self, executable: Path = CHROMIUM) -> None:
        _check_chromium(executable)
        try:
            import playwright.async_api  # noqa: F401
        except ImportError:
            raise ConfigError("MiniWoB++ needs Playwright; pip install 'latent-agent[miniwob]'") from None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="miniwob-browser", daemon=True)
        self._thread.start()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        try:
            self.call(lambda: self._launch(executable), timeout=LAUNCH_TIMEOUT_S)
        except BaseException:
            self.close()
            raise

    async def _launch(self, executable: Path) -> None:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(executable_path=str(executable), headless=True)

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
        """A page in a context of its own, where only files under ``allowed`` may be loaded."""
        return self.call(lambda: self._new_page(shape, allowed))

    async def _new_page(self, shape: PageShape, allowed: Path) -> BrowserPage:
        assert self._browser is not None, "launched in __init__"
        context = await self._browser.new_context(viewport={"width": shape.width, "height": shape.height},
                                                  device_scale_factor=shape.scale)
        page = BrowserPage(self, context, await context.new_page(), shape)
        prefix = allowed.resolve().as_uri() + "/"

        async def route(request_route: Route) -> None:
            url = request_route.request.url
            if url.startswith(prefix):
                await request_route.continue_()
            else:
                page.blocked.append(url)
                await request_route.abort("blockedbyclient")

        await context.route("**/*", route)
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

    def __init__(self, host: BrowserHost, context: BrowserContext, page: Page, shape: PageShape) -> None:
        self._host = host
        self._context = context
        self._page = page
        self.shape = shape
        self.blocked: list[str] = []
        self.closed = False

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
        _release()


_lock = threading.Lock()
_host: BrowserHost | None = None
_pages = 0


def acquire_page(shape: PageShape, allowed: Path, executable: Path = CHROMIUM) -> BrowserPage:
    """A new page of the process's browser, launched for the first page (closed with the last).

    Raises:
        ConfigError: Chromium or Playwright is missing.
        DeviceError: The browser does not start.
    """
    global _host, _pages
    _check_chromium(executable)  # also when a browser is up already: the caller named this one
    with _lock:
        if _host is None:
            _host = BrowserHost(executable)
        _pages += 1
        host = _host
    try:
        return host.new_page(shape, allowed)
    except BaseException:
        _release()
        raise


def _release() -> None:
    global _host, _pages
    with _lock:
        _pages -= 1
        if _pages > 0 or _host is None:
            return
        host, _host = _host, None
    host.close()
