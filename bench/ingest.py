"""Ingest benchmark on the embedded engines (issue 3: ingestion and resolution).

    python -m bench.ingest [--memories 25000] [--turns 300] [--locomo-limit 0]
                           [--warmup 120] [--queue] [--out bench/results/ingest.json]

1. Preloads ``--memories`` memories into one tenant through the durable bulk path (batches of
   500, with 200 entities), records turns for ``--warmup`` seconds (not measured; the graph
   engine compiles its hot code meanwhile), freezes the start-up heap as ``brain serve``
   does, then measures ``recordTurn`` p50/p95 over ``--turns`` business-like
   turns spread over sessions — the full synchronous path: resolve (spaCy + alias index +
   context disambiguation), rule extraction, correction planning, one graph transaction,
   embedding the turn and its extractions on CPU, vector upsert, mark indexed. Time spent in
   embedding calls (overlapping the rest) and graph statements per turn are reported too, and
   the CPU each measured turn used by thread, in this process and in the graph engine (its
   "C1/C2 CompilerThre" threads are the JIT: still busy means the warm-up was too short; at
   60 s it still took 5-10 ms of CPU a turn, at 180 s 0.4 ms). The job queue (entity profile
   refreshes the turns schedule) is stopped meanwhile and drained after; with ``--queue`` it
   runs beside the warm-up and the measured turns, as in ``brain serve``.
2. Batch-ingests the shared LoCoMo conversations (/work/shared/data/locomo) turn by turn into a
   fresh tenant with ``recordTurn`` (one session per LoCoMo session) and reports turns/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import (
    NAMES,
    ORGS,
    TOPICS,
    cpu_per_turn,
    forget_query_vectors,
    machine,
    percentiles,
    synthetic_texts,
    thread_cpu,
    write_json,
)
from bench.storage import TimedEmbedder
from core.heap import freeze_startup_heap
from core.ingest_types import Role, TurnInput
from core.settings import GraphSettings, Settings
from core.types import EntityType, MemoryType, NewMemory
from graph.runtime import GraphRuntime, open_graph
from graph.store import GraphStore
from ingest.service import IngestService
from ingest.write.writer import MemoryWriter
from resolution.resolver import Resolver
from vectors.factory import build_embedder, build_vector_index
from vectors.vector_index import VectorIndex

TENANT = "bench-ingest"
LOCOMO = Path("/work/shared/data/locomo")


def business_turns(n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    shapes = [
        lambda: f"{rng.choice(NAMES)} from {rng.choice(ORGS)} sent the {rng.choice(TOPICS)}.",
        lambda: f"{rng.choice(NAMES)} works for {rng.choice(ORGS)}.",
        lambda: f"TODO: send the {rng.choice(TOPICS)} to {rng.choice(ORGS)}",
        lambda: f"Check if {rng.choice(NAMES)}'s {rng.choice(TOPICS)} is ready for review.",
        lambda: f"I prefer short summaries for the {rng.choice(TOPICS)}.",
        lambda: "Thanks, sounds good!",
        lambda: f"Yesterday {rng.choice(NAMES)} finished the {rng.choice(TOPICS)}.",
    ]
    return [rng.choice(shapes)() for _ in range(n)]


def locomo_turns(limit: int) -> list[tuple[str, str, str]]:
    """(session id, speaker, text) of every LoCoMo turn, conversation by conversation."""
    out: list[tuple[str, str, str]] = []
    for path in sorted(LOCOMO.glob("*.json")):
        conv = json.loads(path.read_text())
        conv = conv.get("conversation", conv)
        sessions = sorted(
            (k for k, v in conv.items() if k.startswith("session_") and isinstance(v, list)),
            key=lambda k: int(k.split("_")[1]),
        )
        for key in sessions:
            for turn in conv[key]:
                if turn.get("text"):
                    out.append((f"locomo-{path.stem}-{key}", turn["speaker"], turn["text"]))
    return out[:limit] if limit else out


@dataclass
class Bench:
    """The ingest side on the embedded engines, as ``brain serve`` builds it."""

    runtime: GraphRuntime
    embedder: TimedEmbedder
    index: VectorIndex
    service: IngestService
    writer: MemoryWriter

    @property
    def graph(self) -> GraphStore:
        return self.runtime.store


@contextlib.asynccontextmanager
async def ingest_bench(data_dir: Path) -> AsyncIterator[Bench]:
    """Open the graph, the embedder, the vector index, the resolver and the ingest service in
    ``data_dir``; close them all on the way out."""
    settings = Settings(data_dir=data_dir, graph=GraphSettings(heap="2g"))
    runtime = await open_graph(settings)
    embedder = TimedEmbedder(build_embedder(settings.embedder))
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    graph = runtime.store
    resolver = Resolver(graph, embedder, settings.resolution)  # type: ignore[arg-type]
    await resolver.load()
    service = IngestService.build(
        settings,
        graph,
        index,
        embedder,
        resolver,  # type: ignore[arg-type]
        profile_refresh=resolver.refresh_profiles,
    )
    writer = MemoryWriter(graph, index, embedder, settings.limits)  # type: ignore[arg-type]
    try:
        yield Bench(runtime, embedder, index, service, writer)
    finally:
        await service.stop()
        await index.close()
        await embedder.close()
        await runtime.close()


async def preload(bench: Bench, n: int) -> float:
    """``n`` memories about 200 people in ``TENANT`` through the durable bulk path (batches
    of 500); returns the seconds it took."""
    rng = random.Random(3)
    tenant = bench.graph.tenant(TENANT)
    people = [
        await tenant.create_entity(f"{NAMES[i % len(NAMES)]} {i}", EntityType.PERSON)
        for i in range(200)
    ]
    print(f"preloading {n} memories ...", flush=True)
    start = time.perf_counter()
    texts = synthetic_texts(n)
    for lo in range(0, n, 500):
        items = [
            NewMemory(
                content=t,
                type=rng.choice([MemoryType.FACT, MemoryType.EPISODIC]),
                entity_ids=[rng.choice(people).id],
            )
            for t in texts[lo : lo + 500]
        ]
        await bench.writer.remember(TENANT, items)
    seconds = time.perf_counter() - start
    print(f"  preloaded in {seconds:.1f}s", flush=True)
    await bench.index.optimize()
    return seconds


async def warm_up(bench: Bench, seconds: float) -> int:
    """Turns for ``seconds``, not measured, in sessions the measured turns never use (a
    fresh graph engine compiles its hot code during its first few hundred statements, see
    bench/retrieval.py, which a long-running service pays once); then the start-up heap is
    frozen as ``brain serve`` does before serving. Returns the turns recorded."""
    warm = 0
    deadline = time.monotonic() + seconds
    texts = itertools.chain.from_iterable(
        business_turns(500, seed=11 + k) for k in itertools.count()
    )
    for text in texts:
        if time.monotonic() >= deadline:
            break
        turn = TurnInput(session_id=f"warm-up-{warm // 20}", user_id="u", content=text)
        await bench.service.turns.record_turn(TENANT, turn)
        warm += 1
    freeze_startup_heap()
    return warm


async def run(
    n: int, turns: int, locomo_limit: int, data_dir: Path, warmup: float, queue: bool = False
) -> dict[str, Any]:
    async with ingest_bench(data_dir) as bench:
        graph, embedder, service = bench.graph, bench.embedder, bench.service
        preload_s = await preload(bench, n)
        if queue:  # profile refreshes run beside the turns, as in ``brain serve``
            await service.start(tenants=[TENANT])
        warm = await warm_up(bench, warmup)
        samples: list[float] = []
        embed: list[float] = []
        trips: list[int] = []
        load_before = os.getloadavg()[0]
        engine = bench.runtime.engine
        engine_pid = engine.info.pid if engine is not None and engine.info is not None else None
        cpu_before: dict[str, dict[str, float]] = {}
        for i, text in enumerate(business_turns(turns + 20)):
            if i == 20:  # warm-up excluded
                cpu_before = _cpu(engine_pid)
            before, sent = embedder.seconds, graph.round_trips
            forget_query_vectors(embedder)
            t0 = time.perf_counter()
            await service.turns.record_turn(
                TENANT, TurnInput(session_id=f"bench-{i // 20}", user_id="u", content=text)
            )
            if i >= 20:  # warm-up excluded
                samples.append((time.perf_counter() - t0) * 1000)
                embed.append((embedder.seconds - before) * 1000)
                trips.append(graph.round_trips - sent)
        load_after = os.getloadavg()[0]
        cpu = {k: cpu_per_turn(cpu_before[k], v, turns) for k, v in _cpu(engine_pid).items()}
        record = percentiles(samples)
        print(f"recordTurn at {n} memories: {record}", flush=True)

        if not queue:
            await service.start(tenants=[TENANT])  # profile refresh runs in the background
        await service.queue.drain(timeout=600)
        await service.stop()

        rows = locomo_turns(locomo_limit)
        print(f"batch-ingesting {len(rows)} LoCoMo turns ...", flush=True)
        start = time.perf_counter()
        for k, (session, speaker, text) in enumerate(rows):
            role = Role.USER if k % 2 == 0 else Role.ASSISTANT
            await service.turns.record_turn(
                "bench-locomo",
                TurnInput(session_id=session, speaker=speaker, role=role, content=text),
            )
        locomo_s = time.perf_counter() - start
        return {
            "machine": machine(),
            "load_average_1m_at_end": round(os.getloadavg()[0], 2),  # other work on the box
            "memories": n,
            "preload_seconds": round(preload_s, 1),
            "warmup_seconds": warmup,
            "warmup_turns": warm,
            "job_queue_during_turns": queue,
            "record_turn": record,
            # Time inside embedding calls; they overlap the graph work (the turn's own text
            # is embedded while it is resolved), so this is not a share of the total.
            "record_turn_embedding": percentiles(embed),
            "record_turn_graph_statements": round(sum(trips) / len(trips), 2),
            "load_average_1m_during_record_turn": [round(load_before, 2), round(load_after, 2)],
            # CPU per measured turn by thread; "C1/C2 CompilerThre" in the engine: its JIT
            # still compiling (the warm-up was too short for a steady state).
            "record_turn_cpu_ms_per_turn": cpu,
            "locomo": {
                "turns": len(rows),
                "seconds": round(locomo_s, 1),
                "turns_per_s": round(len(rows) / locomo_s, 1),
            },
        }


def _cpu(engine_pid: int | None) -> dict[str, dict[str, float]]:
    found = {"service": thread_cpu(os.getpid())}
    if engine_pid is not None:
        found["engine"] = thread_cpu(engine_pid)
    return found


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=25_000)
    p.add_argument("--turns", type=int, default=300)
    p.add_argument("--locomo-limit", type=int, default=0, help="0: every LoCoMo turn")
    p.add_argument("--out", type=Path, default=Path("bench/results/ingest.json"))
    p.add_argument("--data-dir", type=Path, help="default: a fresh temporary directory")
    p.add_argument("--warmup", type=float, default=120.0, help="seconds of unmeasured turns first")
    p.add_argument(
        "--queue", action="store_true", help="run the job queue beside the turns (brain serve)"
    )
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-bench-") as tmp:
        result = asyncio.run(
            run(
                args.memories,
                args.turns,
                args.locomo_limit,
                args.data_dir or Path(tmp),
                args.warmup,
                args.queue,
            )
        )
    r, e = result["record_turn"], result["record_turn_embedding"]
    print(f"\n{'metric':<36}{'p50 ms':>10}{'p95 ms':>10}")
    label = f"recordTurn @ {result['memories']} memories"
    print(f"{label:<36}{r['p50_ms']:>10}{r['p95_ms']:>10}")
    print(f"{'  time in embedding calls':<36}{e['p50_ms']:>10}{e['p95_ms']:>10}")
    print(f"graph statements per recordTurn: {result['record_turn_graph_statements']}")
    print(f"load average (1 min) before/after: {result['load_average_1m_during_record_turn']}")
    for side, threads in result["record_turn_cpu_ms_per_turn"].items():
        top = ", ".join(f"{k} {v}" for k, v in list(threads.items())[:4])
        print(f"CPU ms per turn, {side}: {round(sum(threads.values()), 1)} ({top})")
    lo = result["locomo"]
    print(f"LoCoMo batch ingest: {lo['turns']} turns in {lo['seconds']} s", end=" ")
    print(f"= {lo['turns_per_s']} turns/s")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
