"""The provider-independent parts: records, retries, budget, accounting, the scripted model."""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from latent_agent.errors import (
    ConfigError,
    LLMBudgetExceededError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMSafetyBlockError,
    LLMTimeoutError,
    LLMUnavailableError,
    ScriptExhaustedError,
)
from latent_agent.llm.accounting import Accountant, PriceTable, scope
from latent_agent.llm.budget import Budget
from latent_agent.llm.capabilities import capabilities
from latent_agent.llm.retry import RetryPolicy, TransientFailure, call_with_retries, parse_retry_after
from latent_agent.llm.scripted import Reply, ScriptedModel
from latent_agent.llm.types import Completion, GenerationRequest, Message, ProviderAnswer, Usage

# -- records -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"prompt": "a", "messages": (Message("user", "b"),)},
        {"prompt": "a", "n": 0},
        {"prompt": "a", "temperature": -0.1},
        {"prompt": "a", "max_output_tokens": 0},
        {"prompt": "a", "stop": ["x"]},
    ],
)
def test_bad_requests_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(LLMRequestError):
        GenerationRequest(**kwargs)  # type: ignore[arg-type]


def test_bad_role_is_refused() -> None:
    with pytest.raises(LLMRequestError, match="role"):
        Message("tool", "x")  # type: ignore[arg-type]


texts = st.text(max_size=40)


@given(
    prompt=st.one_of(st.none(), texts),
    msgs=st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), texts), min_size=1, max_size=4),
    temperature=st.floats(min_value=0, max_value=2),
    n=st.integers(1, 8),
    max_tokens=st.one_of(st.none(), st.integers(1, 4096)),
    stop=st.lists(texts, max_size=3),
)
def test_request_json_round_trip(prompt, msgs, temperature, n, max_tokens, stop) -> None:  # type: ignore[no-untyped-def]
    messages = () if prompt is not None else tuple(Message(r, t) for r, t in msgs)
    req = GenerationRequest(prompt=prompt, messages=messages, temperature=temperature, n=n,
                            max_output_tokens=max_tokens, stop=tuple(stop))
    again = GenerationRequest.from_json(json.loads(json.dumps(req.to_json())))
    assert again == req and again.canonical() == req.canonical()


def test_completion_round_trip_and_bad_shapes() -> None:
    c = Completion(("a", "b"), ("stop", "length"), Usage(3, 4, 7), 0.5, "m", retries=2, provider_calls=2)
    assert Completion.from_json(c.to_json()) == c
    assert Completion.from_json(c.to_json(), cached=True).cached
    with pytest.raises(LLMRequestError):
        Completion.from_json({"texts": ["a"]})
    bad = c.to_json() | {"finish_reasons": ["exploded", "stop"]}
    with pytest.raises(LLMRequestError, match=r"finish_reasons\[0\] is 'exploded', not 'stop' or"):
        Completion.from_json(bad)


def test_usage_adds() -> None:
    assert Usage(1, 2, 3) + Usage(10, 20, 30) == Usage(11, 22, 33)


# -- retries ------------------------------------------------------------------------------


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.25") == 0.25
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = time.time()
    date = email.utils.formatdate(now + 10, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(10, abs=1)
    assert parse_retry_after(email.utils.formatdate(now - 100, usegmt=True), now=now) == 0.0


def run_retries(outcomes: list[object], policy: RetryPolicy) -> tuple[object, int, list[float]]:
    slept: list[float] = []
    queue = list(outcomes)

    async def attempt() -> object:
        item = queue.pop(0)
        if isinstance(item, BaseException):
            raise item
        if item == "hang":
            await asyncio.sleep(60)
        return item

    async def sleep(s: float) -> None:
        slept.append(s)

    async def go() -> tuple[object, int]:
        return await call_with_retries(attempt, policy, what="test", rng=random.Random(0), sleep=sleep)

    value, retries = asyncio.run(go())
    return value, retries, slept


def test_backoff_grows_with_jitter_and_honours_retry_after() -> None:
    policy = RetryPolicy(max_attempts=5, base_delay_s=1.0, max_delay_s=3.0, jitter=0.5)
    fails = [TransientFailure("server", "500"), TransientFailure("server", "500"),
             TransientFailure("rate_limit", "429", retry_after_s=7.0), TransientFailure("server", "500"),
             "ok"]
    value, retries, slept = run_retries(fails, policy)
    assert value == "ok" and retries == 4
    assert 0.5 <= slept[0] <= 1.0 and 1.0 <= slept[1] <= 2.0
    assert slept[2] == 7.0  # the server's word wins over the computed backoff
    assert 1.5 <= slept[3] <= 3.0  # capped at max_delay_s before jitter


@pytest.mark.parametrize(
    ("kind", "error"),
    [("rate_limit", LLMRateLimitError), ("server", LLMUnavailableError),
     ("connection", LLMUnavailableError), ("timeout", LLMTimeoutError)],
)
def test_exhausted_retries_raise_the_typed_error(kind: str, error: type[Exception]) -> None:
    policy = RetryPolicy(max_attempts=3, base_delay_s=0, max_timeout_attempts=3)
    with pytest.raises(error, match="gave up after 3 attempts") as info:
        run_retries([TransientFailure(kind, "x")] * 3, policy)  # type: ignore[arg-type]
    assert info.value.attempts == 3  # type: ignore[attr-defined]


def test_a_timed_out_request_is_resent_once_and_the_error_names_the_flag() -> None:
    policy = RetryPolicy(max_attempts=4, base_delay_s=0, timeout_s=0.05)
    with pytest.raises(LLMTimeoutError, match=r"gave up after 2 attempts \(2 timed out\); .*--llm-timeout 0.05 s"
                       ) as info:
        run_retries(["hang", "hang", "ok"], policy)
    assert info.value.attempts == 2  # type: ignore[attr-defined]


def test_timeouts_count_apart_from_other_transient_failures() -> None:
    policy = RetryPolicy(max_attempts=4, base_delay_s=0, timeout_s=0.05)
    value, retries, _ = run_retries([TransientFailure("server", "x"), "hang", TransientFailure("server", "y"), "ok"],
                                    policy)
    assert (value, retries) == ("ok", 3)


def test_hanging_attempt_times_out_and_is_retried() -> None:
    policy = RetryPolicy(max_attempts=2, base_delay_s=0, timeout_s=0.05)
    value, retries, _ = run_retries(["hang", "ok"], policy)
    assert (value, retries) == ("ok", 1)


def test_non_transient_errors_are_not_retried() -> None:
    with pytest.raises(LLMRequestError):
        run_retries([LLMRequestError("bad"), "ok"], RetryPolicy(max_attempts=3))


def test_bad_policies_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ConfigError):
        RetryPolicy(jitter=2)
    with pytest.raises(ConfigError):
        RetryPolicy(timeout_s=0)


# -- scripted model --------------------------------------------------------------------------


def test_scripted_queue_then_responder_and_recording() -> None:
    replies = ["first", Reply("second", "length", output_tokens=9)]
    m = ScriptedModel(replies, responder=lambda r: r.prompt or "")
    a = m.generate_sync(GenerationRequest(prompt="p1", n=2))
    b = m.generate_sync(GenerationRequest(prompt="p2"))
    assert a.texts == ("first", "second") and a.finish_reasons == ("stop", "length")
    assert a.usage.output_tokens == 2 + 9
    assert b.text == "p2"
    assert m.prompts == ("p1", "p2") and m.requests[0].n == 2
    assert m.pending == 0


def test_scripted_exhausted_and_queued_errors() -> None:
    m = ScriptedModel([LLMSafetyBlockError("nope")])
    with pytest.raises(LLMSafetyBlockError):
        m.generate_sync(GenerationRequest(prompt="x"))
    with pytest.raises(ScriptExhaustedError, match="no reply left"):
        m.generate_sync(GenerationRequest(prompt="y"))
    assert m.prompts == ("x", "y")


def test_scripted_from_file(tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_text('["a", "b"]')
    assert ScriptedModel.from_file(f).generate_sync(GenerationRequest(prompt="x", n=2)).texts == ("a", "b")
    f.write_text('{"a": 1}')
    with pytest.raises(ConfigError, match="list of strings"):
        ScriptedModel.from_file(f)


class _ConcurrencyProbe(ScriptedModel):
    """Holds each call until ``limit`` calls are in flight at once, and notes the peak."""

    def __init__(self, limit: int) -> None:
        super().__init__(responder=lambda r: "x", max_native_n=1, max_concurrency=limit)
        self.limit = limit
        self.inflight = self.peak = 0
        self.full: asyncio.Event | None = None

    async def _call(self, request: GenerationRequest) -> ProviderAnswer:
        self.full = self.full or asyncio.Event()
        self.inflight += 1
        self.peak = max(self.peak, self.inflight)
        if self.inflight == self.limit:
            self.full.set()
        try:
            # Calls made one after another never fill up: the wait then fails on its deadline.
            async with asyncio.timeout(30):
                await self.full.wait()
            return await super()._call(request)
        finally:
            self.inflight -= 1


def test_samples_run_concurrently_under_the_limit() -> None:
    m = _ConcurrencyProbe(limit=4)
    out = asyncio.run(m.generate(GenerationRequest(prompt="p", n=8)))
    assert len(out.texts) == 8 and out.provider_calls == 8
    # Four at once (the samples are concurrent), never more (the limit holds).
    assert m.peak == 4


def test_a_failing_sample_cancels_the_rest() -> None:
    m = ScriptedModel(["ok", LLMRequestError("bad sample"), "ok"], max_native_n=1)
    with pytest.raises(LLMRequestError, match="bad sample"):
        m.generate_sync(GenerationRequest(prompt="p", n=3))


# -- budget ------------------------------------------------------------------------------


def test_call_budget_stops_cleanly() -> None:
    budget = Budget(max_calls=2)
    m = ScriptedModel(responder=lambda r: "x", budget=budget)
    m.generate_sync(GenerationRequest(prompt="1"))
    m.generate_sync(GenerationRequest(prompt="2"))
    with pytest.raises(LLMBudgetExceededError, match="2 of max 2 calls"):
        m.generate_sync(GenerationRequest(prompt="3"))
    assert len(m.requests) == 2  # the refused call never reached the model


def test_token_budget_is_shared_between_clients() -> None:
    budget = Budget(max_tokens=10)
    a = ScriptedModel([Reply("x", output_tokens=6)], budget=budget)
    b = ScriptedModel([Reply("y", output_tokens=6)], budget=budget)
    a.generate_sync(GenerationRequest(prompt="p"))
    b.generate_sync(GenerationRequest(prompt="p"))  # admitted at 7 tokens, ends above the limit
    with pytest.raises(LLMBudgetExceededError, match="token budget"):
        a.generate_sync(GenerationRequest(prompt="p"))
    assert budget.state().tokens == 14


def test_budget_rejects_negative_limits() -> None:
    with pytest.raises(ConfigError):
        Budget(max_calls=-1)


# -- accounting -------------------------------------------------------------------------


def test_records_and_totals_per_step_and_episode(tmp_path: Path) -> None:
    acc = Accountant(prices=PriceTable.load(), log_path=tmp_path / "calls.jsonl")
    m = ScriptedModel([Reply("a", output_tokens=10), Reply("b", output_tokens=20), LLMRequestError("bad"),
                       Reply("c", output_tokens=5)], model="gemini-2.5-flash", accountant=acc)
    with scope(episode="e1"):
        with scope(step=0):
            m.generate_sync(GenerationRequest(prompt="p"))
        with scope(step=1):
            m.generate_sync(GenerationRequest(prompt="p"))
            with pytest.raises(LLMError):
                m.generate_sync(GenerationRequest(prompt="p"))
    with scope(episode="e2", step=0):
        m.generate_sync(GenerationRequest(prompt="p"))

    total = acc.totals()
    assert (total.calls, total.failures) == (4, 1)
    assert total.usage.output_tokens == 35
    steps = [r for r in acc.records() if r.episode == "e1"]
    assert [r.step for r in steps] == [0, 1, 1] and [r.error_type is not None for r in steps] == [False, False, True]
    eps = acc.per_episode()
    assert eps["e1"].usage.output_tokens == 30 and eps["e2"].usage.output_tokens == 5
    assert sum(t.usage.total_tokens for t in eps.values()) == total.usage.total_tokens
    # gemini-2.5-flash is priced: 0.30 in / 2.50 out per million tokens.
    first = acc.records()[0]
    assert first.cost_usd == pytest.approx((first.usage.prompt_tokens * 0.30 + 10 * 2.50) / 1e6)
    assert acc.records()[2].error_type == "LLMRequestError"

    lines = (tmp_path / "calls.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == {"schema": "latent-agent/llm-calls", "version": 1}
    assert len(lines) == 5 and json.loads(lines[3])["error_message"] == "bad"


def test_unpriced_models_have_no_cost() -> None:
    acc = Accountant(prices=PriceTable.load())
    ScriptedModel(["x"], model="my-local-llama", accountant=acc).generate_sync(GenerationRequest(prompt="p"))
    assert acc.records()[0].cost_usd is None and acc.totals().unpriced_calls == 1


def test_price_table_specific_patterns_win() -> None:
    table = PriceTable.load()
    flash_lite = table.lookup("models/gemini-2.5-flash-lite")
    assert flash_lite is not None and flash_lite.input_per_mtok == 0.10
    mini = table.lookup("gpt-4o-mini-2024-07-18")
    assert mini is not None and mini.output_per_mtok == 0.60


def test_bad_price_table(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text('{"schema": "other"}')
    with pytest.raises(ConfigError, match="price table"):
        PriceTable.load(f)


def test_capabilities_are_data() -> None:
    assert capabilities("gemini", "gemini-2.5-flash").max_native_n == 8
    assert capabilities("gemini", "gemini-1.0-pro").max_native_n == 1
    assert capabilities("openai", "o3-mini").max_tokens_field == "max_completion_tokens"
    assert capabilities("openai", "llama3").max_tokens_field == "max_tokens"
    assert capabilities("nobody", "x").max_native_n == 1


def test_a_thinking_model_is_sent_its_thinking_on_top_of_the_answers_cap() -> None:
    # Gemini 2.5 and OpenAI's reasoning models think out of the output cap: a cap for the answer alone
    # would leave them no answer at all.
    assert capabilities("gemini", "gemini-2.5-flash").output_cap(64) == 64 + 24576
    assert capabilities("gemini", "models/gemini-2.5-pro").output_cap(64) == 64 + 32768
    assert capabilities("openai", "gpt-5-mini").output_cap(64) == 64 + 25000
    assert capabilities("openai", "qwen").output_cap(64) == 64
    assert capabilities("gemini", "gemini-2.0-flash").output_cap(64) == 64
    assert capabilities("gemini", "gemini-2.5-flash").output_cap(None) is None
