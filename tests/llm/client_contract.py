"""The contract every :class:`~latent_agent.llm.base.LLMClient` must pass, checked through the interface only.

Subclass :class:`LLMClientContract` in a provider's test module and implement ``open_client`` (a client that
answers :meth:`LLMClientContract.request` as often as asked, closed and its servers stopped when the block
ends) and ``unanswerable`` (a request it refuses)::

    class TestScripted(LLMClientContract):
        @contextmanager
        def open_client(self, tmp_path: Path, **client_kwargs: Any) -> Iterator[LLMClient]:
            yield ScriptedModel(responder=contract_responder, **client_kwargs)

        def unanswerable(self) -> GenerationRequest:
            return REFUSED_REQUEST

``client_kwargs`` are the options every provider takes (budget, accountant, recorder, retry); the checks are
that a client answers every sample, stays usable after closing, applies a budget and an accountant exactly
once per call, turns every failure into an :class:`~latent_agent.errors.LLMError`, records calls a replay
client answers again, and carries a multi-turn conversation with images (:meth:`LLMClientContract.multimodal`)
to its backend intact: roles in order, image bytes unchanged (the echo names their SHA-256).
"""

from __future__ import annotations

import abc
import asyncio
import io
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PIL import Image as PILImage

from latent_agent.errors import LLMBudgetExceededError, LLMError, LLMRequestError
from latent_agent.llm.accounting import Accountant, scope
from latent_agent.llm.base import LLMClient
from latent_agent.llm.budget import Budget
from latent_agent.llm.images import Image
from latent_agent.llm.replay import Cassette, ReplayClient
from latent_agent.llm.retry import RetryPolicy
from latent_agent.llm.types import Completion, GenerationRequest, Message

#: Quick retries, a generous timeout (a loaded machine must not time a normal answer out).
RETRY = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=0.01, timeout_s=10.0)
#: The prompt the scripted responders refuse.
REFUSED = "Please refuse this request."
#: A request the scripted responders refuse (with :class:`LLMRequestError`).
REFUSED_REQUEST = GenerationRequest(prompt=REFUSED, purpose="ping", inputs={"prompt": REFUSED})


def _png(width: int, height: int, colour: tuple[int, int, int]) -> Image:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), colour).save(out, format="PNG")
    return Image(out.getvalue(), "image/png")


#: The images of :meth:`LLMClientContract.multimodal`: one in an earlier user turn, two in the last.
CONTRACT_IMAGES = (_png(40, 30, (200, 0, 0)), _png(30, 40, (0, 200, 0)), _png(500, 900, (0, 0, 200)))


def contract_responder(request: GenerationRequest) -> str:
    """Echoes the last message (and, for a conversation or images, the roles and image hashes it received);
    refuses :data:`REFUSED`."""
    text = request.chat()[-1].text
    if text == REFUSED:
        raise LLMRequestError("the scripted model refuses this request")
    if len(request.chat()) > 1 or request.image_infos():
        roles = ",".join(m.role for m in request.chat())
        return f"echo: {text} | roles {roles} | images {','.join(i.sha256 for i in request.image_infos())}"
    return "echo: " + text


class LLMClientContract(abc.ABC):
    """Behaviour documented in :mod:`latent_agent.llm.base`, for every provider."""

    #: Whether the client records its calls to a cassette (a replay client answers from one instead, and
    #: records nothing).
    records: ClassVar[bool] = True

    @abc.abstractmethod
    def open_client(self, tmp_path: Path, **client_kwargs: Any) -> AbstractContextManager[LLMClient]:
        """A client answering :meth:`request` (any number of times), closed when the block ends."""

    @abc.abstractmethod
    def unanswerable(self) -> GenerationRequest:
        """A request the client's backend refuses."""

    #: Whether the backend echoes what it received (:func:`contract_responder`); the demo answers its own way.
    echoes: ClassVar[bool] = True

    def request(self) -> GenerationRequest:
        """What every check asks: two samples, with a declared purpose and inputs."""
        prompt = "Reply with the single word: pong"
        return GenerationRequest(prompt=prompt, n=2, temperature=0.5, max_output_tokens=64, purpose="ping",
                                 inputs={"prompt": prompt})

    @staticmethod
    def multimodal() -> GenerationRequest:
        """A system message, three turns and images in two user turns."""
        first, second, third = CONTRACT_IMAGES
        messages = (Message("system", "You describe screens."), Message("user", "Here is the first screen.", (first,)),
                    Message("assistant", "A red screen."), Message("user", "And these two?", (second, third)))
        return GenerationRequest(messages=messages, purpose="ping", inputs={"prompt": "And these two?"})

    # -- answers ---------------------------------------------------------------------------

    @staticmethod
    def check(completion: Completion, n: int) -> None:
        assert len(completion.texts) == len(completion.finish_reasons) == n
        assert all(isinstance(t, str) and t for t in completion.texts)
        assert set(completion.finish_reasons) <= {"stop", "length", "safety", "other"}
        assert completion.model
        usage = completion.usage
        assert 0 <= usage.prompt_tokens + usage.output_tokens <= usage.total_tokens
        assert completion.latency_s >= 0 and completion.retries >= 0

    def test_answers_every_sample(self, tmp_path: Path) -> None:
        with self.open_client(tmp_path, retry=RETRY) as client:
            self.check(client.generate_sync(self.request()), 2)

    def test_stays_usable_after_closing(self, tmp_path: Path) -> None:
        with self.open_client(tmp_path, retry=RETRY) as client:
            self.check(client.generate_sync(self.request()), 2)
            client.close()
            self.check(client.generate_sync(self.request()), 2)

    def test_answers_on_any_event_loop(self, tmp_path: Path) -> None:
        with self.open_client(tmp_path, retry=RETRY) as client:
            async def once() -> Completion:
                try:
                    return await client.generate(self.request())
                finally:
                    await client.aclose()

            for _ in range(2):  # each asyncio.run is a new loop; connections must not leak across them
                self.check(asyncio.run(once()), 2)

    # -- budget and accounting (the client's alone: once per call) ------------------------

    def test_applies_its_budget_once_per_call(self, tmp_path: Path) -> None:
        budget = Budget(max_calls=1)
        with self.open_client(tmp_path, retry=RETRY, budget=budget) as client:
            first = client.generate_sync(self.request())
            with pytest.raises(LLMBudgetExceededError, match="1 of max 1 calls"):
                client.generate_sync(self.request())
        assert budget.state().calls == 1 and budget.state().tokens == first.usage.total_tokens

    def test_accounts_every_call_in_its_scope(self, tmp_path: Path) -> None:
        accountant = Accountant()
        with self.open_client(tmp_path, retry=RETRY, accountant=accountant) as client:
            with scope(episode="ep-1", step=3):
                answered = client.generate_sync(self.request())
            with scope(episode="ep-1", step=4), pytest.raises(LLMError):
                client.generate_sync(self.unanswerable())
        ok, failed = accountant.records()
        assert (ok.episode, ok.step, ok.ok, ok.usage) == ("ep-1", 3, True, answered.usage)
        assert (failed.episode, failed.step, failed.ok) == ("ep-1", 4, False)
        assert ok.request.purpose == "ping"

    # -- failures --------------------------------------------------------------------------

    def test_a_refused_request_is_an_llm_error(self, tmp_path: Path) -> None:
        with self.open_client(tmp_path, retry=RETRY) as client, pytest.raises(LLMError) as raised:
            client.generate_sync(self.unanswerable())
        assert str(raised.value)

    def test_a_request_that_is_not_json_serializable_is_refused_before_sending(self) -> None:
        with pytest.raises(LLMRequestError, match="JSON-serializable"):
            GenerationRequest(prompt="p", purpose="ping", inputs={"when": object()})

    # -- conversations and images --------------------------------------------------------------

    def test_carries_turns_and_images_intact(self, tmp_path: Path) -> None:
        accountant = Accountant()
        with self.open_client(tmp_path, retry=RETRY, accountant=accountant) as client:
            answered = client.generate_sync(self.multimodal())
        self.check(answered, 1)
        if self.echoes:
            hashes = ",".join(i.sha256() for i in CONTRACT_IMAGES)
            assert answered.text == f"echo: And these two? | roles system,user,assistant,user | images {hashes}"
        assert answered.usage.image_tokens > 0
        assert answered.usage.prompt_tokens >= answered.usage.image_tokens
        (record,) = accountant.records()
        assert record.request.image_infos() == tuple(i.info() for i in CONTRACT_IMAGES)

    # -- recording ---------------------------------------------------------------------------

    def test_records_calls_a_replay_client_answers_again(self, tmp_path: Path) -> None:
        cassette = Cassette(tmp_path / "calls.jsonl")
        with self.open_client(tmp_path, retry=RETRY, recorder=cassette) as client:
            answered = client.generate_sync(self.request())
            model = client.model
        if not self.records:  # an answer from a cassette is never recorded again
            assert answered.cached and not cassette.path.exists()
            return
        (entry,) = cassette.entries()
        assert entry.request.purpose == "ping" and entry.completion.texts == answered.texts
        replayed = ReplayClient(cassette, model=model).generate_sync(self.request())
        assert replayed.cached and replayed.texts == answered.texts
