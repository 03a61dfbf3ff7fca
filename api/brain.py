"""The application facade: one object that owns the engines and offers every operation.

GraphQL resolvers and the CLI call this; they never touch Cypher or Qdrant. Every method takes
the tenant first, which the API takes from the caller's key.

    brain = await Brain.open(Settings())
    memory = await brain.remember("acme", NewMemory(content="Peter is a writer at WOBS"))
    result = await brain.search("acme", SearchRequest(query="who writes for WOBS?"))
    await brain.close()
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import BackendError
from core.ids import check_id
from core.settings import Settings
from core.types import EraseReport, LineageLink, Memory, NewMemory
from graph.runtime import GraphRuntime, open_graph
from graph.store import GraphStore
from ingest.reconcile import ReconcileReport, reconcile
from ingest.writer import MemoryWriter
from retrieval.embedders import Embedder, build_embedder
from retrieval.factory import build_vector_index
from retrieval.search import SearchRequest, SearchResult, dense_search
from retrieval.vector_index import VectorIndex

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EngineStatus:
    name: str
    ok: bool
    latency_ms: float | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Health:
    ok: bool
    engines: list[EngineStatus]
    memories: int | None = None
    entities: int | None = None
    unindexed: int | None = None  # index lag: memories not yet in the vector index


class Brain:
    """Owns the graph, the vector index and the embedder; offers the operations."""

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        index: VectorIndex,
        embedder: Embedder,
        runtime: GraphRuntime | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.writer = MemoryWriter(graph, index, embedder, settings.limits)
        self._runtime = runtime
        self.started_at = time.time()

    @classmethod
    async def open(cls, settings: Settings) -> Brain:
        """Start or connect to the engines, install the schema and reconcile the index."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        runtime = await open_graph(settings)
        try:
            embedder = build_embedder(settings.embedder)
            index = build_vector_index(settings, embedder.dimension)
            await index.open()
            brain = cls(settings, runtime.store, index, embedder, runtime)
            await brain.embedder.embed_query("warm up")  # load the model now, not on a request
            if settings.reconcile_on_start:
                await brain.reconcile()
            # Before serving: the embedded shard optimizes only when asked, and blocks meanwhile.
            await index.optimize()
        except BaseException:
            await runtime.close()
            raise
        return brain

    async def close(self) -> None:
        await self.index.close()
        await self.embedder.close()
        if self._runtime is not None:
            await self._runtime.close()

    # -- memories ------------------------------------------------------------------------------

    async def remember(self, tenant_id: str, item: NewMemory) -> Memory:
        return (await self.writer.remember(tenant_id, [item]))[0]

    async def remember_many(self, tenant_id: str, items: Sequence[NewMemory]) -> list[Memory]:
        return await self.writer.remember(tenant_id, items)

    async def memory(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.graph.tenant(tenant_id).get_memory(check_id(memory_id))

    async def memories(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Memory]:
        return await self.graph.tenant(tenant_id).get_memories([check_id(i) for i in ids])

    async def supersede(
        self, tenant_id: str, memory_id: str, content: str, reason: str | None = None
    ) -> Memory:
        return await self.writer.supersede(tenant_id, check_id(memory_id), content, reason)

    async def lineage(self, tenant_id: str, memory_id: str) -> list[LineageLink]:
        return await self.graph.tenant(tenant_id).chain(check_id(memory_id))

    async def forget(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.writer.forget(tenant_id, check_id(memory_id))

    async def erase(
        self,
        tenant_id: str,
        memory_ids: Sequence[str] = (),
        entity_id: str | None = None,
        user_id: str | None = None,
    ) -> EraseReport:
        entity = check_id(entity_id, "entityId") if entity_id is not None else None
        return await self.writer.erase(tenant_id, memory_ids, entity, user_id)

    async def search(self, tenant_id: str, request: SearchRequest) -> SearchResult:
        return await dense_search(
            self.graph,
            self.index,
            self.embedder,
            tenant_id,
            request,
            self.settings.limits.max_top_k,
        )

    # -- operations ----------------------------------------------------------------------------

    async def reconcile(self, tenants: Sequence[str] | None = None) -> ReconcileReport:
        return await reconcile(self.writer, tenants)

    async def health(self, tenant_id: str | None = None) -> Health:
        engines: list[EngineStatus] = []
        try:
            ms = await self.graph.ping()
            engines.append(EngineStatus("graph", True, ms, self._graph_detail()))
        except BackendError as e:
            engines.append(EngineStatus("graph", False, None, str(e)))
        try:
            start = time.perf_counter()
            points = await self.index.count(tenant_id)
            ms = (time.perf_counter() - start) * 1000
            engines.append(EngineStatus("vector", True, ms, f"{points} points"))
        except BackendError as e:
            engines.append(EngineStatus("vector", False, None, str(e)))
        counts: dict[str, Any] = {}
        if tenant_id is not None and engines[0].ok:
            tenant = self.graph.tenant(tenant_id)
            (total, unindexed), entities = await asyncio.gather(
                tenant.memory_counts(), tenant.entity_count()
            )
            counts = {"memories": total, "unindexed": unindexed, "entities": entities}
        return Health(ok=all(e.ok for e in engines), engines=engines, **counts)

    def _graph_detail(self) -> str:
        engine = self._runtime.engine if self._runtime else None
        return "embedded ArcadeDB" if engine is not None else self.settings.graph.uri
