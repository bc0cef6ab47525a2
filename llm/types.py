"""Typed records of the LLM layer: requests, completions and token usage.

Every backend (Gemini, OpenAI-compatible, replay, scripted) takes a
:class:`GenerationRequest` and answers a :class:`Completion`; nothing else
crosses the interface. A user message may carry images (:class:`~latent_agent.llm.images.Image`);
what is serialised of a request (cassettes, call logs, cache keys) keeps only their
:class:`~latent_agent.llm.images.ImageInfo` (type, size, bytes, SHA-256), never the pixels.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from latent_agent import codec
from latent_agent.errors import LLMRequestError
from latent_agent.llm.images import Image, ImageInfo
from latent_agent.shapes import AnswerShape

#: Roles a chat message may have. Providers with other names (Gemini's "model")
#: are translated at the edge.
Role = Literal["system", "user", "assistant"]

#: Why a sample stopped, normalised across providers.
FinishReason = Literal["stop", "length", "safety", "other"]

_ROLES: frozenset[str] = frozenset(("system", "user", "assistant"))

#: An image in a message: its pixels (a request built to be sent) or only its record (a request read
#: back from a cassette or a call log, which cannot be sent again).
MessageImage = Image | ImageInfo


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message.

    Attributes:
        role: ``system``, ``user`` or ``assistant``.
        text: The message text.
        images: Images shown with the text (user messages only; every provider puts them in the same turn).
    """

    role: Role
    text: str
    images: tuple[MessageImage, ...] = ()

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise LLMRequestError(f"message role must be one of {sorted(_ROLES)}, got {self.role!r}")
        if not isinstance(self.images, tuple) or not all(isinstance(i, Image | ImageInfo) for i in self.images):
            raise LLMRequestError("message images must be a tuple of Image")
        if self.images and self.role != "user":
            raise LLMRequestError(f"only user messages may carry images, not a {self.role} message")

    def image_infos(self) -> tuple[ImageInfo, ...]:
        """What a record keeps of this message's images."""
        return tuple(i.info() if isinstance(i, Image) else i for i in self.images)

    def info(self) -> MessageInfo:
        """What a record keeps of this message."""
        return MessageInfo(self.role, self.text, self.image_infos())

    def to_json(self) -> dict[str, object]:
        """``{"role", "text"}``, plus ``"images"`` (their records) when there are any."""
        out: dict[str, object] = {"role": self.role, "text": self.text}
        if self.images:
            out["images"] = [i.to_json() for i in self.image_infos()]
        return out

    @classmethod
    def from_json(cls, data: object) -> Message:
        """Inverse of :meth:`to_json`; images come back as their records.

        Raises:
            LLMRequestError: ``data`` is not a serialised message.
        """
        try:
            assert isinstance(data, dict)
            images = tuple(ImageInfo.from_json(i) for i in data.get("images") or ())
            return cls(data["role"], str(data["text"]), images)
        except (AssertionError, KeyError, TypeError) as exc:
            raise LLMRequestError(f"not a serialised message: {exc!r}") from None


@dataclass(frozen=True, slots=True)
class MessageInfo:
    """What a record keeps of a chat message: its role and text, and its images' records.

    Attributes:
        role: ``system``, ``user`` or ``assistant``.
        text: The message text.
        images: The records of its images (never their pixels).
    """

    role: Role
    text: str
    images: tuple[ImageInfo, ...] = ()


def sendable(image: MessageImage) -> Image:
    """``image`` with its pixels.

    Raises:
        LLMRequestError: It is only a record (a request read back from a cassette or log).
    """
    if isinstance(image, Image):
        return image
    raise LLMRequestError(
        f"image {image.describe()} (sha256 {image.sha256[:12]}) is a record without its pixels; "
        "a request read back from a cassette or log cannot be sent again"
    )


@dataclass(frozen=True, slots=True)
class CallOptions:
    """How one call is asked besides its prompt: what the agent's caller (``LLMCaller.ask``) takes and its
    request builder (``build_request``) puts into the :class:`GenerationRequest`.

    Attributes:
        temperature: Sampling temperature.
        n: Samples wanted.
        stop: Stop sequences.
        messages: Earlier turns (system / user / assistant), oldest first; the prompt is the last user turn.
        images: Images shown in the prompt's turn (PNG, JPEG or WebP).
        image_max_side: Shrink every image (of ``messages`` too) so neither side exceeds this many pixels before
            sending (None: as given). Providers bill images by size.
        max_output_tokens: The most tokens each sample may take (None: the cap of the call's purpose).
        shape: The answer's shape (None: the one registered for the call's purpose on its surface).
    """

    temperature: float = 0.0
    n: int = 1
    stop: tuple[str, ...] = ()
    messages: tuple[Message, ...] = ()
    images: tuple[Image, ...] = ()
    image_max_side: int | None = None
    max_output_tokens: int | None = None
    shape: AnswerShape | None = None


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """What to ask a model.

    Exactly one of ``prompt`` and ``messages`` is given; a prompt is one user message.

    ``purpose`` and ``inputs`` describe the call rather than being part of it: what the
    caller asks for (``select``, ``ground``, ``mistakes``, ...) and the structured values its
    prompt was rendered from. No client sends them to a provider (the scripted stand-ins, which
    answer from them so they never read a prompt's wording, get them in-process);
    they are not part of :meth:`canonical`, so a cassette key is what the provider saw.

    Attributes:
        prompt: A single user prompt.
        messages: A chat history, oldest first; may start with a system message.
        temperature: Sampling temperature (>= 0).
        n: Number of independent samples wanted (>= 1).
        max_output_tokens: Cap on the tokens of each sample, or None for the provider default.
        stop: Stop sequences.
        purpose: What the call is for, or None for a call that declares none.
        inputs: The values the prompt was rendered from (JSON-serializable), keyed by name.
        shape: The form the answer is to be held to (``--llm-structured on``), or None: the provider sends it
            in its API's own field where it has one (:mod:`latent_agent.shapes`). Part of what is sent, so a
            cassette recorded with shapes answers only calls made with them.
    """

    prompt: str | None = None
    messages: tuple[Message, ...] = ()
    temperature: float = 0.0
    n: int = 1
    max_output_tokens: int | None = None
    stop: tuple[str, ...] = ()
    purpose: str | None = None
    inputs: Mapping[str, object] = field(default_factory=dict, hash=False)
    shape: AnswerShape | None = None

    def __post_init__(self) -> None:
        if (self.prompt is None) == (not self.messages):
            raise LLMRequestError("a request needs exactly one of prompt and messages")
        if not isinstance(self.messages, tuple):
            raise LLMRequestError("messages must be a tuple of Message")
        if self.n < 1:
            raise LLMRequestError(f"n must be >= 1, got {self.n}")
        if self.temperature < 0:
            raise LLMRequestError(f"temperature must be >= 0, got {self.temperature}")
        if self.max_output_tokens is not None and self.max_output_tokens < 1:
            raise LLMRequestError(f"max_output_tokens must be >= 1, got {self.max_output_tokens}")
        if not isinstance(self.stop, tuple):
            raise LLMRequestError("stop must be a tuple of strings")
        if self.inputs:
            try:
                json.dumps(self.inputs)
            except (TypeError, ValueError) as exc:
                raise LLMRequestError(f"request inputs must be JSON-serializable: {exc}") from None

    def chat(self) -> tuple[Message, ...]:
        """The request as chat messages (a prompt becomes one user message)."""
        if self.prompt is not None:
            return (Message("user", self.prompt),)
        return self.messages

    def image_infos(self) -> tuple[ImageInfo, ...]:
        """Records of every image the request carries, in message order."""
        return tuple(info for m in self.messages for info in m.image_infos())

    def with_n(self, n: int) -> GenerationRequest:
        """A copy asking for ``n`` samples."""
        return replace(self, n=n)

    def to_json(self, *, inputs: bool = True) -> dict[str, object]:
        """A JSON-ready form: what the provider is sent, then the purpose and (unless ``inputs`` is
        False) the inputs."""
        out = self._sent()
        out["purpose"] = self.purpose
        if inputs:
            out["inputs"] = dict(self.inputs)
        return out

    def _sent(self) -> dict[str, object]:
        sent: dict[str, object] = {
            "prompt": self.prompt,
            "messages": [m.to_json() for m in self.messages],
            "temperature": self.temperature,
            "n": self.n,
            "max_output_tokens": self.max_output_tokens,
            "stop": list(self.stop),
        }
        if self.shape is not None:  # left out while there is none, so requests recorded before shapes read the same
            sent["shape"] = self.shape.to_json()
        return sent

    @classmethod
    def from_json(cls, data: object) -> GenerationRequest:
        """Inverse of :meth:`to_json`.

        Raises:
            LLMRequestError: ``data`` does not have the shape :meth:`to_json` writes.
        """
        try:
            assert isinstance(data, dict)
            return cls(
                prompt=data["prompt"],
                messages=tuple(Message.from_json(m) for m in data["messages"]),
                temperature=float(data["temperature"]),
                n=int(data["n"]),
                max_output_tokens=data["max_output_tokens"],
                stop=tuple(data["stop"]),
                purpose=data.get("purpose"),
                inputs=dict(data.get("inputs") or {}),
                shape=AnswerShape.from_json(data["shape"]) if data.get("shape") is not None else None,
            )
        except (AssertionError, KeyError, TypeError, ValueError) as exc:
            raise LLMRequestError(f"not a serialised request: {exc!r}") from exc

    def canonical(self) -> str:
        """Canonical JSON text (sorted keys, no spaces) of what the provider is sent, used for cache keys."""
        return json.dumps(self._sent(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@codec.shape(omit_default=("image_tokens",))
@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one call (or a sum of calls).

    Attributes:
        prompt_tokens: Tokens of the input, as the provider counted them (images included).
        output_tokens: Tokens generated over all samples (thinking tokens included).
        total_tokens: What the provider bills; at least the sum of the two above.
        image_tokens: The part of ``prompt_tokens`` that images took: the provider's figure when it
            reports one (Gemini's per-modality counts), else the published rule's estimate
            (:mod:`latent_agent.llm.image_tokens`).
    """

    prompt_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    image_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.output_tokens + other.output_tokens,
            self.total_tokens + other.total_tokens,
            self.image_tokens + other.image_tokens,
        )

    def to_json(self) -> dict[str, int]:
        """The counts; ``image_tokens`` only when there are some, so text-only records read as before."""
        out: dict[str, int] = codec.encode(self)
        return out

    @classmethod
    def from_json(cls, data: object) -> Usage:
        """Inverse of :meth:`to_json`.

        Raises:
            LLMRequestError: ``data`` is not a serialised usage.
        """
        try:
            return codec.decode(cls, data)
        except codec.DecodeError as exc:
            raise LLMRequestError(f"not a serialised usage: {exc}") from None


#: How a shape was sent: a JSON schema, a GBNF grammar, or a regular expression.
ShapeSent = Literal["json_schema", "grammar", "regex"]


@codec.shape(skip=("cached",), omit_default=("shape", "shape_note"))
@dataclass(frozen=True, slots=True)
class Completion:
    """A model's answer to one :class:`GenerationRequest`.

    Attributes:
        texts: One text per sample, ``n`` of them.
        finish_reasons: Why each sample stopped, aligned with ``texts``.
        usage: Tokens of every provider call this answer took.
        latency_s: Wall time of the whole call, retries and backoff included.
        model: The model that answered, as the provider named it.
        retries: Attempts beyond the first, summed over the provider calls.
        cached: True when the answer came from a replay cassette.
        provider_calls: Provider requests the answer took.
        shape: How the request's shape was sent (None: none was, or the request had none).
        shape_note: Why a request with a shape was sent without it (the API has no field for it, the server
            did not say it takes one, or refused it), else None.
    """

    texts: tuple[str, ...]
    finish_reasons: tuple[FinishReason, ...]
    usage: Usage
    latency_s: float
    model: str
    retries: int = 0
    cached: bool = False
    provider_calls: int = field(default=1)
    shape: ShapeSent | None = None
    shape_note: str | None = None

    @property
    def text(self) -> str:
        """The first sample's text."""
        return self.texts[0]

    def to_json(self) -> dict[str, object]:
        """What a cassette or a call log keeps (all but ``cached``, which the reader knows)."""
        out: dict[str, object] = codec.encode(self)
        return out

    @classmethod
    def from_json(cls, data: object, *, cached: bool = False) -> Completion:
        """Inverse of :meth:`to_json`.

        Raises:
            LLMRequestError: ``data`` does not have the expected shape.
        """
        try:
            return replace(codec.decode(cls, data), cached=cached)
        except codec.DecodeError as exc:
            raise LLMRequestError(f"not a serialised completion: {exc}") from None


@dataclass(frozen=True, slots=True)
class ProviderAnswer:
    """What one successful provider call returned (before retries and fan-out are folded in).

    Attributes:
        texts: Sample texts; may be fewer than asked when the provider ignores ``n``.
        finish_reasons: Aligned with ``texts``.
        usage: Token counts of this call.
        model: The model that answered.
    """

    texts: tuple[str, ...]
    finish_reasons: tuple[FinishReason, ...]
    usage: Usage
    model: str
