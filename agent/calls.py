"""Every LLM call of an episode goes through :class:`LLMCaller`.

A call made from one prompt template is a :class:`PromptCall`: its purpose, the template and the
variables it was rendered from, rendered once; :meth:`LLMCaller.send` asks it, the variables being
the call's inputs (what the scripted stand-in answers from).
It builds the request (the prompt, the call's declared purpose and the structured inputs the
prompt was rendered from; optionally earlier chat turns and images shown with the prompt),
attributes the call to the episode and step for the client's accountant, and keeps an
:class:`~latent_agent.agent.trajectory.LLMCall` record (prompt, earlier turns, what the images were
but not their pixels, every sample and why it ended, tokens, latency, when it started) for the trajectory.
Every request carries its call kind's output cap (:func:`latent_agent.purposes.output_cap`), and, when the client
asks for shapes (``--llm-structured on``), its call kind's answer shape on the call's surface
(:func:`latent_agent.shapes.shape_for`; a call whose answer differs from its purpose's usual one passes its own).
The record says how the shape was sent, or why it was not (``LLMCall.shape``, ``shape_note``). A method that
cannot use an answer (unreadable, or cut at the cap) says so with :meth:`LLMCaller.unparsable`, which
marks the call's record. Budgets and accounting belong to the client
(:class:`~latent_agent.llm.base.LLMClient`) alone, so no call is admitted or counted twice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from latent_agent.agent.trajectory import LLMCall, LLMUsage
from latent_agent.errors import LLMError, LLMRequestError, LLMRetriesExhaustedError
from latent_agent.llm.accounting import scope
from latent_agent.llm.base import LLMClient
from latent_agent.llm.images import Image
from latent_agent.llm.types import CallOptions, Completion, GenerationRequest, Message
from latent_agent.prompts.render import render
from latent_agent.purposes import Purpose, output_cap
from latent_agent.shapes import shape_for
from latent_agent.surfaces import PHONE, Surface

#: The finish reason of a sample cut at its output cap.
CUT = "length"


def truncated(completion: Completion) -> bool:
    """Whether any sample of ``completion`` was cut at the output cap (its text is incomplete)."""
    return CUT in completion.finish_reasons


def cut_reason(completion: Completion) -> str:
    """The parse error of an answer cut at the cap, in words (for :meth:`LLMCaller.unparsable`)."""
    return f"the answer was cut at the output cap ({completion.usage.output_tokens} output tokens)"


@dataclass(frozen=True, slots=True)
class PromptCall:
    """One call's prompt: what it is for, the template, the variables it was rendered from, and the text.

    Made with :meth:`of`, which renders the template once; the variables are JSON values (they are the
    request's inputs).

    Attributes:
        purpose: What the call is for.
        template: The prompt template's file name (``prompts/templates``).
        variables: The values the template was rendered with, by name.
        prompt: The rendered prompt.
        surface: The surface it was rendered for (its answer's shape is that surface's).
    """

    purpose: Purpose
    template: str
    variables: Mapping[str, object]
    prompt: str
    surface: Surface = PHONE

    @classmethod
    def of(cls, purpose: Purpose, template: str, surface: Surface, **variables: object) -> PromptCall:
        """The call for ``purpose`` rendering ``template`` for ``surface`` with ``variables``."""
        return cls.rendered(purpose, template, surface, variables)

    @classmethod
    def rendered(cls, purpose: Purpose, template: str, surface: Surface, variables: Mapping[str, object],
                 fixed: Mapping[str, object] | None = None) -> PromptCall:
        """The call for ``purpose`` rendering ``template`` for ``surface`` with ``variables`` and ``fixed``.

        Args:
            purpose: What the call is for.
            template: The template's file name.
            surface: What the agent operates (the prompt's role line and actions are that surface's).
            variables: The call's data.
            fixed: What the template also renders with that is the same for every call, not the call's data
                (worked examples, a helper function); not kept in :attr:`variables`.
        """
        kept = MappingProxyType(dict(variables))
        return cls(purpose, template, kept, render(template, surface, **(fixed or {}), **kept), surface)


@dataclass(slots=True)
class _StepLog:
    start: float
    calls: list[LLMCall] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)
    # Which record each completion of this step made (the completion is kept so its id stays unique).
    made: dict[int, tuple[Completion, int]] = field(default_factory=dict)


class LLMCaller:
    """Asks the model on behalf of one episode and records each call.

    Args:
        client: The model (it applies the run's budget and accountant, if any).
        episode_id: Attributes the calls in the client's accountant.
    """

    def __init__(self, client: LLMClient, *, episode_id: str) -> None:
        self.client = client
        self.episode_id = episode_id
        self.step: int | None = None
        self._log = _StepLog(time.perf_counter())

    def begin(self, step: int | None) -> None:
        """Start collecting the calls of ``step`` (None: calls outside steps)."""
        self.step = step
        self._log = _StepLog(time.perf_counter())

    @property
    def calls(self) -> tuple[LLMCall, ...]:
        """The calls since :meth:`begin`, ordered by start time."""
        return tuple(sorted(self._log.calls, key=lambda c: c.started_s))

    def usage(self) -> LLMUsage:
        """LLM cost since :meth:`begin`."""
        total = LLMUsage()
        for c in self._log.calls:
            total = total + LLMUsage(1, c.prompt_tokens, c.output_tokens, c.latency_s, c.retries)
        return total

    def busy_s(self) -> float:
        """Wall time since :meth:`begin` during which at least one call was in flight."""
        busy = 0.0
        end = float("-inf")
        for a, b in sorted(self._log.spans):
            if b <= end:
                continue
            busy += b - max(a, end)
            end = b
        return busy

    async def ask(self, purpose: Purpose, prompt: str, *, inputs: Mapping[str, object] | None = None,
                  surface: Surface = PHONE, options: CallOptions | None = None) -> Completion:
        """Send ``prompt`` and record the call under ``purpose``.

        The conversation sent is ``options.messages`` (earlier turns, oldest first; it may start with a
        system message) followed by ``prompt`` as the last user turn, with ``options.images`` shown in that
        turn. Without messages or images the request is the bare prompt, as it always was (so
        recorded cassettes still match).

        Args:
            purpose: What the call is for; it picks the output cap and names the call in the record.
            prompt: The rendered prompt: the last user turn.
            inputs: The values ``prompt`` was rendered from (JSON-serializable). Answers from the
                demo stand-in depend on these alone, so a multi-turn call puts what its earlier
                turns say here too.
            surface: What the prompt was rendered for (it picks the registered shape).
            options: Sampling, earlier turns, images, the output cap (None: the cap of ``purpose``, lowered to the
                client's ``output_ceiling`` when it has one) and the answer's shape (None: the one registered for
                ``purpose`` on ``surface``; sent only when the client asks for shapes, ``--llm-structured on``).
                None: one greedy sample of the bare prompt.

        Raises:
            LLMError: The call failed (the failure is recorded first, with the attempts it took);
                :class:`~latent_agent.errors.LLMBudgetExceededError` when the client's budget is spent;
                :class:`~latent_agent.errors.LLMRequestError` for a malformed conversation (nothing sent).
        """
        options = options or CallOptions()
        cap = options.max_output_tokens if options.max_output_tokens is not None else output_cap(purpose)
        if self.client.output_ceiling is not None:  # --llm-max-output lowers every cap, and is recorded as sent
            cap = min(cap, self.client.output_ceiling)
        shape = (options.shape or shape_for(purpose, surface)) if self.client.structured else None
        request = build_request(purpose, prompt, inputs=inputs,
                                options=replace(options, max_output_tokens=cap, shape=shape))
        temperature, n = options.temperature, options.n
        earlier = tuple(m.info() for m in request.messages[:-1])
        shown = request.messages[-1].image_infos() if request.messages else ()
        log = self._log
        start = time.perf_counter()
        try:
            with scope(episode=self.episode_id, step=self.step):
                completion = await self.client.generate(request)
        except LLMError as exc:
            end = time.perf_counter()
            log.spans.append((start, end))
            # "gave up after 4 attempts" is 3 retries, recorded as such.
            retries = exc.attempts - 1 if isinstance(exc, LLMRetriesExhaustedError) else 0
            log.calls.append(LLMCall(
                purpose=purpose, prompt=prompt, temperature=temperature, n=n, model=self.client.model,
                latency_s=end - start, retries=retries, started_s=start - log.start,
                error=f"{type(exc).__name__}: {exc}", messages=earlier, images=shown, max_output_tokens=cap,
            ))
            raise
        end = time.perf_counter()
        log.spans.append((start, end))
        log.calls.append(LLMCall(
            purpose=purpose, prompt=prompt, outputs=completion.texts, temperature=temperature, n=n,
            model=completion.model, prompt_tokens=completion.usage.prompt_tokens,
            output_tokens=completion.usage.output_tokens, latency_s=completion.latency_s,
            retries=completion.retries, started_s=start - log.start,
            messages=earlier, images=shown, image_tokens=completion.usage.image_tokens,
            finish_reasons=tuple(completion.finish_reasons), max_output_tokens=cap,
            shape=completion.shape, shape_note=completion.shape_note,
        ))
        log.made[id(completion)] = (completion, len(log.calls) - 1)
        return completion

    async def send(self, call: PromptCall, options: CallOptions | None = None) -> Completion:
        """:meth:`ask` for ``call``: its prompt, under its purpose, with its variables as the inputs, on its surface."""
        return await self.ask(call.purpose, call.prompt, inputs=call.variables, surface=call.surface, options=options)

    def unparsable(self, completion: Completion, reason: str) -> None:
        """Record that the answer ``completion`` could not be used, and why (its text stays recorded).

        Args:
            completion: What :meth:`ask` returned during the current step (or setup).
            reason: Why the method could not read it, in words.

        Raises:
            ValueError: ``completion`` did not come from :meth:`ask` since the last :meth:`begin`.
        """
        made = self._log.made.get(id(completion))
        if made is None or made[0] is not completion:
            raise ValueError("unparsable() takes a completion that ask() returned in the current step")
        index = made[1]
        self._log.calls[index] = replace(self._log.calls[index], parse_error=reason)


def build_request(purpose: Purpose, prompt: str, *, inputs: Mapping[str, object] | None = None,
                  options: CallOptions | None = None) -> GenerationRequest:
    """The request :meth:`LLMCaller.ask` sends (``options.shape`` and ``options.max_output_tokens`` put in as given).

    Raises:
        LLMRequestError: ``options.messages`` holds something other than :class:`Message`, ``options.images``
            something other than :class:`Image`, or a turn is malformed.
    """
    options = options or CallOptions()
    turns = tuple(options.messages)
    if not all(isinstance(m, Message) for m in turns):
        raise LLMRequestError("messages must be Message records (role, text, images)")
    shown = tuple(options.images)
    if not all(isinstance(i, Image) for i in shown):
        raise LLMRequestError("images must be Image records (encoded bytes and MIME type)")
    if options.image_max_side is not None:
        shown = tuple(i.downscaled(options.image_max_side) for i in shown)
        turns = tuple(_shrunk(m, options.image_max_side) for m in turns)
    # Without earlier turns or images the request is the bare prompt (recorded cassettes still match).
    conversation = (*turns, Message("user", prompt, shown)) if turns or shown else ()
    return GenerationRequest(prompt=None if conversation else prompt, messages=conversation,
                             temperature=options.temperature, n=options.n, stop=options.stop, purpose=purpose,
                             inputs=dict(inputs or {}), max_output_tokens=options.max_output_tokens,
                             shape=options.shape)


def _shrunk(message: Message, max_side: int) -> Message:
    if not message.images:
        return message
    return Message(message.role, message.text,
                   tuple(i.downscaled(max_side) if isinstance(i, Image) else i for i in message.images))
