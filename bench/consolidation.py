"""Consolidation benchmark on the embedded engines (issue 6: memory lifecycle).

    python -m bench.consolidation [--memories 25000] [--pool 5000] [--turns 200]
                                  [--profile] [--out bench/results/consolidation.json]

Builds one tenant of ``--memories`` memories of mixed types about 200 entities, created over
the last 400 days with random importance (so decay and prune have work), of which:

- planted near-duplicates (8 %): a copy of another memory in other words, same type, scope
  and entities, vector cosine ~0.99 to the original (duplicate merge);
- repeated episodes (10 %): clusters of 5-10 episodes about one entity, 10-120 days old,
  pairwise cosine ~0.87 (episode -> pattern compression);
- working memory: ``--turns`` real turns through ``recordTurn`` in sessions that have expired
  (promotion/expiry at flush);
- the rest distinct.

Like ``bench/retrieval.py``, only ``--pool`` distinct texts are embedded; further memories reuse
a pool vector with noise (cosine ~0.7 to it) and a varied text. Memories go in through the
graph-first path (graph ``indexed=false`` -> vector upsert -> mark indexed).

Then times ``Brain.consolidate`` with every job (the first run does all the work; a second run
shows the steady state) and prints each job's duration, counts and graph statements (round
trips: load independent) with their time. ``--profile`` adds a cProfile of the first run
(top functions by cumulative time).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import random
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from api.brain import Brain
from bench.common import NAMES, ORGS, TOPICS, machine, write_json
from core.clock import now
from core.ingest_types import TurnInput
from core.lifecycle_types import ConsolidationReport, JobRun
from core.settings import GraphSettings, LifecycleSettings, Settings
from core.types import EntityType, Memory, MemoryType, NewMemory
from vectors.payload import payload_of
from vectors.vector_index import VectorPoint

TENANT = "bench-consolidation"
DAY = 86_400.0
Vector = npt.NDArray[np.float64]

# Distinct memories by type (the planted duplicates copy these types).
MIX = [
    (MemoryType.FACT, 0.35),
    (MemoryType.EPISODIC, 0.25),
    (MemoryType.PREFERENCE, 0.10),
    (MemoryType.SEMANTIC, 0.10),
    (MemoryType.PROCEDURAL, 0.05),
    (MemoryType.TASK, 0.05),
    (MemoryType.DOCUMENT, 0.10),
]
SHAPES = [
    "{n} from {o} {v} the {t} for order {k}",
    "{n} said the {t} for {o} is due on day {d}",
    "Yesterday {n} sent the {t} to {o} (ticket {k})",
    "{o} asked {n} to redo the {t}; reference {k}",
    "{n} prefers the {t} for {o} as a short summary, case {k}",
    "How to handle the {t} for {o}: {n} reviews it, then it ships (step list {k})",
    "{n} and {o} agreed to move the {t} to week {d}, ref {k}",
]
VERBS = ["finished", "reviewed", "approved", "rejected", "asked about", "will send", "shipped"]


def texts(n: int, rng: random.Random) -> list[str]:
    return [
        rng.choice(SHAPES).format(
            n=rng.choice(NAMES),
            o=rng.choice(ORGS),
            v=rng.choice(VERBS),
            t=rng.choice(TOPICS),
            k=1000 + i,
            d=rng.randint(1, 52),
        )
        for i in range(n)
    ]


def noisy(base: Vector, sigma: float, rng: np.random.Generator) -> Vector:
    v = base + rng.normal(0.0, sigma, base.shape)
    return v / np.linalg.norm(v)


class Builder:
    """Accumulates memories with their vectors and writes them in batches."""

    def __init__(self, brain: Brain, batch: int = 1000) -> None:
        self.brain = brain
        self.batch = batch
        self.pending: list[tuple[Memory, Vector]] = []
        self.written = 0

    async def add(self, item: NewMemory, vector: Vector) -> Memory:
        memory = self.brain.writer.build(TENANT, item)
        self.pending.append((memory, vector))
        if len(self.pending) >= self.batch:
            await self.flush()
        return memory

    async def flush(self) -> None:
        if not self.pending:
            return
        memories = [m for m, _ in self.pending]
        await self.brain.graph.tenant(TENANT).create_memories(memories)
        await self.brain.index.upsert(
            [
                VectorPoint(
                    id=m.id, dense=[float(x) for x in v], text=m.content, payload=payload_of(m)
                )
                for m, v in self.pending
            ]
        )
        await self.brain.graph.tenant(TENANT).mark_indexed([m.id for m in memories])
        self.written += len(memories)
        self.pending = []
        if self.written % 5000 < self.batch:
            print(f"  {self.written} memories written", flush=True)


async def build(brain: Brain, n: int, pool: int, turns: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    at = now()
    tenant = brain.graph.tenant(TENANT)
    names = [f"{NAMES[i % len(NAMES)]} {ORGS[i % len(ORGS)]} {i}" for i in range(200)]
    entities = [(await tenant.create_entity(name, EntityType.PERSON)).id for name in names]
    pool_texts = texts(pool, rng)
    print(f"embedding {len(pool_texts)} pool texts ...", flush=True)
    start = time.perf_counter()
    pool_vectors = np.asarray(await brain.embedder.embed_documents(pool_texts), dtype=np.float64)
    embed_s = time.perf_counter() - start

    builder = Builder(brain)
    planted = {"duplicates": 0, "episode_clusters": 0, "clustered_episodes": 0, "distinct": 0}
    n_dup = int(0.08 * n)
    n_clustered = int(0.10 * n)
    n_distinct = n - n_dup - n_clustered - turns
    types, weights = zip(*MIX, strict=True)
    distinct: list[tuple[Memory, Vector]] = []
    print(f"writing {n - turns} memories ...", flush=True)
    start = time.perf_counter()
    for i in range(n_distinct):
        j = i % pool
        kind = rng.choices(types, weights)[0]
        vector = pool_vectors[j] if i < pool else noisy(pool_vectors[j], 0.05, nrng)
        text = pool_texts[j] if i < pool else f"{pool_texts[j]} (note {i})"
        memory = await builder.add(
            NewMemory(
                content=text,
                type=kind,
                project_id=rng.choice([None, "p0", "p1", "p2", "p3", "p4"]),
                importance=round(rng.uniform(0.05, 0.9), 3),
                created_at=at - rng.uniform(0, 400) * DAY,
                entity_ids=rng.sample(entities, rng.choice([0, 1, 1, 2])),
                pinned=i < 20,
            ),
            vector,
        )
        distinct.append((memory, vector))
    planted["distinct"] = n_distinct
    for k in range(n_dup):
        original, vector = rng.choice(distinct)
        await builder.add(
            NewMemory(
                content=f"{original.content} (said again)",
                type=original.type,
                user_id=original.user_id,
                project_id=original.project_id,
                importance=round(rng.uniform(0.05, 0.9), 3),
                created_at=at - rng.uniform(0, 400) * DAY,
                entity_ids=list(original.entity_ids),
            ),
            noisy(vector, 0.005, nrng),
        )
        planted["duplicates"] = k + 1
    left = n_clustered
    while left >= 5:
        size = min(left, rng.randint(5, 10))
        k = rng.randrange(len(entities))
        who, name = entities[k], names[k]
        center = pool_vectors[rng.randrange(pool)]
        for _ in range(size):
            topic = rng.choice(TOPICS)
            await builder.add(
                NewMemory(
                    content=f"Checked the {topic} batch for {name} again; it passed review.",
                    type=MemoryType.EPISODIC,
                    importance=round(rng.uniform(0.3, 0.7), 3),
                    created_at=at - rng.uniform(10, 120) * DAY,
                    entity_ids=[who],
                ),
                noisy(center, 0.02, nrng),
            )
        planted["episode_clusters"] += 1
        planted["clustered_episodes"] += size
        left -= size
    await builder.flush()
    write_s = time.perf_counter() - start

    print(f"recording {turns} turns in expired sessions ...", flush=True)
    start = time.perf_counter()
    turn_texts = texts(turns, rng)
    for i, text in enumerate(turn_texts):
        await brain.ingest.turns.record_turn(
            TENANT,
            TurnInput(
                session_id=f"old-{i // 10}",
                content=text,
                at=at - 3 * DAY + (i // 10) * 600 + (i % 10) * 30,
            ),
        )
    turns_s = time.perf_counter() - start
    await brain.ingest.queue.drain(timeout=600)  # profile refreshes the turns queued
    start = time.perf_counter()
    await brain.index.optimize()
    optimize_s = time.perf_counter() - start
    total, unindexed = await tenant.memory_counts()
    return {
        "memories": total,
        "unindexed": unindexed,
        "planted": planted,
        "pool_embedded_texts": pool,
        "embed_pool_s": round(embed_s, 1),
        "write_s": round(write_s, 1),
        "turns": turns,
        "turns_s": round(turns_s, 1),
        "optimize_s": round(optimize_s, 1),
    }


class StatementLog:
    """Counts graph statements (and their time) per job through the store's observer."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.current: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        self.per_job: dict[str, dict[str, list[float]]] = {}
        self._inner: Callable[[str, float], None] | None = brain.graph.observer
        brain.graph.observer = self.observe
        brain.lifecycle.consolidator.on_run = self.job_done

    def observe(self, name: str, seconds: float) -> None:
        entry = self.current[name]
        entry[0] += 1
        entry[1] += seconds
        if self._inner is not None:
            self._inner(name, seconds)

    def job_done(self, run: JobRun) -> None:
        self.per_job[run.job.value] = dict(self.current)
        self.current = defaultdict(lambda: [0, 0.0])

    def close(self) -> None:
        self.brain.graph.observer = self._inner
        self.brain.lifecycle.consolidator.on_run = None


def describe(report: ConsolidationReport, seconds: float, log: StatementLog) -> dict[str, Any]:
    jobs = {}
    for run in report.runs:
        stmts = log.per_job.get(run.job.value, {})
        jobs[run.job.value] = {
            "status": run.status.value,
            "ms": round(run.duration_ms or 0.0, 1),
            "counts": run.counts,
            "error": run.error,
            "graph_statements": int(sum(c for c, _ in stmts.values())),
            "graph_seconds": round(sum(s for _, s in stmts.values()), 2),
            "top_statements": {
                name: {"calls": int(c), "s": round(s, 2)}
                for name, (c, s) in sorted(stmts.items(), key=lambda kv: -kv[1][1])[:5]
            },
        }
    return {"seconds": round(seconds, 2), "ok": report.ok, "jobs": jobs}


async def consolidate(brain: Brain, profile: bool) -> tuple[dict[str, Any], str | None]:
    log = StatementLog(brain)
    profiler = cProfile.Profile() if profile else None
    try:
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        report = await brain.lifecycle.consolidate(
            TENANT, progress=lambda line: print(f"  {line}", flush=True)
        )
        if profiler is not None:
            profiler.disable()
        result = describe(report, time.perf_counter() - start, log)
    finally:
        log.close()
    text = None
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(30)
        text = out.getvalue()
    return result, text


async def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    settings = Settings(
        data_dir=data_dir,
        graph=GraphSettings(heap="2g"),
        lifecycle=LifecycleSettings(scheduler=False),
    )
    brain = await Brain.open(settings)
    try:
        built = await build(brain, args.memories, args.pool, args.turns, args.seed)
        print(f"built: {built}", flush=True)
        load_before = os.getloadavg()
        print("consolidating (all jobs) ...", flush=True)
        first, profile = await consolidate(brain, args.profile)
        load_first = os.getloadavg()
        print("consolidating again (steady state) ...", flush=True)
        second, _ = await consolidate(brain, False)
        live = len(
            await brain.graph.tenant(TENANT).current_memories([t.value for t in MemoryType], now())
        )
    finally:
        await brain.close()
    return {
        "machine": machine(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after_first": [round(x, 2) for x in load_first],
        "build": built,
        "first_run": first,
        "second_run": second,
        "current_live_after": live,
        "profile_top": profile,
    }


def print_table(result: dict[str, Any]) -> None:
    for label in ("first_run", "second_run"):
        r = result[label]
        print(f"\n{label.replace('_', ' ')}: {r['seconds']} s (ok: {r['ok']})")
        print(f"{'job':<20}{'ms':>10}{'graph stmts':>13}{'graph s':>9}  counts")
        for job, j in r["jobs"].items():
            counts = ", ".join(f"{k} {v}" for k, v in j["counts"].items())
            print(
                f"{job:<20}{j['ms']:>10.0f}{j['graph_statements']:>13}"
                f"{j['graph_seconds']:>9}  {counts}"
            )
            if j["error"]:
                print(f"{'':<20}error: {j['error']}")
    print(
        f"\nload average before {result['load_average_before']}, "
        f"after the first run {result['load_average_after_first']}"
    )
    if result["profile_top"]:
        print(result["profile_top"])


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=25_000)
    p.add_argument("--pool", type=int, default=5_000, help="distinct texts actually embedded")
    p.add_argument("--turns", type=int, default=200, help="turns through recordTurn")
    p.add_argument("--seed", type=int, default=6)
    p.add_argument("--profile", action="store_true", help="cProfile the first run")
    p.add_argument("--out", type=Path, default=Path("bench/results/consolidation.json"))
    p.add_argument("--data-dir", type=Path, help="default: a fresh temporary directory")
    args = p.parse_args()
    if args.memories < 1000 or not 100 <= args.pool <= args.memories:
        p.error("--memories >= 1000 and 100 <= --pool <= --memories")
    with tempfile.TemporaryDirectory(prefix="brain-consolidation-") as tmp:
        result = asyncio.run(run(args, args.data_dir or Path(tmp)))
    print_table(result)
    write_json(args.out, result)


if __name__ == "__main__":
    main()
