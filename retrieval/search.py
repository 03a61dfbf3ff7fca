"""Plain dense search: embed the query, search the tenant's current memories, hydrate in one
graph round trip. The multi-path pipeline builds on this; it is also the "dense" baseline."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.clock import now
from core.errors import InvalidInput
from core.types import Hit, MemoryType
from retrieval.embedders import Embedder
from retrieval.vector_index import VectorFilter, VectorIndex

if TYPE_CHECKING:
    from graph.store import GraphStore


@dataclass(frozen=True)
class SearchRequest:
    query: str
    top_k: int = 10
    types: tuple[MemoryType, ...] | None = None
    project_id: str | None = None
    since: float | None = None
    until: float | None = None
    as_of: float | None = None


@dataclass
class SearchResult:
    hits: list[Hit]
    candidates_per_path: dict[str, int] = field(default_factory=dict)
    post_filter_count: int = 0
    latency_ms: float = 0.0


async def dense_search(
    graph: GraphStore,
    index: VectorIndex,
    embedder: Embedder,
    tenant_id: str,
    request: SearchRequest,
    max_top_k: int = 100,
) -> SearchResult:
    """Top-k current (or as-of) memories by cosine similarity."""
    start = time.perf_counter()
    if not request.query or not request.query.strip():
        raise InvalidInput("query must not be empty", field="query")
    if not 1 <= request.top_k <= max_top_k:
        raise InvalidInput(f"topK must be between 1 and {max_top_k}", field="topK")
    at = now()
    flt = VectorFilter(
        tenant_id=tenant_id,
        types=[t.value for t in request.types] if request.types else None,
        project_id=request.project_id,
        since=request.since,
        until=request.until,
        as_of=request.as_of,
        live_at=at,
    )
    vector = await embedder.embed_query(request.query)
    scored = await index.dense_search(vector, flt, request.top_k)
    memories = await graph.tenant(tenant_id).get_memories([s.id for s in scored])
    hits = [
        Hit(
            memory=memories[s.id],
            score=s.score,
            paths=("SEMANTIC",),
            signals={"similarity": s.score},
        )
        for s in scored
        if s.id in memories  # a point the reconciler has not yet removed is never served
    ]
    return SearchResult(
        hits=hits,
        candidates_per_path={"SEMANTIC": len(scored)},
        post_filter_count=len(hits),
        latency_ms=(time.perf_counter() - start) * 1000,
    )
