"""The explorer's layout job at scale (issue 24): UMAP of N memories to 3D, then new
memories placed incrementally.

    python -m bench.layout [--memories 25000] [--new 500] [--out bench/results/layout.json]

Writes N synthetic memories through the durable path (embedded engines, the real embedder),
then times the layout job on them: first the one-off compilation of UMAP's numba code that
the first fit in a process pays (``warm_up``), then the job; then writes ``--new`` more and
times the incremental run, checking that no old point moved.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import machine, synthetic_texts, write_json
from core.clock import now
from core.ids import new_id
from core.lifecycle_types import Scope
from core.settings import GraphSettings, Settings
from core.types import NewMemory
from graph.runtime import open_graph
from ingest.lifecycle.context import JobCall, JobContext
from ingest.lifecycle.layout import layout, warm_up
from ingest.write.writer import MemoryWriter
from vectors.factory import build_embedder, build_vector_index

TENANT = "bench"


async def _noop_reprofile(tenant_id: str, ids: Any) -> int:
    return 0


async def _write(writer: MemoryWriter, texts: list[str], batch: int = 500) -> None:
    for lo in range(0, len(texts), batch):
        await writer.remember(TENANT, [NewMemory(content=t) for t in texts[lo : lo + batch]])
        print(f"  wrote {min(lo + batch, len(texts))}/{len(texts)}", flush=True)


async def _timed_layout(ctx: JobContext) -> tuple[dict[str, int], float]:
    start = time.perf_counter()
    counts = await layout(ctx, JobCall(TENANT, Scope(), now(), new_id()))
    return counts, time.perf_counter() - start


async def run(n: int, new: int, data_dir: Path) -> dict[str, Any]:
    settings = Settings(data_dir=data_dir, graph=GraphSettings(heap="2g"))
    runtime = await open_graph(settings)
    embedder = build_embedder(settings.embedder)
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    writer = MemoryWriter(runtime.store, index, embedder, settings.limits)
    ctx = JobContext(writer=writer, settings=settings.lifecycle, reprofile=_noop_reprofile)
    ctx.progress = print
    try:
        print(f"writing {n} memories ...", flush=True)
        await _write(writer, synthetic_texts(n))
        start = time.perf_counter()
        await asyncio.to_thread(warm_up)
        jit_s = time.perf_counter() - start
        print(f"numba compilation (first fit in a process): {jit_s:.1f} s", flush=True)
        full, full_s = await _timed_layout(ctx)
        print(f"full layout of {n}: {full_s:.1f} s {full}", flush=True)
        before = dict(await runtime.store.tenant(TENANT).layout_state())
        await _write(writer, synthetic_texts(new, seed=123))
        incremental, inc_s = await _timed_layout(ctx)
        print(f"incremental layout of {new}: {inc_s:.1f} s {incremental}", flush=True)
        after = dict(await runtime.store.tenant(TENANT).layout_state())
        moved = sum(1 for i, p in before.items() if after.get(i) != p)
        return {
            "machine": machine(),
            "memories": n,
            "first_fit_compilation_seconds": round(jit_s, 2),
            "full": {"seconds": round(full_s, 2), **full},
            "incremental": {"new": new, "seconds": round(inc_s, 2), **incremental},
            "old_points_moved": moved,
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
    p.add_argument("--new", type=int, default=500)
    p.add_argument("--out", type=Path, default=Path("bench/results/layout.json"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="brain-bench-") as tmp:
        result = asyncio.run(run(args.memories, args.new, Path(tmp)))
    print(
        f"compilation {result['first_fit_compilation_seconds']} s, then "
        f"full: {result['full']['seconds']} s for {args.memories}; incremental: "
        f"{result['incremental']['seconds']} s for {args.new}; old points moved: "
        f"{result['old_points_moved']}"
    )
    write_json(args.out, result)


if __name__ == "__main__":
    main()
