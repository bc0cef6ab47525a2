"""The HTTP machinery shared by the stand-in servers, and fault injection.

A stand-in is a small threaded HTTP/1.1 server on 127.0.0.1 (an ephemeral
port by default) that speaks one provider's REST shape and answers from a
:class:`~latent_agent.llm.scripted.ScriptedModel`. It runs in a background thread
of the test process; :meth:`StandInServer.stop` (or leaving its ``with``
block) shuts it down and wakes any request it is holding back.

Faults are injected per request, either from a scripted list (next request
gets the next fault) or at random with a seeded rate:

* ``rate_limit``: 429 with a ``Retry-After`` header,
* ``server_error``: 500,
* ``slow``: the answer is held back ``slow_s`` seconds (beyond a client's timeout),
* ``reset``: the TCP connection is reset without an answer,
* ``malformed``: 200 with a truncated JSON body.

The protocols carry only what a provider reads. A stand-in given a
:class:`~latent_agent.demo.standins.board.CallBoard` hands the scripted model each request with the
purpose and inputs its client posted there (:meth:`StandInServer.described`), in-process.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import socket
import struct
import threading
from abc import ABC, abstractmethod
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self

from latent_agent.demo.standins.board import CallBoard
from latent_agent.errors import ConfigError, LLMRequestError
from latent_agent.llm.images import Image
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest


class Fault(StrEnum):
    """A failure a stand-in can inject instead of a normal answer."""

    RATE_LIMIT = "rate_limit"
    SERVER_ERROR = "server_error"
    SLOW = "slow"
    RESET = "reset"
    MALFORMED = "malformed"


class FaultPlan:
    """Which requests get which fault (thread-safe).

    Args:
        script: Faults for the next requests in order (None: answer normally).
        rate: After the script, the probability that a request gets a random fault.
        kinds: The faults drawn at random.
        seed: Seeds the draw, so a run is reproducible.
    """

    def __init__(
        self,
        script: Iterable[Fault | None] = (),
        *,
        rate: float = 0.0,
        kinds: Iterable[Fault] = (Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.SLOW),
        seed: int = 0,
    ) -> None:
        self._lock = threading.Lock()
        self._script: deque[Fault | None] = deque(script)
        self.rate = rate
        self.kinds = tuple(kinds)
        self._rng = random.Random(seed)
        self.injected: Counter[Fault] = Counter()

    def add(self, *faults: Fault | None) -> None:
        """Queue faults for the next requests."""
        with self._lock:
            self._script.extend(faults)

    def next(self) -> Fault | None:
        with self._lock:
            if self._script:
                fault = self._script.popleft()
            elif self.rate > 0 and self.kinds and self._rng.random() < self.rate:
                fault = self._rng.choice(self.kinds)
            else:
                fault = None
            if fault is not None:
                self.injected[fault] += 1
            return fault


@dataclass(frozen=True, slots=True)
class SeenRequest:
    """A request a stand-in received (credentials are not kept).

    Attributes:
        method: HTTP method.
        path: Path and query.
        body: The decoded JSON body (None if it was not JSON).
        authorized: Whether it carried the expected key.
        fault: The fault injected in answer, if any.
    """

    method: str
    path: str
    body: Any
    authorized: bool
    fault: Fault | None


@dataclass(frozen=True, slots=True)
class Answer:
    """What a protocol handler wants sent back."""

    status: int
    payload: Any
    headers: tuple[tuple[str, str], ...] = ()


class StandInServer(ABC):
    """A local HTTP server speaking one provider's protocol.

    Args:
        model: Produces the answers.
        api_key: The key clients must present.
        faults: Fault injection plan (default: none).
        slow_s: How long a ``slow`` fault holds the answer back.
        retry_after_s: The ``Retry-After`` value sent with injected 429s (fractions allowed,
            so tests stay fast).
        delay_s: Simulated provider latency added to every normal answer.
        host: Interface to bind; loopback only.
        port: Port to bind; 0 picks a free one.
        board: Where its client side posts the requests in flight, so the scripted model is handed their
            purposes and inputs (None: it sees only what the protocol carries).
    """

    #: Protocol name, for messages.
    protocol: ClassVar[str] = "http"

    def __init__(
        self,
        model: ScriptedModel,
        *,
        api_key: str,
        faults: FaultPlan | None = None,
        slow_s: float = 5.0,
        retry_after_s: float = 0.01,
        delay_s: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        board: CallBoard | None = None,
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"stand-in servers bind to loopback only, not {host!r}")
        self.model = model
        self.api_key = api_key
        self.faults = faults or FaultPlan()
        self.slow_s = slow_s
        self.retry_after_s = retry_after_s
        self.delay_s = delay_s
        self._host = host
        self._port = port
        self.board = board
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._seen: list[SeenRequest] = []
        self._images = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind and serve in a daemon thread; returns self.

        Raises:
            ConfigError: If the address cannot be bound (port in use, not allowed).
        """
        if self._httpd is not None:
            return self
        handler = _make_handler(self)
        try:
            httpd = _Server((self._host, self._port), handler)
        except OSError as exc:
            raise ConfigError(
                f"{self.protocol} stand-in cannot listen on {self._host}:{self._port}: {exc.strerror or exc}"
            ) from None
        httpd.daemon_threads = True
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=f"standin-{self.protocol}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake held-back requests and close the socket."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("stand-in server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Root URL, e.g. ``http://127.0.0.1:40123``."""
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What to give the protocol's SDK as its base URL (the root, unless the protocol adds a path)."""
        return self.url

    @property
    def seen(self) -> tuple[SeenRequest, ...]:
        """Every request received so far."""
        with self._lock:
            return tuple(self._seen)

    @property
    def images_received(self) -> int:
        """Images in the well-formed requests answered so far."""
        with self._lock:
            return self._images

    def described(self, request: GenerationRequest) -> GenerationRequest:
        """``request`` as parsed from the wire, with the purpose and inputs its client posted on :attr:`board`."""
        return request if self.board is None else self.board.described(request)

    def count_images(self, request: GenerationRequest) -> None:
        """Add ``request``'s images to :attr:`images_received` (protocol handlers call it)."""
        with self._lock:
            self._images += len(request.image_infos())

    # -- protocol hooks ----------------------------------------------------------------------

    @abstractmethod
    def authorized(self, path: str, headers: dict[str, str]) -> bool:
        """Whether the request carries :attr:`api_key` the way the protocol expects."""

    @abstractmethod
    def respond(self, path: str, body: Any, authorized: bool) -> Answer:
        """The answer to a well-formed request."""

    @abstractmethod
    def error(self, status: int, message: str) -> Any:
        """The protocol's JSON error body for ``status``."""

    @abstractmethod
    def malformed(self) -> bytes:
        """A truncated JSON body (sent with status 200)."""

    # -- request handling ------------------------------------------------------------------

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in h.headers.items()}
        authorized = self.authorized(h.path, headers)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        fault = self.faults.next() if authorized else None
        with self._lock:
            self._seen.append(SeenRequest(h.command, h.path, body, authorized, fault))
        if fault is Fault.RESET:
            _reset(h)
            return
        if fault is Fault.SLOW and self._stopping.wait(self.slow_s):
            _reset(h)
            return
        if fault is Fault.RATE_LIMIT:
            answer = Answer(
                429, self.error(429, "Resource has been exhausted (rate limit)."),
                (("Retry-After", f"{self.retry_after_s:g}"),),
            )
        elif fault is Fault.SERVER_ERROR:
            answer = Answer(500, self.error(500, "An internal error has occurred."))
        elif fault is Fault.MALFORMED:
            _send(h, 200, self.malformed())
            return
        elif body is None and h.command == "POST":
            answer = Answer(400, self.error(400, "Invalid JSON payload received."))
        else:
            if self.delay_s > 0 and self._stopping.wait(self.delay_s):
                _reset(h)
                return
            answer = self.respond(h.path.split("?", 1)[0], body, authorized)
        _send(h, answer.status, json.dumps(answer.payload).encode("utf-8"), answer.headers)


def _send(
    h: BaseHTTPRequestHandler, status: int, data: bytes, headers: Iterable[tuple[str, str]] = ()
) -> None:
    try:
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=UTF-8")
        h.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            h.send_header(name, value)
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()
    except OSError:
        # The client gave up (its timeout fired during a slow answer); nothing to tell it.
        h.close_connection = True


def _reset(h: BaseHTTPRequestHandler) -> None:
    """Drop the connection with a TCP RST (SO_LINGER 0), as a crashed proxy would."""
    h.close_connection = True
    try:
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.connection.close()
    except OSError:
        pass


def inline_image(data: object, mime: object) -> Image:
    """The image a request carries inline as base64 ``data`` of type ``mime``, checked as a provider would.

    Raises:
        LLMRequestError: ``data`` is not base64, or its bytes are not a ``mime`` image.
    """
    if not isinstance(data, str) or not isinstance(mime, str):
        raise LLMRequestError("an inline image needs base64 data and a MIME type")
    try:
        # Protobuf JSON accepts standard and URL-safe base64 (google-genai sends the latter).
        raw = base64.b64decode(data.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise LLMRequestError(f"inline {mime} image: data is not valid base64") from None
    return Image(raw, mime)


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops connections when a test fires dozens of calls at once.
    request_queue_size = 128
    daemon_threads = True


def _make_handler(server: StandInServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes; with Nagle on, the client's delayed
        # ACK adds ~40 ms to every answer.
        disable_nagle_algorithm = True
        server_version = f"latent-agent-standin-{server.protocol}"

        def do_POST(self) -> None:
            server._serve(self)

        def do_GET(self) -> None:
            server._serve(self)

        def log_message(self, format: str, *args: Any) -> None:
            # Silent: test output stays clean, and nothing request-derived is logged.
            return

    return Handler
