"""Storage benchmark on the embedded engines (issue: foundation).

    python -m bench.storage [--memories 25000] [--out bench/results/storage.json]

Measures, at N memories: batch write throughput through the durable path (graph → vector →
mark indexed) with and without embedding time; p50/p95 of entity-by-alias lookup, lineage of
a 10-link supersede chain, and filtered hybrid top-10 (engine time; query embedding reported
separately).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import machine, percentiles, synthetic_texts, write_json
from core.clock import now
from core.settings import GraphSettings, Settings
from core.types import EntityType, MemoryType, NewMemory
from graph.runtime import open_graph
from ingest.write.writer import MemoryWriter
from vectors.embedding.embedder import Embedder
from vectors.factory import build_embedder, build_vector_index
from vectors.vector_index import VectorFilter

TENANT = "bench"


class TimedEmbedder:
    """Wraps the real embedder to account for the time spent embedding."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.dimension = inner.dimension
        self.seconds = 0.0

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return await self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start

    async def embed_query(self, text: str) -> list[float]:
        return await self.inner.embed_query(text)

    async def close(self) -> None:
        await self.inner.close()


async def _timed(samples: list[float], coro: Any) -> Any:
    start = time.perf_counter()
    result = await coro
    samples.append((time.perf_counter() - start) * 1000)
    return result


async def run(n: int, batch: int, queries: int, data_dir: Path) -> dict[str, Any]:
    settings = Settings(data_dir=data_dir, graph=GraphSettings(heap="2g"))
    runtime = await open_graph(settings)
    embedder = TimedEmbedder(build_embedder(settings.embedder))
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    writer = MemoryWriter(runtime.store, index, embedder, settings.limits)  # type: ignore[arg-type]
    tenant = runtime.store.tenant(TENANT)
    rng = random.Random(11)
    try:
        # Entities to link and look up.
        people = []
        for i in range(200):
            people.append(
                await tenant.create_entity(f"Person {i}", EntityType.PERSON, aliases=[f"P{i}"])
            )
        texts = synthetic_texts(n)
        print(f"writing {n} memories in batches of {batch} ...", flush=True)
        start = time.perf_counter()
        for lo in range(0, n, batch):
            items = [
                NewMemory(
                    content=t,
                    type=rng.choice([MemoryType.FACT, MemoryType.EPISODIC, MemoryType.PREFERENCE]),
                    project_id=f"p{rng.randint(0, 4)}",
                    entity_ids=[rng.choice(people).id],
                )
                for t in texts[lo : lo + batch]
            ]
            await writer.remember(TENANT, items)
            if (lo // batch) % 10 == 0:
                done = lo + len(items)
                print(f"  {done}/{n} ({done / (time.perf_counter() - start):.0f}/s)", flush=True)
        total = time.perf_counter() - start
        write = {
            "memories": n,
            "batch": batch,
            "seconds": round(total, 2),
            "embedding_seconds": round(embedder.seconds, 2),
            "per_s_with_embedding": round(n / total, 1),
            "per_s_excluding_embedding": round(n / (total - embedder.seconds), 1),
        }
        print(f"write path: {write}")

        # 10-link supersede chains.
        chain_heads = []
        for c in range(20):
            first = (await writer.remember(TENANT, [NewMemory(content=f"chain {c} version 0")]))[0]
            current = first
            for v in range(1, 10):
                current = await writer.supersede(
                    TENANT, current.id, f"chain {c} version {v}", "update"
                )
            chain_heads.append(rng.choice([first.id, current.id]))

        alias_ms: list[float] = []
        for _ in range(queries):
            await _timed(alias_ms, tenant.find_by_alias(f"p{rng.randint(0, 199)}"))
        lineage_ms: list[float] = []
        for _ in range(queries):
            links = await _timed(lineage_ms, tenant.chain(rng.choice(chain_heads)))
            assert len(links) == 10
        questions = synthetic_texts(queries, seed=99)
        embed_ms: list[float] = []
        vectors = [await _timed(embed_ms, embedder.embed_query(q)) for q in questions]
        hybrid_ms: list[float] = []
        at = now()
        for q, v in zip(questions, vectors, strict=True):
            flt = VectorFilter(
                tenant_id=TENANT, types=["fact", "preference"], project_id="p1", live_at=at
            )
            await _timed(hybrid_ms, index.hybrid_search(v, q, flt, 10))
        return {
            "machine": machine(),
            "memories": n,
            "write": write,
            "alias_lookup": percentiles(alias_ms),
            "lineage_10_links": percentiles(lineage_ms),
            "hybrid_top10_filtered": percentiles(hybrid_ms),
            "query_embedding": percentiles(embed_ms),
        }
    finally:
        await index.close()
        await embedder.close()
        await runtime.close()


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=25_000)
    p.add_argument("--batch", type=int, default=500)
    p.add_argument("--queries", type=int, default=500)
    p.add_argument("--out", type=Path, default=Path("bench/results/storage.json"))
    p.add_argument("--data-dir", type=Path, help="default: a fresh temporary directory")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-bench-") as tmp:
        result = asyncio.run(
            run(args.memories, args.batch, args.queries, args.data_dir or Path(tmp))
        )
    print(f"\n{'metric':<28}{'p50 ms':>10}{'p95 ms':>10}")
    for key in ("alias_lookup", "lineage_10_links", "hybrid_top10_filtered", "query_embedding"):
        print(f"{key:<28}{result[key]['p50_ms']:>10}{result[key]['p95_ms']:>10}")
    w = result["write"]
    print(
        f"write path: {w['per_s_with_embedding']}/s with embedding, "
        f"{w['per_s_excluding_embedding']}/s excluding embedding"
    )
    write_json(args.out, result)


if __name__ == "__main__":
    main()
