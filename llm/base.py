"""The one interface every LLM backend implements.

``await client.generate(request)`` returns a :class:`Completion`. The base
class does everything that is not provider-specific: budget admission,
concurrency limit, retries with backoff, fanning ``n`` samples out over
parallel calls when the provider cannot return them in one, the safety-block
check, and accounting. A backend only implements :meth:`LLMClient._call`, one
attempt at one provider request.

A request may carry the shape its answer is to be held to (:mod:`latent_agent.shapes`). A backend says how its
API takes it (:meth:`ProviderClient.shape_delivery`: a JSON schema, a GBNF grammar or a regular expression, each
in its API's own field) or why it sends none; the answer records which (``Completion.shape`` and
``shape_note``). A server that refuses the field (HTTP 400 naming it: :class:`ShapeRefused`) is asked again
without it, and is sent no shape of that kind from then on; the answer records the refusal.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from latent_agent.errors import LLMError, LLMRetriesExhaustedError, LLMSafetyBlockError
from latent_agent.llm.accounting import Accountant
from latent_agent.llm.budget import Budget
from latent_agent.llm.capabilities import check_images
from latent_agent.llm.discovery import ServerProfile
from latent_agent.llm.retry import RetryPolicy, call_with_retries
from latent_agent.llm.types import Completion, FinishReason, GenerationRequest, ProviderAnswer, ShapeSent, Usage
from latent_agent.shapes import AnswerShape, ShapeKind

if TYPE_CHECKING:
    from latent_agent.llm.replay import Cassette

T = TypeVar("T")
log = logging.getLogger("latent_agent.llm")


class NSamplesRejected(Exception):
    """Raised by a backend when the server refuses a request for several samples at once.

    The base class then remembers that the model needs one call per sample.
    """


class ShapeRefused(Exception):
    """Raised by a backend when the server refuses the field that carries the request's shape.

    The base class then asks again without the shape, and sends none of that kind to the server from then on.
    """


@dataclass(frozen=True, slots=True)
class ShapeDelivery:
    """How a client sends one shape.

    Attributes:
        sent: What it is sent as (``json_schema``, ``grammar``, ``regex``), or None: it is not sent.
        field: The request field that carries it (``response_format``, ``grammar``, ``response_schema``...).
        note: Why it is not sent, in words (None when it is).
    """

    sent: ShapeSent | None
    field: str | None = None
    note: str | None = None


class LLMClient(ABC):
    """An LLM that answers :class:`GenerationRequest` s: budget, accounting and recording.

    Backends that talk to a provider derive from :class:`ProviderClient`; the
    replay client derives from this class directly.

    Args:
        model: Model name as the provider knows it.
        max_concurrency: Most provider requests in flight at once for this client.
        retry: Retry, backoff and timeout policy.
        budget: Shared run budget, or None for no limit.
        accountant: Records every call, or None.
        max_native_n: Most samples one provider request may ask for (1: parallel calls).
        seed: Seeds the backoff jitter (None: unseeded).
        sleep: Awaitable sleep used for backoff (tests pass a fast one).
        recorder: Cassette every successful call is appended to (record mode), or None.
        output_ceiling: The most output tokens any call may ask for (``--llm-max-output``): every
            call kind's own cap is lowered to it, never raised (None: the call kinds' caps).
        structured: Whether calls ask for their answers' shapes (``--llm-structured on``): the caller then puts
            each call kind's shape in its request (:mod:`latent_agent.shapes`), and the client sends it as its
            API takes one.
    """

    #: Provider name used in messages and specs (``gemini``, ``openai``, ...).
    provider: ClassVar[str] = "llm"

    def __init__(
        self,
        model: str,
        *,
        max_concurrency: int = 8,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
        accountant: Accountant | None = None,
        max_native_n: int = 1,
        seed: int | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        recorder: Cassette | None = None,
        output_ceiling: int | None = None,
        structured: bool = False,
    ) -> None:
        if max_concurrency < 1:
            raise LLMError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if output_ceiling is not None and output_ceiling < 1:
            raise LLMError(f"output_ceiling must be >= 1, got {output_ceiling}")
        self.output_ceiling = output_ceiling
        self.structured = structured
        # Why no shape of a kind is sent any more: the server refused one (by kind).
        self._refused_shapes: dict[ShapeKind, str] = {}
        self.model = model
        self.max_concurrency = max_concurrency
        self.retry = retry or RetryPolicy()
        self.budget = budget
        self.accountant = accountant
        self.max_native_n = max(1, max_native_n)
        self._rng = random.Random(seed)
        self._sleep = sleep
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        self._runner: asyncio.Runner | None = None
        self.recorder = recorder

    @property
    def name(self) -> str:
        """``provider model``, for messages."""
        return f"{self.provider} {self.model}"

    # -- the interface -------------------------------------------------------------------

    async def generate(self, request: GenerationRequest) -> Completion:
        """Ask the model.

        Returns:
            ``request.n`` samples with their finish reasons, usage, latency and retries.

        Raises:
            LLMBudgetExceededError: The run's budget is spent (nothing was sent).
            LLMAuthError, LLMRequestError, LLMSafetyBlockError, LLMEmptyResponseError,
            LLMResponseError, LLMRateLimitError, LLMUnavailableError, LLMTimeoutError,
            ReplayMissError: See :mod:`latent_agent.errors`.
        """
        check_images(self.provider, self.model, request)  # before the budget: nothing is sent
        if self.budget is not None:
            self.budget.admit(self.name)
        start = time.perf_counter()
        retries = 0
        try:
            completion = await self._complete(request, start)
        except LLMError as exc:
            if isinstance(exc, LLMRetriesExhaustedError):
                retries += exc.attempts - 1
            if self.accountant is not None:
                self.accountant.record(
                    client_model=self.model,
                    request=request,
                    completion=None,
                    error=exc,
                    latency_s=time.perf_counter() - start,
                    retries=retries,
                )
            raise
        if self.budget is not None:
            self.budget.charge(completion.usage.total_tokens)
        if self.recorder is not None and not completion.cached:
            self.recorder.append(self.model, request, completion)
        if self.accountant is not None:
            self.accountant.record(
                client_model=self.model,
                request=request,
                completion=completion,
                error=None,
                latency_s=completion.latency_s,
                retries=completion.retries,
            )
        log.debug(
            "%s: %d sample(s), %d tokens, %.3f s, %d retries",
            self.name,
            len(completion.texts),
            completion.usage.total_tokens,
            completion.latency_s,
            completion.retries,
        )
        return completion

    async def discover(self) -> ServerProfile | None:
        """What the server behind this client says about itself (window, ``n``, images), asked once.

        None for a client with nothing to ask (a cloud API, a replay, a script); see
        :mod:`latent_agent.llm.discovery`.
        """
        return None

    def generate_sync(self, request: GenerationRequest) -> Completion:
        """Blocking :meth:`generate`, for scripts. Not for use inside a running event loop.

        All sync calls of one client share one event loop, so the SDKs' connection
        pools are reused between calls.
        """
        return self.run_sync(self.generate(request))

    def run_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this client's private event loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            coro.close()
            raise RuntimeError("generate_sync() called inside a running event loop; await generate()")
        if self._runner is None:
            self._runner = asyncio.Runner()
        # The caller's context, so accounting scopes set around the call apply inside it.
        return self._runner.run(coro, context=contextvars.copy_context())

    async def aclose(self) -> None:
        """Release the backend's connections (the client stays usable; it reconnects).

        SDK connection pools belong to the event loop that made them: await this before
        that loop ends (``asyncio.run`` per call without it leaves pools to the GC).
        """
        await self._aclose_backend()

    def close(self) -> None:
        """Release connections and the private event loop of :meth:`generate_sync`."""
        if self._runner is not None:
            self._runner.run(self._aclose_backend())
            self._runner.close()
            self._runner = None

    # -- for backends ------------------------------------------------------------------

    @abstractmethod
    async def _complete(self, request: GenerationRequest, start: float) -> Completion:
        """Answer ``request``; ``start`` is the ``perf_counter`` time the call began."""

    async def _aclose_backend(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Close network resources; backends with connections override this."""


class ProviderClient(LLMClient):
    """A client that talks to a provider: retries, concurrency limit, ``n`` fan-out and the answer's shape.

    Subclasses implement :meth:`_call`, one attempt at one provider request, and :meth:`shape_delivery` when their
    API takes shapes (the request :meth:`_call` gets carries its shape only when it is to be sent).
    """

    def shape_delivery(self, shape: AnswerShape) -> ShapeDelivery:
        """How this client's API takes ``shape`` (the base: it takes none)."""
        return ShapeDelivery(None, note=f"the {self.provider} API has no field for an answer's shape")

    def _delivery(self, shape: AnswerShape) -> ShapeDelivery:
        refused = self._refused_shapes.get(shape.kind)
        return ShapeDelivery(None, note=refused) if refused is not None else self.shape_delivery(shape)

    async def _complete(self, request: GenerationRequest, start: float) -> Completion:
        self._prepare()
        delivery = self._delivery(request.shape) if request.shape is not None else None
        outgoing = request if delivery is None or delivery.sent else replace(request, shape=None)
        try:
            answers, retries = await self._samples(outgoing)
        except ShapeRefused as refusal:
            assert request.shape is not None and delivery is not None, "only a shape that was sent is refused"
            note = (f"{self.name} refused the {delivery.sent} in {delivery.field!r} ({refusal}); its "
                    f"{request.shape.kind} shapes are not sent from then on")
            log.warning("%s", note)
            self._refused_shapes[request.shape.kind] = note
            answers, retries = await self._samples(replace(request, shape=None))
            delivery = ShapeDelivery(None, note=note)
        completion = self._merge(answers, retries, time.perf_counter() - start, request.n)
        if delivery is None:
            return completion
        return replace(completion, shape=delivery.sent, shape_note=delivery.note)

    def _prepare(self) -> None:
        """Import the SDK and build its client, outside the timed attempts.

        A first import of an SDK can take longer than a short timeout; it must not
        count as a provider timeout.
        """

    @abstractmethod
    async def _call(self, request: GenerationRequest) -> ProviderAnswer:
        """One attempt at one provider request for ``request.n`` samples.

        Raises:
            TransientFailure: The attempt failed in a way worth retrying.
            NSamplesRejected: The server refused ``n > 1``.
            LLMError: Any failure retrying will not fix.
        """

    # -- internals -----------------------------------------------------------------------

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.Semaphore(self.max_concurrency))
        return self._gate[1]

    async def _attempts(self, request: GenerationRequest) -> tuple[ProviderAnswer, int]:
        return await call_with_retries(
            lambda: self._call(request),
            self.retry,
            what=self.name,
            rng=self._rng,
            sleep=self._sleep,
            gate=self._semaphore(),
        )

    async def _samples(self, request: GenerationRequest) -> tuple[list[ProviderAnswer], int]:
        """Get ``request.n`` samples in as few round trips as the provider allows."""
        answers: list[ProviderAnswer] = []
        retries = 0
        chunk = min(request.n, self.max_native_n)
        sizes = [chunk] * (request.n // chunk) + ([request.n % chunk] if request.n % chunk else [])
        try:
            results = await _all([self._attempts(request.with_n(k)) for k in sizes])
        except NSamplesRejected:
            log.info("%s: server refused n > 1; using one call per sample from now on", self.name)
            self.max_native_n = 1
            results = []
        for answer, r in results:
            answers.append(answer)
            retries += r
        got = sum(len(a.texts) for a in answers)
        if got < request.n:
            if results:
                log.info("%s: asked %d samples, got %d; one call per sample from now on",
                         self.name, request.n, got)
                self.max_native_n = 1
            single = request.with_n(1)
            for answer, r in await _all([self._attempts(single) for _ in range(request.n - got)]):
                answers.append(answer)
                retries += r
        return answers, retries

    def _merge(self, answers: list[ProviderAnswer], retries: int, latency_s: float, n: int) -> Completion:
        texts: list[str] = []
        reasons: list[FinishReason] = []
        usage = Usage()
        for a in answers:
            texts.extend(a.texts)
            reasons.extend(a.finish_reasons)
            usage = usage + a.usage
        if reasons and all(r == "safety" for r in reasons):
            raise LLMSafetyBlockError(
                f"{self.name}: every sample was blocked for safety ({len(reasons)} of {len(reasons)}); "
                "rephrase the prompt"
            )
        return Completion(
            texts=tuple(texts[:n]),
            finish_reasons=tuple(reasons[:n]),
            usage=usage,
            latency_s=latency_s,
            model=answers[0].model if answers else self.model,
            retries=retries,
            provider_calls=len(answers),
        )


async def _all(coros: list[Coroutine[Any, Any, T]]) -> list[T]:
    """Run ``coros`` concurrently; on the first failure cancel the rest and raise it."""
    if len(coros) == 1:
        return [await coros[0]]
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(c) for c in coros]
    except BaseExceptionGroup as group_error:
        raise _first(group_error) from None
    return [t.result() for t in tasks]


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


class SdkClient(ProviderClient):
    """A provider client through an SDK whose async HTTP pool belongs to one event loop.

    The SDK client is built per running loop (:meth:`generate_sync` runs a private loop; a sweep
    worker runs its own), before the timed attempts (:meth:`_prepare`), and closed with the client.
    Subclasses implement :meth:`_new_sdk` and :meth:`_close_sdk`.
    """

    _sdk: tuple[asyncio.AbstractEventLoop, Any] | None = None

    def _prepare(self) -> None:
        self._client()

    def _client(self) -> Any:
        """The SDK client of the running loop."""
        loop = asyncio.get_running_loop()
        if self._sdk is None or self._sdk[0] is not loop:
            self._sdk = (loop, self._new_sdk())
        return self._sdk[1]

    @abstractmethod
    def _new_sdk(self) -> Any:
        """A new SDK client (called inside the loop it will serve)."""

    @abstractmethod
    async def _close_sdk(self, client: Any, *, same_loop: bool) -> None:
        """Close ``client``; ``same_loop`` says whether it was built in the running loop (only then
        may its async pool be awaited)."""

    async def _aclose_backend(self) -> None:
        if self._sdk is not None:
            loop, client = self._sdk
            self._sdk = None
            await self._close_sdk(client, same_loop=loop is asyncio.get_running_loop())
