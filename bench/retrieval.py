"""Retrieval latency benchmark on the embedded engines (issue: retrieval and context).

    python -m bench.retrieval [--memories 25000] [--large 250000] [--pool 25000]
                              [--queries 300] [--warmup 30] [--out bench/results/retrieval.json]

One tenant is preloaded through the graph-first path (graph with indexed=false, vectors,
mark indexed) with synthetic business memories about 200 people in 500 sessions, 20 pinned
ones; the vector shard is optimized; searches and contexts run for ``--warmup`` seconds, not
measured (the graph engine compiles its hot code meanwhile), and the start-up heap is frozen
as ``brain serve`` does (``core/heap.py``); then a single client runs ``Retriever.search`` (top-10,
with one entity and the session's turns, query embedding included) and
``ContextAssembler.assemble`` (default 4,400-token budget, 10 recent turns; another query
text, so it embeds its own) and we report p50/p95. Then the same through the facade
(``brain.reads.search`` / ``brain.reads.assemble_context``) as the API runs them: the query's names
parsed and resolved, the session's working memory and tracker read from the graph (a session
of 10 recorded turns), confirmed tasks; graph statements per search are reported too.
``--large`` then grows the same tenant and measures again. The 1-minute load average is
recorded with every run (other work on the machine inflates every figure).

Embedding runs at ~150-200 texts/s on this CPU, so only ``--pool`` distinct texts are
embedded; beyond the pool, memories reuse a pool vector with small random noise and a text
variation (new order number, day). The output says how many memories have such vectors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from api.brain import Brain
from bench.common import (
    NAMES,
    ORGS,
    TOPICS,
    forget_query_vectors,
    machine,
    percentiles,
    synthetic_texts,
    write_json,
)
from core.clock import now
from core.heap import freeze_startup_heap
from core.ids import new_id
from core.ingest_types import TurnInput
from core.retrieval_types import ContextRequest, SearchQuery
from core.settings import GraphSettings, Settings
from core.text import content_hash
from core.tokens import token_counter
from core.types import DecayClass, EntityType, Memory, MemoryType, NewMemory
from graph.runtime import open_graph
from ingest.write.writer import MemoryWriter
from retrieval.access import AccessRecorder
from retrieval.assembly import ContextAssembler
from retrieval.retriever import Retriever
from vectors.factory import build_embedder, build_vector_index
from vectors.payload import payload_of
from vectors.vector_index import VectorPoint

TENANT = "bench-retrieval"
DAY = 86_400.0


async def preload(
    writer: MemoryWriter,
    people: list[str],
    pool_texts: list[str],
    pool_vectors: np.ndarray,
    start: int,
    stop: int,
    rng: random.Random,
    batch: int = 1000,
) -> None:
    """Memories start..stop-1: pool texts (and vectors) first, then noisy variations."""
    tenant = writer.graph.tenant(TENANT)
    t0 = now()
    for lo in range(start, stop, batch):
        memories, vectors = [], []
        for i in range(lo, min(stop, lo + batch)):
            j = i % len(pool_texts)
            text = pool_texts[j] if i < len(pool_texts) else f"{pool_texts[j]} (ref {i})"
            vec = pool_vectors[j]
            if i >= len(pool_texts):
                vec = vec + np.random.default_rng(i).normal(0, 0.02, vec.shape)
                vec = vec / np.linalg.norm(vec)
            kind = rng.choice([MemoryType.FACT, MemoryType.EPISODIC, MemoryType.PREFERENCE])
            item = NewMemory(
                content=text,
                type=kind,
                project_id=f"p{rng.randint(0, 4)}",
                session_id=f"s{i % 500}",
                created_at=t0 - rng.uniform(0, 400) * DAY,
                entity_ids=[rng.choice(people)],
                pinned=i < 20,
                importance=rng.random(),
            )
            memories.append(writer.build(TENANT, item))
            vectors.append([float(x) for x in vec])
        await tenant.create_memories(memories)
        await writer.index.upsert(
            [
                VectorPoint(id=m.id, dense=v, text=m.content, payload=payload_of(m))
                for m, v in zip(memories, vectors, strict=True)
            ]
        )
        await tenant.mark_indexed([m.id for m in memories])
        done = min(stop, lo + batch)
        step = max(batch, (stop - start) // 10)  # about ten progress lines, and the last
        if done == stop or (done - start) // step != (lo - start) // step:
            print(f"  loaded {done}/{stop}", flush=True)


def turns(rng: random.Random, session: str) -> tuple[Memory, ...]:
    t = now()
    out = []
    for i in range(10):
        text = f"user: {rng.choice(NAMES)} asked about the {rng.choice(TOPICS)} again"
        out.append(
            Memory(
                id=new_id(),
                tenant_id=TENANT,
                type=MemoryType.WORKING,
                content=text,
                session_id=session,
                created_at=t - 600 + i * 60,
                valid_from=t - 600 + i * 60,
                content_hash=content_hash(text),
                decay_class=DecayClass.FAST,
            )
        )
    return tuple(out)


async def measure(
    retriever: Retriever,
    assembler: ContextAssembler,
    people: list[str],
    queries: int,
    rng: random.Random,
) -> dict[str, Any]:
    # Distinct texts for every search and every assembly, and the query-vector cache emptied
    # before each: every request embeds its query.
    combos = [(a, o, t) for a in NAMES for o in ORGS for t in TOPICS]
    picked = rng.sample(combos, 2 * (queries + 20))
    texts = [f"What did {a} from {o} say about the {t}?" for a, o, t in picked]
    questions = list(zip(texts[::2], texts[1::2], strict=True))
    search_ms: list[float] = []
    context_ms: list[float] = []
    candidates: list[int] = []
    for n, (q, q2) in enumerate(questions):
        recent = turns(rng, f"s{n % 500}")
        entity = (rng.choice(people),)
        forget_query_vectors(retriever.embedder)
        start = time.perf_counter()
        response = await retriever.search(
            TENANT, SearchQuery(query=q, top_k=10, entity_ids=entity, recent_turns=recent)
        )
        elapsed = (time.perf_counter() - start) * 1000
        forget_query_vectors(retriever.embedder)
        start = time.perf_counter()
        ctx = await assembler.assemble(
            TENANT,
            ContextRequest(
                session_id=f"s{n % 500}", query=q2, entity_ids=entity, recent_turns=recent
            ),
        )
        assembled = (time.perf_counter() - start) * 1000
        assert ctx.total_tokens <= ctx.token_budget and response.hits
        if n >= 20:  # warm-up excluded
            search_ms.append(elapsed)
            context_ms.append(assembled)
            candidates.append(response.metadata.post_filter_count)
    return {
        "search": percentiles(search_ms),
        "assemble_context": percentiles(context_ms),
        "mean_candidates_scored": round(sum(candidates) / len(candidates), 1),
    }


async def measure_facade(brain: Brain, queries: int, rng: random.Random) -> dict[str, Any]:
    """search and assembleContext through the facade, in a session of 10 recorded turns;
    each query names one of the tenant's people (resolved by exact alias)."""
    session = "bench-facade"
    for i in range(10):
        text = f"{rng.choice(NAMES)} asked about the {rng.choice(TOPICS)} for order {i}."
        await brain.ingest.turns.record_turn(
            TENANT, TurnInput(session_id=session, user_id="u", content=text)
        )
    combos = [(i, t) for i in range(200) for t in TOPICS]
    picked = rng.sample(combos, 2 * (queries + 20))
    texts = [f"What did Person {i} say about the {t}?" for i, t in picked]
    questions = list(zip(texts[::2], texts[1::2], strict=True))
    search_ms: list[float] = []
    context_ms: list[float] = []
    trips: list[int] = []
    for n, (q, q2) in enumerate(questions):
        before = brain.graph.round_trips
        forget_query_vectors(brain.embedder)
        start = time.perf_counter()
        response = await brain.reads.search(
            TENANT, SearchQuery(query=q, top_k=10, session_id=session)
        )
        elapsed = (time.perf_counter() - start) * 1000
        searched = brain.graph.round_trips - before
        forget_query_vectors(brain.embedder)
        start = time.perf_counter()
        ctx = await brain.reads.assemble_context(TENANT, session, query=q2)
        assembled = (time.perf_counter() - start) * 1000
        assert ctx.total_tokens <= ctx.token_budget and response.hits
        if n >= 20:  # warm-up excluded
            search_ms.append(elapsed)
            context_ms.append(assembled)
            trips.append(searched)
    return {
        "search": percentiles(search_ms),
        "assemble_context": percentiles(context_ms),
        "graph_statements_per_search": round(sum(trips) / len(trips), 2),
    }


async def warm_up(brain: Brain, seconds: float, rng: random.Random) -> int:
    """Searches and contexts through the facade for ``seconds``, not measured, on texts the
    measured runs never send. A fresh graph engine compiles its hot code during its first
    few hundred reads: over the first 150 searches it used 42 ms of CPU a search, 5-11 ms
    after 300 (``docs/BENCHMARKS.md``). A long-running service pays that once."""
    session = "bench-warm-up"
    deadline = time.monotonic() + seconds
    done = 0
    while time.monotonic() < deadline:
        text = f"Did Person {rng.randrange(200)} mention the {rng.choice(TOPICS)} on day {done}?"
        forget_query_vectors(brain.embedder)
        if done % 2:
            await brain.reads.assemble_context(TENANT, session, query=text)
        else:
            await brain.reads.search(TENANT, SearchQuery(query=text, top_k=10, session_id=session))
        done += 1
    return done


async def run(
    n: int, large: int | None, pool: int, queries: int, data_dir: Path, warmup: float
) -> dict[str, Any]:
    settings = Settings(data_dir=data_dir, graph=GraphSettings(heap="2g"))
    runtime = await open_graph(settings)
    embedder = build_embedder(settings.embedder)
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    writer = MemoryWriter(runtime.store, index, embedder, settings.limits)
    access = AccessRecorder(runtime.store, settings.retrieval.access_flush_seconds)
    retriever = Retriever(
        runtime.store, index, embedder, settings.retrieval, settings.limits, access
    )
    assembler = ContextAssembler(retriever, token_counter())
    brain = Brain(settings, runtime.store, index, embedder)
    await brain.resolver.load()
    rng = random.Random(5)
    out: dict[str, Any] = {"machine": machine(), "pool_embedded_texts": 0, "runs": []}
    try:
        tenant = runtime.store.tenant(TENANT)
        people = [
            (await tenant.create_entity(f"Person {i}", EntityType.PERSON)).id for i in range(200)
        ]
        pool_texts = synthetic_texts(min(pool, n))
        print(f"embedding {len(pool_texts)} pool texts ...", flush=True)
        start = time.perf_counter()
        pool_vectors = np.array(await embedder.embed_documents(pool_texts))
        out["pool_embedded_texts"] = len(pool_texts)
        out["pool_embedding_s"] = round(time.perf_counter() - start, 1)
        loaded = 0
        for size in [n, *([large] if large else [])]:
            print(f"preloading to {size} memories ...", flush=True)
            start = time.perf_counter()
            await preload(writer, people, pool_texts, pool_vectors, loaded, size, rng)
            loaded = size
            load_s = time.perf_counter() - start
            start = time.perf_counter()
            await index.optimize()
            optimize_s = time.perf_counter() - start
            warm = await warm_up(brain, warmup, rng) if warmup > 0 else 0
            freeze_startup_heap()  # as `brain serve` does before serving
            load_before = os.getloadavg()[0]
            result = await measure(retriever, assembler, people, queries, rng)
            facade = await measure_facade(brain, queries, rng)
            run_out = {
                "memories": size,
                "memories_with_reused_pool_vectors": max(0, size - len(pool_texts)),
                "load_s": round(load_s, 1),
                "optimize_s": round(optimize_s, 1),
                "warmup_s": warmup,
                "warmup_requests": warm,
                **result,
                "facade": facade,
                "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            }
            out["runs"].append(run_out)
            for label, r in (("retriever", result), ("facade", facade)):
                print(
                    f"{size:>8} memories, {label}: search p50 {r['search']['p50_ms']} ms "
                    f"p95 {r['search']['p95_ms']} ms | assembleContext p50 "
                    f"{r['assemble_context']['p50_ms']} ms "
                    f"p95 {r['assemble_context']['p95_ms']} ms",
                    flush=True,
                )
            print(f"  load average (1 min) before/after: {run_out['load_average_1m']}")
    finally:
        await brain.access.close()
        await access.close()
        await index.close()
        await embedder.close()
        await runtime.close()
    return out


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=25_000)
    p.add_argument("--large", type=int, default=None, help="e.g. 250000")
    p.add_argument("--pool", type=int, default=25_000, help="distinct texts actually embedded")
    p.add_argument("--queries", type=int, default=300)
    p.add_argument(
        "--warmup", type=float, default=30.0, help="seconds of unmeasured requests first"
    )
    p.add_argument("--out", type=Path, default=Path("bench/results/retrieval.json"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-retrieval-") as tmp:
        result = asyncio.run(
            run(args.memories, args.large, args.pool, args.queries, Path(tmp), args.warmup)
        )
    write_json(args.out, result)


if __name__ == "__main__":
    main()
