"""The calls in flight, shared in-process between a stand-in's client side and its server.

A stand-in answers from what a call is for and the values its prompt was rendered from, not from the
prompt's wording, yet a real SDK sends only what a provider reads. So the side that asks through the
SDK posts each request on a :class:`CallBoard` while it is in flight, and the stand-in server, running
in a thread of the same process, reads the posted request back by the conversation it received. Nothing
of this crosses the wire: the real clients send exactly what they send to a provider.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from latent_agent.llm.types import GenerationRequest

#: What a request says, as a provider receives it: the system text, then each other turn's role, text and
#: images (by their SHA-256).
Conversation = tuple[str, tuple[tuple[str, str, tuple[str, ...]], ...]]


def conversation(request: GenerationRequest) -> Conversation:
    """``request``'s conversation as both protocols carry it (Gemini sends the system turns as one text)."""
    chat = request.chat()
    system = "\n\n".join(m.text for m in chat if m.role == "system")
    return system, tuple((m.role, m.text, tuple(i.sha256 for i in m.image_infos())) for m in chat
                         if m.role != "system")


class CallBoard:
    """The requests in flight, by conversation (thread-safe).

    Two requests in flight with the same conversation were rendered from the same template and values,
    so either one describes the other; a request is kept until its last poster is done with it, so a
    retry or a fanned-out sample finds it too.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._posted: dict[Conversation, GenerationRequest] = {}
        self._count: Counter[Conversation] = Counter()

    @contextmanager
    def posted(self, request: GenerationRequest) -> Iterator[None]:
        """Keep ``request`` on the board for the duration of the block."""
        key = conversation(request)
        with self._lock:
            self._posted[key] = request
            self._count[key] += 1
        try:
            yield
        finally:
            with self._lock:
                self._count[key] -= 1
                if self._count[key] <= 0:
                    del self._count[key]
                    del self._posted[key]

    def described(self, received: GenerationRequest) -> GenerationRequest:
        """``received`` (as the server parsed it) with the purpose and inputs (as JSON values) of the request
        posted for its conversation; unchanged when none is."""
        with self._lock:
            posted = self._posted.get(conversation(received))
        if posted is None:
            return received
        # As JSON values (lists, not tuples), the form every scripted answer has been written against.
        return replace(received, purpose=posted.purpose, inputs=json.loads(json.dumps(posted.inputs)))
