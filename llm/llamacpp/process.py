"""A llama.cpp server in a child process: started, waited for, shared, stopped.

The server runs in its own process (:mod:`.serve`) rather than in a thread of the command: stopping it is
then closing a pipe and, if need be, killing a process, and nothing of it survives the command. It is
started in a new session, so Ctrl-C at the terminal reaches the command alone, which stops the server
on its way out (the client's ``close``); a command killed outright closes the pipe, which ends the child.

Clients of the same model and options share one server (:func:`acquire`, :func:`release`, counted), so
a sweep's workers do not load the model once each; the last release stops it.

The server takes requests only with a key drawn for it when it starts (:attr:`LlamaCppServer.api_key`),
which its clients send: it listens on a loopback port that any user of the machine can reach.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO

from latent_agent.errors import ConfigError, LLMUnavailableError
from latent_agent.extras import require
from latent_agent.llm.llamacpp.options import ServerOptions
from latent_agent.llm.secrets import register_secret

log = logging.getLogger("latent_agent.llm")

#: How long a server may take to load its model and answer ``/health``.
START_TIMEOUT_S = 120.0
#: How long a server may take to exit once asked, before it is killed.
STOP_TIMEOUT_S = 10.0
_LOG_TAIL = 600
#: A llama.cpp error line: ``0.00.003.596 E gguf_init_from_reader: invalid magic characters ...``.
_ERROR_LINE = re.compile(r"^[\d.]+ E (?:\w{3,4}\s+)?")
#: How often a request waiting for a free slot looks again.
_SLOT_POLL_S = 0.02


class SlotGate:
    """Held by a request while it runs on the server: at most one request per slot, across every client
    and event loop that shares the server (a sweep's workers each run their own loop).

    A request beyond the slots would wait in the server's queue while its timeout runs; here it waits
    before its attempt starts, which the timeout does not count. The wait polls a thread-safe semaphore,
    so a cancelled waiter holds nothing.
    """

    def __init__(self, slots: int) -> None:
        self._free = threading.BoundedSemaphore(slots)

    async def __aenter__(self) -> SlotGate:
        while not self._free.acquire(blocking=False):
            await asyncio.sleep(_SLOT_POLL_S)
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        self._free.release()


@dataclass(eq=False)
class LlamaCppServer:
    """One running server (made by :meth:`start`).

    Attributes:
        model: The GGUF file it serves.
        options: How it runs.
        url: Its root URL, e.g. ``http://127.0.0.1:40123``.
        process: The child process.
        start_s: Seconds from launch until it answered ``/health``.
        api_key: The key every request must carry (drawn at start; a registered secret, never recorded).
        slots: Held by each request while it runs (:class:`SlotGate`, one permit per ``options.parallel``).
    """

    model: Path
    options: ServerOptions
    url: str
    process: subprocess.Popen[str]
    start_s: float
    api_key: str = field(repr=False)
    _log: IO[str] = field(repr=False)
    slots: SlotGate = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.slots = SlotGate(self.options.parallel)

    @classmethod
    def start(cls, model: Path, options: ServerOptions, *, timeout_s: float = START_TIMEOUT_S) -> LlamaCppServer:
        """Launch a server for ``model`` and wait until it answers.

        Raises:
            ConfigError: ``xllamacpp`` is not installed, or the server could not load the model.
            LLMUnavailableError: It did not answer within ``timeout_s``.
        """
        require("local", "--llm llamacpp", ("xllamacpp",))  # fails early, with the install command
        api_key = secrets.token_urlsafe(32)
        register_secret(api_key)
        config = {"model": str(model), "ctx": options.ctx, "threads": options.thread_count,
                  "gpu_layers": options.gpu_layers, "parallel": options.parallel, "api_key": api_key}
        # The server's own log goes to a file: shown in part when it fails, never mixed into the command's output.
        server_log = tempfile.TemporaryFile(  # noqa: SIM115 - closed by stop(), not at the end of this block
            mode="w+", encoding="utf-8", errors="replace", prefix="llamacpp-")
        began = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "latent_agent.llm.llamacpp.serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=server_log, text=True, start_new_session=True,
        )
        server = cls(model, options, "", process, 0.0, api_key, server_log)
        try:
            # On the pipe, not the command line: every local user can read a process's arguments.
            assert process.stdin is not None
            with contextlib.suppress(BrokenPipeError):  # a child that died already is reported from its log
                process.stdin.write(json.dumps(config) + "\n")
                process.stdin.flush()
            server.url = server._read_address(timeout_s)
            server._wait_healthy(began + timeout_s)
        except BaseException:
            server.stop()
            raise
        server.start_s = time.perf_counter() - began
        log.info("llama.cpp server for %s at %s (pid %d), ready in %.1f s", model.name, server.url, process.pid,
                 server.start_s)
        return server

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint (``URL/v1``)."""
        return f"{self.url}/v1"

    @property
    def running(self) -> bool:
        """Whether the child process is still alive."""
        return self.process.poll() is None

    def stop(self) -> None:
        """Stop the server: close its pipe, wait, kill it if it lingers (idempotent)."""
        process = self.process
        if process.poll() is None:
            try:
                if process.stdin is not None:
                    process.stdin.close()
                process.wait(timeout=STOP_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None and not stream.closed:
                stream.close()
        self._log.close()

    # -- internals ----------------------------------------------------------------------------

    def _tail(self) -> str:
        """Why the server failed, from its log: llama.cpp's first error line (the cause; later ones are its
        consequences), else the last line."""
        try:
            self._log.seek(0)
            text = self._log.read()
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        errors = [_ERROR_LINE.sub("", line) for line in lines if _ERROR_LINE.match(line)]
        return (errors[0] if errors else lines[-1] if lines else "")[-_LOG_TAIL:]

    def _read_address(self, timeout_s: float) -> str:
        """The address line the child writes once its server listens."""
        found: list[str] = []
        stdout = self.process.stdout
        assert stdout is not None
        reader = threading.Thread(target=lambda: found.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout_s)
        line = found[0].strip() if found else ""
        if not line.startswith("http://"):
            if found:
                # The child closed its stdout without an address: it is exiting. Its exit status can lag the
                # end of the pipe, so wait for it rather than reading a dying child as one still starting.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=10)
            if self.running:
                raise LLMUnavailableError(f"llama.cpp server for {self.model} did not start within {timeout_s:g} s",
                                          attempts=1)
            raise ConfigError(f"llama.cpp could not serve {self.model}: {self._tail() or 'no output'} "
                              f"(exit status {self.process.returncode})")
        return line

    def _wait_healthy(self, deadline: float) -> None:
        """Poll ``/health`` until it says ok (503 while the model loads)."""
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if not self.running:
                raise ConfigError(f"llama.cpp server for {self.model} exited (status {self.process.returncode}): "
                                  f"{self._tail() or 'no output'}")
            if time.perf_counter() > deadline:
                raise LLMUnavailableError(f"llama.cpp server at {self.url} did not answer /health in time",
                                          attempts=1)
            time.sleep(0.1)


# -- sharing ------------------------------------------------------------------------------------

_lock = threading.Lock()
_shared: dict[tuple[Path, ServerOptions], tuple[LlamaCppServer, int]] = {}


def acquire(model: Path, options: ServerOptions) -> LlamaCppServer:
    """The running server for ``model`` and ``options``, started if there is none (counted: :func:`release`).

    Raises:
        ConfigError, LLMUnavailableError: See :meth:`LlamaCppServer.start`.
    """
    key = (model.resolve(), options)
    with _lock:
        entry = _shared.get(key)
        if entry is not None and entry[0].running:
            _shared[key] = (entry[0], entry[1] + 1)
            return entry[0]
        server = LlamaCppServer.start(model, options)
        _shared[key] = (server, 1)
        return server


def release(server: LlamaCppServer) -> None:
    """Give back a server from :func:`acquire`; the last release stops it."""
    with _lock:
        for key, (held, count) in list(_shared.items()):
            if held is server:
                if count > 1:
                    _shared[key] = (held, count - 1)
                    return
                del _shared[key]
                break
    server.stop()


@atexit.register
def _stop_all() -> None:
    """Stop every server still held when the interpreter exits (a client nobody closed)."""
    with _lock:
        servers = [server for server, _ in _shared.values()]
        _shared.clear()
    for server in servers:
        server.stop()
