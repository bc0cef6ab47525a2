"""Replay cassettes: every call recorded to JSONL, answered again without a network.

A cassette is a JSONL file. Its first line is a header
``{"schema": "latent-agent/llm-cassette", "version": 1}``; each further line
is one call: its key (SHA-256 of the model and the canonical request), the
model, the request and the completion. Secrets are masked before a line is
written (:func:`latent_agent.llm.secrets.redact`).

Record mode: give any client ``recorder=Cassette(path)``. Replay mode:
:class:`ReplayClient` answers from the cassette; the k-th time a request
comes up it gets the k-th recorded answer, and a request with no recorded
answer left raises :class:`ReplayMissError`.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latent_agent.atomic_write import open_append
from latent_agent.errors import ConfigError, LLMError, ReplayMissError
from latent_agent.json_lines import record_lines
from latent_agent.llm.base import LLMClient
from latent_agent.llm.secrets import redact
from latent_agent.llm.types import Completion, GenerationRequest

CASSETTE_SCHEMA = "latent-agent/llm-cassette"
CASSETTE_VERSION = 1


def cache_key(model: str, request: GenerationRequest) -> str:
    """The cassette key of ``request`` sent to ``model``."""
    text = f"{model}\n{request.canonical()}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CassetteEntry:
    """One recorded call."""

    key: str
    model: str
    request: GenerationRequest
    completion: Completion


#: One append lock per cassette file, shared by every :class:`Cassette` of the process: a sweep's
#: workers each open their own client (and cassette), and only one of them may write the header.
_APPEND_LOCKS: dict[Path, threading.Lock] = {}
_APPEND_LOCKS_GUARD = threading.Lock()


def _append_lock(path: Path) -> threading.Lock:
    with _APPEND_LOCKS_GUARD:
        return _APPEND_LOCKS.setdefault(path.resolve(), threading.Lock())


class Cassette:
    """A JSONL cassette file; appends are thread-safe, also across instances naming the same file.

    Args:
        path: The file. Recording creates it (and its folder) and appends to it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = _append_lock(self.path)

    def append(self, model: str, request: GenerationRequest, completion: Completion) -> None:
        """Record one call."""
        line = {
            "key": cache_key(model, request),
            "model": model,
            # The inputs are rendered into the prompt already; the purpose says what the call was for.
            "request": request.to_json(inputs=False),
            "completion": completion.to_json(),
        }
        text = redact(json.dumps(line, ensure_ascii=False, sort_keys=True))
        with self._lock:
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            if fresh:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # Never through a link: one planted where the cassette goes would take the calls elsewhere.
            with os.fdopen(open_append(self.path), "a", encoding="utf-8") as fh:
                if fresh:
                    fh.write(json.dumps({"schema": CASSETTE_SCHEMA, "version": CASSETTE_VERSION}) + "\n")
                fh.write(text + "\n")

    def entries(self) -> list[CassetteEntry]:
        """Every recorded call, in file order.

        Raises:
            ConfigError: The file is missing, has no cassette header, or a line is malformed.
        """
        try:
            lines = record_lines(self.path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cassette {self.path}: {exc.strerror or exc}") from exc
        if not lines:
            raise ConfigError(f"cassette {self.path}: empty file")
        try:
            header = json.loads(lines[0])
        except ValueError as exc:
            raise ConfigError(f"cassette {self.path}:1: not JSON ({exc})") from exc
        if not isinstance(header, dict) or header.get("schema") != CASSETTE_SCHEMA:
            raise ConfigError(
                f"cassette {self.path}:1: not a cassette header (expected schema {CASSETTE_SCHEMA})"
            )
        if header.get("version") != CASSETTE_VERSION:
            raise ConfigError(f"cassette {self.path}: version {header.get('version')} is not supported")
        out: list[CassetteEntry] = []
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                data: Any = json.loads(line)
                out.append(
                    CassetteEntry(
                        key=str(data["key"]),
                        model=str(data["model"]),
                        request=GenerationRequest.from_json(data["request"]),
                        completion=Completion.from_json(data["completion"], cached=True),
                    )
                )
            except (ValueError, KeyError, TypeError, LLMError) as exc:
                raise ConfigError(f"cassette {self.path}:{number}: malformed entry ({exc})") from exc
        return out


class ReplayClient(LLMClient):
    """Answers from a cassette; never touches the network.

    Args:
        cassette: The cassette (or its path).
        model: The model whose calls to replay; None when the cassette holds one model.
        **client_kwargs: Passed to :class:`LLMClient` (budget, accountant).

    Raises:
        ConfigError: The cassette is unreadable, or holds several models and none was named.
    """

    provider = "replay"

    def __init__(
        self, cassette: Cassette | str | Path, *, model: str | None = None, **client_kwargs: Any
    ) -> None:
        self.cassette = cassette if isinstance(cassette, Cassette) else Cassette(cassette)
        entries = self.cassette.entries()
        models = sorted({e.model for e in entries})
        if model is None:
            if len(models) != 1:
                raise ConfigError(
                    f"cassette {self.cassette.path} holds models {models}; name one as "
                    f"replay:{self.cassette.path}@MODEL"
                )
            model = models[0]
        super().__init__(model, **client_kwargs)
        self._answers: dict[str, list[Completion]] = {}
        for e in entries:
            if e.model == model:
                self._answers.setdefault(e.key, []).append(e.completion)
        self._used: Counter[str] = Counter()
        self._lock = threading.Lock()

    async def _complete(self, request: GenerationRequest, start: float) -> Completion:
        key = cache_key(self.model, request)
        with self._lock:
            recorded = self._answers.get(key, [])
            index = self._used[key]
            if index >= len(recorded):
                shown = (request.prompt or request.chat()[-1].text)[:60]
                raise ReplayMissError(
                    f"cassette {self.cassette.path} has "
                    + (f"only {len(recorded)} answer(s) for" if recorded else "no answer for")
                    + f" this request to {self.model} (key {key[:12]}, n={request.n}, "
                    f"temperature={request.temperature:g}, last message {shown!r})"
                )
            self._used[key] += 1
        return recorded[index]
