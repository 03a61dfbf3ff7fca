"""A large document as a background job beside a tenant's other writes (issue 23).

    python -m bench.document_jobs [--sections 150] [--out bench/results/document_jobs.json]

Opens fresh embedded engines, then ingests a generated Markdown document (``--sections``
sections of ~450 tokens: ~1.2 chunks each) as a background job of one tenant, twice (version
1, then a changed version 2 that supersedes it), while a writer of the same tenant calls
``remember`` every 100 ms. It reports the job's duration, the longest graph statements of the
job (a batch's chunk write; the publish of the version), and ``remember`` latency before and
during the job.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from api.brain import Brain
from bench.common import machine, percentiles, scratch_brain, write_json
from core.ingest_types import DocumentJob, DocumentJobStatus
from core.types import NewMemory

TENANT = "bench-documents"


def document(sections: int, version: int) -> str:
    parts = []
    for k in range(sections):
        body = " ".join(
            f"Shelf {k}-{i} of the Lisbon depot holds crate batch {version * 100000 + k * 60 + i}."
            for i in range(45)
        )
        parts.append(f"## Section {k}\n\n{body}\n")
    return "\n".join(parts)


async def remembers(brain: Brain, stop: asyncio.Event, out: list[float]) -> None:
    i = 0
    while not stop.is_set():
        start = time.perf_counter()
        await brain.memories.remember(
            TENANT, NewMemory(content=f"Delivery {i} arrived at dock {i % 7}")
        )
        out.append((time.perf_counter() - start) * 1000)
        i += 1
        await asyncio.sleep(0.1)


async def one_version(brain: Brain, text: str) -> dict[str, Any]:
    statements: dict[str, list[float]] = defaultdict(list)
    brain.graph.observer = lambda name, s: statements[name].append(s * 1000)
    stop = asyncio.Event()
    latencies: list[float] = []
    writer = asyncio.create_task(remembers(brain, stop, latencies))
    start = time.perf_counter()
    job = await brain.ingest.ingest_document_or_job(TENANT, "depot.md", text)
    assert isinstance(job, DocumentJob)
    await brain.ingest.document_jobs.wait()
    seconds = time.perf_counter() - start
    stop.set()
    await writer
    brain.graph.observer = None
    final = await brain.ingest.document_jobs.get(TENANT, job.id)
    assert final.status is DocumentJobStatus.DONE, final
    slowest = {
        name: round(max(ms), 1)
        for name, ms in statements.items()
        if name.startswith(("ingest_", "memory_"))
    }
    return {
        "chars": len(text),
        "chunks": final.chunks_total,
        "superseded": final.superseded,
        "job_seconds": round(seconds, 1),
        "slowest_statement_ms": dict(sorted(slowest.items(), key=lambda kv: -kv[1])[:6]),
        "remember_during_job": percentiles(latencies) | {"max_ms": round(max(latencies), 1)},
    }


async def run(sections: int) -> dict[str, Any]:
    async with scratch_brain() as brain:
        idle: list[float] = []
        stop = asyncio.Event()
        writer = asyncio.create_task(remembers(brain, stop, idle))
        await asyncio.sleep(5)
        stop.set()
        await writer
        first = await one_version(brain, document(sections, 1))
        second = await one_version(brain, document(sections, 2))
        batch_chunks = brain.settings.ingest.document_batch_chunks
    return {
        "machine": machine(),
        "batch_chunks": batch_chunks,
        "remember_idle": percentiles(idle),
        "version_1": first,
        "version_2": second,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", type=int, default=150)
    parser.add_argument("--out", type=Path, default=Path("bench/results/document_jobs.json"))
    args = parser.parse_args()
    out = asyncio.run(run(args.sections))
    for key in ("remember_idle", "version_1", "version_2"):
        print(key, out[key])
    write_json(args.out, out)


if __name__ == "__main__":
    main()
