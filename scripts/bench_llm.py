#!/usr/bin/env python3
"""Speed figures of the LLM client layer (the "## LLM clients" section of docs/performance.md).

1. Overhead of the layer itself (budget, accounting, retry wrapper, concurrency gate,
   sample merge), excluding the network: ``generate`` on the scripted model minus
   the scripted model's own work.
2. A loopback round trip through each real SDK to its stand-in (SDK request building
   and parsing plus local HTTP; no provider latency).
3. Wall time of n=8 samples against a stand-in that adds 200 ms of provider latency
   to every request: candidates in one request (Gemini candidate_count / OpenAI n)
   and parallel single calls (a model without candidates), versus one sample.

Usage: python scripts/bench_llm.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.llm.accounting import Accountant, PriceTable
from latent_agent.llm.base import LLMClient
from latent_agent.llm.budget import Budget
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

KEY = "bench-local-key"
PROMPT = GenerationRequest(prompt="Screen: [1] Button 'OK' [2] Text 'Wi-Fi'. Goal: turn on Wi-Fi. Next step?")


def reply(_: GenerationRequest) -> str:
    return "tap [2]"


async def layer_overhead(calls: int) -> tuple[float, float]:
    model = ScriptedModel(responder=reply, accountant=Accountant(prices=PriceTable.load()), budget=Budget())
    for _ in range(200):
        await model.generate(PROMPT)
    start = time.perf_counter()
    for _ in range(calls):
        await model.generate(PROMPT)
    full = (time.perf_counter() - start) / calls
    start = time.perf_counter()
    for _ in range(calls):
        model.answer(PROMPT)
    bare = (time.perf_counter() - start) / calls
    return full, full - bare


def translation_cost(calls: int) -> tuple[float, float]:
    """Per-call time of this layer's own request building and response reading, per SDK."""
    from google.genai import types as gtypes
    from openai.types.chat import ChatCompletion

    g = GeminiClient("gemini-2.5-flash", api_key=KEY)
    g_resp = gtypes.GenerateContentResponse.model_validate({
        "candidates": [{"content": {"parts": [{"text": "tap [2]"}], "role": "model"}, "finishReason": "STOP",
                        "index": 0}],
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 3, "totalTokenCount": 33},
        "modelVersion": "gemini-2.5-flash",
    })
    o = OpenAICompatClient("gpt-4o-mini", api_key=KEY)
    o_resp = ChatCompletion.model_validate({
        "id": "x", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "tap [2]"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 3, "total_tokens": 33},
    })
    start = time.perf_counter()
    for _ in range(calls):
        g._build(PROMPT)
        g._answer(g_resp)
    gemini = (time.perf_counter() - start) / calls
    start = time.perf_counter()
    for _ in range(calls):
        o._params(PROMPT)
        o._answer(o_resp)
    openai = (time.perf_counter() - start) / calls
    return gemini, openai


async def round_trips(client: LLMClient, calls: int) -> list[float]:
    await client.generate(PROMPT)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        await client.generate(PROMPT)
        times.append(time.perf_counter() - start)
    await client.aclose()
    return times


async def wall(client: LLMClient, n: int) -> float:
    await client.generate(PROMPT)  # warm: connections, SDK import, native-n discovery
    await client.generate(PROMPT.with_n(n))
    start = time.perf_counter()
    await client.generate(PROMPT.with_n(n))
    elapsed = time.perf_counter() - start
    await client.aclose()  # its connections belong to this event loop
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()

    full, overhead = asyncio.run(layer_overhead(args.calls))
    print(f"layer overhead (scripted, no network): {overhead * 1e6:.0f} us/call "
          f"(generate {full * 1e6:.0f} us incl. the scripted model)")

    g_us, o_us = translation_cost(args.calls)
    print(f"request building + response reading: google-genai {g_us * 1e6:.0f} us, "
          f"openai {o_us * 1e6:.0f} us")
    print(f"client layer total, excluding network and SDK: {(overhead + g_us) * 1e6:.0f} us (gemini), "
          f"{(overhead + o_us) * 1e6:.0f} us (openai)")

    model = ScriptedModel(responder=reply)
    with GeminiStandIn(model, api_key=KEY) as g, OpenAIStandIn(model, api_key=KEY) as o:
        for name, client in (
            ("google-genai", GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=g.url)),
            ("openai", OpenAICompatClient("gpt-4o-mini", api_key=KEY, base_url=f"{o.url}/v1")),
        ):
            times = asyncio.run(round_trips(client, 200))
            print(f"loopback round trip via {name}: median {statistics.median(times) * 1e3:.2f} ms, "
                  f"p95 {sorted(times)[int(len(times) * 0.95)] * 1e3:.2f} ms")

    delay = 0.2
    rows = []
    with GeminiStandIn(model, api_key=KEY, delay_s=delay) as g8, \
            GeminiStandIn(model, api_key=KEY, delay_s=delay, max_candidates=1) as g1, \
            OpenAIStandIn(model, api_key=KEY, delay_s=delay) as o8, \
            OpenAIStandIn(model, api_key=KEY, delay_s=delay, n_mode="ignore") as o1:
        cases: list[tuple[str, LLMClient]] = [
            ("gemini, candidate_count", GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=g8.url)),
            ("gemini, no candidates -> parallel",
             GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=g1.url)),
            ("openai, n honoured", OpenAICompatClient("gpt-4o-mini", api_key=KEY, base_url=f"{o8.url}/v1")),
            ("openai, n ignored -> parallel",
             OpenAICompatClient("llama3", api_key=KEY, base_url=f"{o1.url}/v1")),
        ]
        for name, client in cases:
            one = asyncio.run(wall(client, 1))
            eight = asyncio.run(wall(client, 8))
            rows.append((name, one, eight))
    print(f"n=8 wall time with {delay * 1000:.0f} ms provider latency:")
    for name, one, eight in rows:
        print(f"  {name:<36} n=1 {one * 1000:6.0f} ms   n=8 {eight * 1000:6.0f} ms   ratio {eight / one:.2f}")


if __name__ == "__main__":
    main()
