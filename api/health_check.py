"""The service's health: each engine's status and latency, and the counts of a tenant (or the
index lag of all tenants). Served by GraphQL ``health``, ``GET /health`` and `brain doctor`."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from core.errors import BackendError
from graph.runtime import GraphRuntime
from graph.store import GraphStore
from vectors.vector_index import VectorIndex


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


class HealthCheck:
    """Pings both engines; a failed engine is reported, never raised."""

    def __init__(
        self, graph: GraphStore, index: VectorIndex, runtime: GraphRuntime | None, graph_uri: str
    ) -> None:
        self.graph = graph
        self.index = index
        self._runtime = runtime
        self._graph_uri = graph_uri

    async def check(self, tenant_id: str | None = None) -> Health:
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
        if engines[0].ok:
            try:
                counts = await self._counts(tenant_id)
            except BackendError as e:  # the engine went away after it answered the ping
                engines[0] = EngineStatus("graph", False, None, str(e))
        return Health(ok=all(e.ok for e in engines), engines=engines, **counts)

    async def _counts(self, tenant_id: str | None) -> dict[str, Any]:
        if tenant_id is None:
            return {"unindexed": await self.graph.system.index_lag()}
        tenant = self.graph.tenant(tenant_id)
        (total, unindexed), entities = await asyncio.gather(
            tenant.memory_counts(), tenant.entity_count()
        )
        return {"memories": total, "unindexed": unindexed, "entities": entities}

    def _graph_detail(self) -> str:
        engine = self._runtime.engine if self._runtime else None
        return "embedded ArcadeDB" if engine is not None else self._graph_uri
