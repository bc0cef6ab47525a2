#!/usr/bin/env python3
"""Sizes and token costs of screenshots in LLM requests (the "## Images in LLM requests" section of
docs/performance.md).

For the simulated phone's screens (home and each app's first screen, 1080x2400 PNG) at full size
and shrunk to several longest sides (``Image.downscaled``), prints the encoded bytes, the bytes a
request carries (base64), the image tokens by Gemini's rule and OpenAI's high- and low-detail rules,
the cost of 1,000 such images at gemini-2.5-flash's and gpt-4o-mini's input prices, how long the
shrinking takes, and the loopback round trip of one request through each real SDK to its stand-in.

Usage: python scripts/bench_images.py [--repeats N]
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.demo.standins.openai import OpenAIStandIn
from latent_agent.device.sim.device import SimDevice
from latent_agent.llm.accounting import PriceTable
from latent_agent.llm.base import LLMClient
from latent_agent.llm.gemini import GeminiClient
from latent_agent.llm.image_tokens import gemini_tokens, openai_tokens
from latent_agent.llm.images import Image
from latent_agent.llm.openai_compat import OpenAICompatClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest, Message

KEY = "bench-local-key"
SIDES: tuple[int | None, ...] = (None, 1600, 1536, 1280, 1024, 768)


def screens() -> list[tuple[str, Image]]:
    device = SimDevice(seed=0)
    out = [("home", Image.from_bytes(device.screenshot()))]
    for app in sorted(device.launcher_apps()):
        device.reset(seed=0)
        device.open_app(app)
        out.append((app, Image.from_bytes(device.screenshot())))
    return out


def round_trip(client: LLMClient, image: Image, repeats: int) -> float:
    request = GenerationRequest(messages=(Message("user", "Name the icons.", (image,)),), purpose="bench")
    client.generate_sync(request)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        client.generate_sync(request)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    shots = screens()
    prices = PriceTable.load()
    flash, mini = prices.lookup("gemini-2.5-flash"), prices.lookup("gpt-4o-mini")
    assert flash is not None and mini is not None
    print(f"{len(shots)} sim screens ({', '.join(n for n, _ in shots)}), "
          f"{shots[0][1].width}x{shots[0][1].height} PNG\n")
    print("| longest side | size | PNG bytes (median) | base64 bytes | Gemini tokens | OpenAI high | OpenAI low "
          "| $ per 1,000 (Gemini 2.5 Flash / GPT-4o mini, high) | shrink time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for side in SIDES:
        sizes, b64, times = [], [], []
        shown = shots[0][1]
        for _, image in shots:
            start = time.perf_counter()
            shown = image.downscaled(side) if side is not None else image
            times.append(time.perf_counter() - start)
            sizes.append(shown.size_bytes)
            b64.append(len(base64.b64encode(shown.data)))
        g = gemini_tokens(shown.width, shown.height)
        high, low = openai_tokens(shown.width, shown.height), openai_tokens(shown.width, shown.height, "low")
        cost = f"{g * flash.input_per_mtok / 1000:.3f} / {high * mini.input_per_mtok / 1000:.3f}"
        label = "full" if side is None else str(side)
        print(f"| {label} | {shown.width}x{shown.height} | {statistics.median(sizes) / 1024:.0f} KB "
              f"| {statistics.median(b64) / 1024:.0f} KB | {g} | {high} | {low} | {cost} "
              f"| {statistics.median(times) * 1000:.0f} ms |")

    print("\nLoopback round trip of one request with one image (median of", args.repeats, "):")
    full = shots[0][1]
    small = full.downscaled(1024)
    model = ScriptedModel(responder=lambda _: "icon_1: search", keep_requests=False)
    with GeminiStandIn(model, api_key=KEY) as gemini, OpenAIStandIn(model, api_key=KEY) as openai:
        clients: list[tuple[str, LLMClient]] = [
            ("google-genai -> Gemini stand-in", GeminiClient("gemini-2.5-flash", api_key=KEY, base_url=gemini.url)),
            ("openai -> OpenAI stand-in", OpenAICompatClient("gpt-4o-mini", api_key=KEY, base_url=openai.base_url)),
        ]
        for name, client in clients:
            try:
                a = round_trip(client, full, args.repeats)
                b = round_trip(client, small, args.repeats)
            finally:
                client.close()
            print(f"  {name}: full {a * 1000:.1f} ms, 1024 px {b * 1000:.1f} ms")


if __name__ == "__main__":
    main()
