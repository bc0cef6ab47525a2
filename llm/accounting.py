"""Accounting of LLM calls: one record per call, totals per step and episode, cost.

The agent marks where calls belong with :func:`scope`::

    with scope(episode="ep-3", step=7):
        completion = await client.generate(request)

and every client with an :class:`Accountant` records the call (prompt,
answer or error, tokens, latency, retries) under that episode and step. The
scope lives in a context variable, so concurrent tasks each keep their own.

Images are counted three ways: how many were sent, their encoded bytes (what went over the
wire), and their tokens (``Usage.image_tokens``, part of the prompt tokens: the provider's figure
or the published rule's estimate). Both Gemini and OpenAI bill image tokens at the model's input
rate, so a call's cost prices them with the rest of its prompt.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import threading
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from latent_agent.errors import ConfigError
from latent_agent.llm.secrets import redact
from latent_agent.llm.types import Completion, GenerationRequest, Usage

CALL_LOG_SCHEMA = "latent-agent/llm-calls"
CALL_LOG_VERSION = 1
PRICES_SCHEMA = "latent-agent/llm-prices"


@dataclass(frozen=True, slots=True)
class CallScope:
    """Where a call belongs in a run."""

    episode: str | None = None
    step: int | None = None


_scope: ContextVar[CallScope] = ContextVar("llm_call_scope", default=CallScope())  # noqa: B039


@contextlib.contextmanager
def scope(*, episode: str | None = None, step: int | None = None) -> Iterator[CallScope]:
    """Attribute the calls made inside the block to ``episode`` / ``step``.

    An argument left as None keeps the value of the enclosing scope.
    """
    outer = _scope.get()
    inner = CallScope(
        episode=episode if episode is not None else outer.episode,
        step=step if step is not None else outer.step,
    )
    token = _scope.set(inner)
    try:
        yield inner
    finally:
        _scope.reset(token)


def current_scope() -> CallScope:
    return _scope.get()


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens.

    Attributes:
        pattern: fnmatch pattern of the model names the price applies to.
        input_per_mtok: Price of a million prompt tokens.
        output_per_mtok: Price of a million output tokens.
    """

    pattern: str
    input_per_mtok: float
    output_per_mtok: float


class PriceTable:
    """Model prices; the first entry whose pattern matches the model name wins."""

    def __init__(self, prices: tuple[Price, ...], *, as_of: str = "") -> None:
        self.prices = prices
        self.as_of = as_of

    @classmethod
    def load(cls, path: str | Path | None = None) -> PriceTable:
        """Read a price table (default: the one shipped in ``llm/prices.json``).

        Raises:
            ConfigError: The file is missing or not a price table.
        """
        try:
            if path is None:
                text = resources.files("latent_agent.llm").joinpath("prices.json").read_text(encoding="utf-8")
            else:
                text = Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
            if data.get("schema") != PRICES_SCHEMA or data.get("version") != 1:
                raise ValueError(f"expected schema {PRICES_SCHEMA} version 1")
            prices = tuple(
                Price(str(p["pattern"]), float(p["input_per_mtok"]), float(p["output_per_mtok"]))
                for p in data["prices"]
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"price table {path or 'prices.json'}: {exc}") from exc
        return cls(prices, as_of=str(data.get("as_of", "")))

    def lookup(self, model: str) -> Price | None:
        name = model.removeprefix("models/")
        for price in self.prices:
            if fnmatch.fnmatchcase(name, price.pattern):
                return price
        return None

    def cost(self, model: str, usage: Usage) -> float | None:
        """Estimated cost in US dollars, or None when the model has no price entry."""
        price = self.lookup(model)
        if price is None:
            return None
        # Thinking tokens are billed as output; total - prompt covers them.
        output = max(usage.output_tokens, usage.total_tokens - usage.prompt_tokens)
        return (usage.prompt_tokens * price.input_per_mtok + output * price.output_per_mtok) / 1e6


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One ``generate`` call as the trajectory keeps it.

    Attributes:
        call_id: Position of the call in the run (0-based).
        episode: Episode the call belongs to, if the agent said.
        step: Step the call belongs to, if the agent said.
        client_model: The model the client was asked to use.
        request: What was asked.
        completion: The answer, or None when the call failed.
        error_type: Class name of the typed error when the call failed.
        error_message: Its message.
        latency_s: Wall time of the call.
        retries: Retries it took (also on failure).
        usage: Tokens used (zero on failure: failed calls report none).
        cost_usd: Estimated cost, None when the model has no price.
    """

    call_id: int
    episode: str | None
    step: int | None
    client_model: str
    request: GenerationRequest
    completion: Completion | None
    error_type: str | None
    error_message: str | None
    latency_s: float
    retries: int
    usage: Usage
    cost_usd: float | None

    @property
    def ok(self) -> bool:
        return self.completion is not None

    @property
    def images(self) -> int:
        """Images the request carried."""
        return len(self.request.image_infos())

    @property
    def image_bytes(self) -> int:
        """Encoded bytes of those images."""
        return sum(i.size_bytes for i in self.request.image_infos())

    def to_json(self) -> dict[str, object]:
        return {
            "call_id": self.call_id,
            "episode": self.episode,
            "step": self.step,
            "client_model": self.client_model,
            "request": self.request.to_json(inputs=False),  # they are in the prompt already
            "completion": None if self.completion is None else self.completion.to_json(),
            "error_type": self.error_type,
            "error_message": self.error_message,
            "latency_s": self.latency_s,
            "retries": self.retries,
            "usage": self.usage.to_json(),
            "cost_usd": self.cost_usd,
            **({"images": self.images, "image_bytes": self.image_bytes} if self.images else {}),
        }


@dataclass(frozen=True, slots=True)
class Totals:
    """Sums over a set of calls.

    Attributes:
        calls: Calls made.
        failures: Calls that ended in an error.
        usage: Tokens summed.
        latency_s: Latency summed (not wall time: concurrent calls overlap).
        retries: Retries summed.
        cost_usd: Estimated cost of the priced calls.
        unpriced_calls: Calls whose model has no price (their cost is not in ``cost_usd``).
        images: Images sent (failed calls included: they were sent too).
        image_bytes: Their encoded bytes.
    """

    calls: int = 0
    failures: int = 0
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    retries: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    images: int = 0
    image_bytes: int = 0

    @property
    def image_tokens(self) -> int:
        """Prompt tokens the images took (answered calls; failed calls report no tokens)."""
        return self.usage.image_tokens


class Accountant:
    """Collects a :class:`CallRecord` per call; safe across threads and tasks.

    Args:
        prices: Price table for cost estimates (None: no costs).
        log_path: If given, every record is also appended to this JSONL file
            (first line: a schema header) as soon as the call ends, with secrets masked.
    """

    def __init__(self, *, prices: PriceTable | None = None, log_path: str | Path | None = None) -> None:
        self.prices = prices
        self.log_path = Path(log_path) if log_path is not None else None
        self._lock = threading.Lock()
        self._records: list[CallRecord] = []
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            header = {"schema": CALL_LOG_SCHEMA, "version": CALL_LOG_VERSION}
            self.log_path.write_text(json.dumps(header) + "\n", encoding="utf-8")

    def record(
        self,
        *,
        client_model: str,
        request: GenerationRequest,
        completion: Completion | None,
        error: BaseException | None,
        latency_s: float,
        retries: int,
    ) -> CallRecord:
        """Add one call; returns its record."""
        where = current_scope()
        usage = completion.usage if completion is not None else Usage()
        model = completion.model if completion is not None else client_model
        cost = self.prices.cost(model, usage) if self.prices is not None and completion is not None else None
        with self._lock:
            rec = CallRecord(
                call_id=len(self._records),
                episode=where.episode,
                step=where.step,
                client_model=client_model,
                request=request,
                completion=completion,
                error_type=type(error).__name__ if error is not None else None,
                error_message=redact(str(error)) if error is not None else None,
                latency_s=latency_s,
                retries=retries,
                usage=usage,
                cost_usd=cost,
            )
            self._records.append(rec)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(redact(json.dumps(rec.to_json(), ensure_ascii=False)) + "\n")
        return rec

    def records(self) -> tuple[CallRecord, ...]:
        with self._lock:
            return tuple(self._records)

    def totals(self, *, episode: str | None = None, step: int | None = None) -> Totals:
        """Totals over the calls of ``episode`` (and ``step``); no argument: the whole run."""
        return _sum(
            r
            for r in self.records()
            if (episode is None or r.episode == episode) and (step is None or r.step == step)
        )

    def per_episode(self) -> dict[str | None, Totals]:
        """Totals of each episode; None: calls outside episodes."""
        recs = self.records()
        episodes = sorted({r.episode for r in recs}, key=lambda e: (e is None, e or ""))
        return {e: _sum(r for r in recs if r.episode == e) for e in episodes}


def _sum(records: Iterable[CallRecord]) -> Totals:
    recs = list(records)
    usage = Usage()
    for r in recs:
        usage = usage + r.usage
    return Totals(
        calls=len(recs),
        failures=sum(1 for r in recs if not r.ok),
        usage=usage,
        latency_s=sum(r.latency_s for r in recs),
        retries=sum(r.retries for r in recs),
        cost_usd=sum(r.cost_usd for r in recs if r.cost_usd is not None),
        unpriced_calls=sum(1 for r in recs if r.ok and r.cost_usd is None),
        images=sum(r.images for r in recs),
        image_bytes=sum(r.image_bytes for r in recs),
    )
