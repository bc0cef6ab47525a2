#!/usr/bin/env python3
"""Benchmark the exemplar memory: embedder load, memory build, load, and query latency at 10,000 exemplars.

Synthetic goals are made from 200 task templates (an action on an object in an app, with parameters),
50 instances each; every instance is an exemplar of its template's family with 1 to 3 pieces, and its goal
is its key. Queries are 300 new instances of random templates (parameters not in the memory). Timed:

* embedder load: constructing the default embedder (model file hash check, ONNX session), in a fresh state;
* build: embedding the 10,000 keys and writing the memory directory;
* load: reading the directory back (every line validated);
* query: :meth:`Retriever.retrieve` for one goal (embed it, score all keys, vote), and the ranking alone.

Prints a markdown section for docs/performance.md. Run from the repository root:
``python scripts/bench_retrieval.py`` (``--exemplars N``, ``--embedder SPEC`` to vary).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from latent_agent.agent.exemplars.memory import Exemplar, ExemplarMemory, ExemplarStep, GoalKey, Piece, Source
from latent_agent.agent.exemplars.retrieval import DEFAULT_FLOOR, Retriever
from latent_agent.grounder.actions import Click, InputText, OpenApp
from latent_agent.llm.embed.registry import load_embedder

APPS = ("Settings", "Clock", "Chrome", "Files", "Calendar", "Contacts", "Messages", "Notes", "Maps", "Gmail")
ACTIONS = (
    ("Create a {obj} called {name} in {app}", ("note", "folder", "label", "list", "event")),
    ("Delete the {obj} named {name} in {app}", ("contact", "file", "alarm", "draft", "bookmark")),
    ("Rename the {obj} {name} to {other} in {app}", ("folder", "playlist", "album", "document")),
    ("Share the {obj} {name} with {other} using {app}", ("photo", "location", "link", "note")),
    ("Turn {state} the {obj} setting in {app}", ("notification", "sync", "dark mode", "auto-update")),
    ("Search {app} for {name} and open the first {obj}", ("result", "message", "place", "article")),
    ("Set the {obj} of {name} to {num} in {app}", ("volume", "reminder", "timer", "priority")),
    ("Move the {obj} {name} to the {other} folder in {app}", ("email", "file", "picture")),
)
NAMES = ("Alice", "Bob", "Projects", "Groceries", "Trip to Rome", "Budget", "Zoë", "Weekly report", "Pasta",
         "Birthday", "Invoices", "Holiday", "Gym", "Dentist", "Recipes", "Taxes", "Garden", "Music")


def templates(count: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """``count`` distinct (family, pattern, app) triples: the families."""
    out: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    while len(out) < count:
        pattern, objects = rng.choice(ACTIONS)
        app, obj = rng.choice(APPS), rng.choice(objects)
        filled = pattern.replace("{obj}", obj).replace("{app}", app)
        if (filled, app) in seen:
            continue
        seen.add((filled, app))
        out.append((f"family-{len(out):03d}", filled, app))
    return out


def instance(pattern: str, rng: random.Random) -> str:
    return pattern.format(name=rng.choice(NAMES), other=rng.choice(NAMES), num=rng.randint(1, 99),
                          state=rng.choice(("on", "off")))


def synthetic_memory(count: int, rng: random.Random,
                     ) -> tuple[list[Exemplar], list[GoalKey], list[tuple[str, str, str]]]:
    families = templates(max(1, count // 50), rng)
    exemplars: list[Exemplar] = []
    for i in range(count):
        family, pattern, app = families[i % len(families)]
        pieces = tuple(
            Piece(f"screen {p} of {app}", None,
                  (ExemplarStep(f'Tap "item {p}"', Click(100 + p, 200 + p), True),
                   ExemplarStep("Type the name", InputText(f"value {i}"), False)))
            for p in range(rng.randint(1, 3)))
        pieces = (Piece("home screen", None, (ExemplarStep(f"Open {app}", OpenApp(app), True),)), *pieces)
        exemplars.append(Exemplar(f"x{i:05d}", instance(pattern, rng), family, pieces,
                                  Source("synthetic", f"e{i}", None, "bench", True, "train")))
    keys = [GoalKey(x.goal, x.family, x.id) for x in exemplars]
    return exemplars, keys, families


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exemplars", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    rng = random.Random(7)

    t0 = time.perf_counter()
    embedder = load_embedder(args.embedder)
    load_s = time.perf_counter() - t0
    loads = []
    for _ in range(2):
        t0 = time.perf_counter()
        load_embedder(args.embedder).close()
        loads.append(time.perf_counter() - t0)

    exemplars, keys, families = synthetic_memory(args.exemplars, rng)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memory"
        t0 = time.perf_counter()
        vectors = embedder.embed([k.text for k in keys])
        embed_s = time.perf_counter() - t0
        memory = ExemplarMemory(tuple(exemplars), tuple(keys), vectors, embedder.info)
        memory.save(path)
        build_s = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in path.iterdir())
        t0 = time.perf_counter()
        loaded = ExemplarMemory.load(path, embedder=embedder.info)
        read_s = time.perf_counter() - t0

    retriever = Retriever(loaded, embedder)
    queries = [(family, instance(pattern, rng)) for family, pattern, _ in rng.choices(families, k=args.queries)]
    retriever.retrieve("warm up the session")
    latencies, rank_only, right = [], [], 0
    for family, goal in queries:
        t0 = time.perf_counter()
        found = retriever.retrieve(goal)
        latencies.append(time.perf_counter() - t0)
        right += found.family == family
        query = embedder.embed([goal])[0]
        t0 = time.perf_counter()
        retriever.rank(query)
        rank_only.append(time.perf_counter() - t0)

    ms = [x * 1000 for x in latencies]
    rank_ms = [x * 1000 for x in rank_only]
    print("## Exemplar memory\n")
    print(f"Measured with `python scripts/bench_retrieval.py` on {platform.machine()}, {os.cpu_count()} cores "
          f"(shared), Python {platform.python_version()}; embedder {embedder.info.spec} "
          f"({embedder.info.dimension} dimensions, one onnxruntime thread for minilm); load average "
          f"{os.getloadavg()[0]:.1f} when it ended.\n")
    print(f"A synthetic memory of {len(exemplars):,} exemplars in {len(families)} families "
          f"({len(keys):,} keys, {size / 1e6:.1f} MB on disk); {len(queries)} queries that are new instances of "
          "the families.\n")
    print("| what | figure |\n| --- | --- |")
    print(f"| embedder load (first / again) | {load_s:.2f} s / {statistics.median(loads):.2f} s |")
    print(f"| memory build: embed {len(keys):,} keys | {embed_s:.1f} s ({embed_s / len(keys) * 1000:.2f} ms a key) |")
    print(f"| memory build: embed + write | {build_s:.1f} s |")
    print(f"| memory load (validated) | {read_s:.2f} s |")
    print(f"| query (embed + rank + vote), median / p95 | {statistics.median(ms):.1f} ms / {pct(ms, 0.95):.1f} ms |")
    print(f"| rank + vote alone, median / p95 | {statistics.median(rank_ms):.2f} ms / {pct(rank_ms, 0.95):.2f} ms |")
    print(f"| right family first (floor {DEFAULT_FLOOR}) | {right}/{len(queries)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
