"""Kill the process between the durable path's writes and show that nothing is lost.

A child process stores a memory through the real write path against the session's ArcadeDB
and its own Qdrant Edge shard, and is SIGKILLed at a chosen step. This process then opens the
same shard, runs the reconciler, and finds the memory searchable exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from api.brain import Brain
from core.retrieval_types import SearchQuery
from core.settings import GraphSettings, Settings
from graph.launcher import ROOT_USER
from graph.runtime import GraphRuntime
from vectors.embedding.embedder import Embedder
from vectors.factory import build_vector_index

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from core.settings import Settings
    from api.brain import Brain
    from core.types import NewMemory
    import graph.memories, vectors.edge_index

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    if sys.argv[1] == "before-vector":
        vectors.edge_index.EdgeVectorIndex.upsert = die
    else:
        graph.memories.MemoryOps.mark_indexed = die

    async def main():
        brain = await Brain.open(Settings())
        await brain.memories.remember(sys.argv[2], NewMemory(content=sys.argv[3]))
        print("write completed: the kill did not happen", flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("step", ["before-vector", "before-mark-indexed"])
async def test_kill_between_writes_loses_nothing(
    step: str,
    tmp_path: Path,
    embedded_graph: GraphRuntime,
    embedder: Embedder,
    tenant_id: str,
) -> None:
    assert embedded_graph.engine is not None and embedded_graph.engine.info is not None
    info = embedded_graph.engine.info
    env = {
        **os.environ,
        "BRAIN_DATA_DIR": str(tmp_path),
        "BRAIN_GRAPH__URI": info.uri,
        "BRAIN_GRAPH__USER": ROOT_USER,
        "BRAIN_GRAPH__PASSWORD": info.password,
        "BRAIN_RECONCILE_ON_START": "false",
    }
    content = f"The Anderson order ships on Tuesday ({step})"
    child = subprocess.run(
        [sys.executable, "-c", CHILD, step, tenant_id, content],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr

    tenant = embedded_graph.store.tenant(tenant_id)
    stranded = await tenant.unindexed_ids()
    assert len(stranded) == 1, "the graph write must have committed before the kill"
    assert (await tenant.get_memory(stranded[0])).content == content

    settings = Settings(data_dir=tmp_path, graph=GraphSettings(uri=info.uri))
    index = build_vector_index(settings, embedder.dimension)
    await index.open()
    try:
        brain = Brain(settings, embedded_graph.store, index, embedder)
        report = await brain.memories.reconcile([tenant_id])
        assert report.reindexed == 1
        hits = (
            await brain.reads.search(
                tenant_id, SearchQuery(query="when does the Anderson order ship?")
            )
        ).hits
        assert [h.memory.id for h in hits] == stranded
        assert await index.count(tenant_id) == 1
        assert await tenant.unindexed_ids() == []
    finally:
        await index.close()
