"""One request per server slot, across the clients and event loops that share a llama.cpp server."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

from latent_agent.llm.llamacpp.process import SlotGate


def test_requests_from_several_event_loops_take_turns_on_the_slots() -> None:
    gate = SlotGate(2)
    lock = threading.Lock()
    running = [0]
    most = [0]

    async def request() -> None:
        async with gate:
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            await asyncio.sleep(0.03)
            with lock:
                running[0] -= 1

    async def worker() -> None:
        await asyncio.gather(*(request() for _ in range(4)))

    threads = [threading.Thread(target=asyncio.run, args=(worker(),)) for _ in range(3)]  # a sweep's workers
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most[0] == 2 and running[0] == 0


def test_a_cancelled_waiter_holds_no_slot() -> None:
    gate = SlotGate(1)

    async def go() -> float:
        async with gate:
            waiter = asyncio.create_task(gate.__aenter__())
            await asyncio.sleep(0.05)
            waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiter
        start = time.perf_counter()
        async with asyncio.timeout(1):
            async with gate:  # free again: the cancelled waiter took nothing
                return time.perf_counter() - start

    assert asyncio.run(go()) < 0.5
