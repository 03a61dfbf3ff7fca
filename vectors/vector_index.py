"""The VectorIndex interface: dense + BM25 sparse vectors of memories, filtered by tenant.

The graph is the system of record; this index is derived from it and can be rebuilt. Each
point's id is the memory id. Two implementations hold the same contract
(``tests/integration/test_vector_contract.py``): Qdrant Edge in-process (embedded default) and
a Qdrant server through ``qdrant-client``.

Payload fields (all indexed): ``tenant_id`` (keyword, tenant index), ``type``, ``project_id``,
``user_id``, ``session_id``, ``entity_ids`` (keywords), ``created_at``, ``valid_from``,
``superseded_at``, ``expires_at``, ``importance`` (floats), ``pinned`` (bool). Times are epoch
seconds; "never" is ``core.clock.NEVER`` so every time filter is a plain range.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

PAYLOAD_KEYWORDS = ("tenant_id", "type", "project_id", "user_id", "session_id", "entity_ids")
PAYLOAD_FLOATS = ("created_at", "valid_from", "superseded_at", "expires_at", "importance")
PAYLOAD_BOOLS = ("pinned",)

DENSE = "dense"
SPARSE = "bm25"


@dataclass(frozen=True)
class VectorPoint:
    """One memory to index: ``text`` is BM25-encoded by the index itself."""

    id: str
    dense: Sequence[float]
    text: str
    payload: Mapping[str, Any]  # must hold tenant_id


@dataclass(frozen=True)
class VectorFilter:
    """Which points a query may see. ``tenant_id`` is mandatory: there is no cross-tenant query.

    ``as_of`` selects the versions valid at that time (valid_from <= as_of < superseded_at);
    without it only current versions match (superseded_at == NEVER) unless
    ``include_superseded``. ``live_at`` hides soft-deleted / expired points (expires_at > live_at).
    """

    tenant_id: str
    types: Sequence[str] | None = None
    project_id: str | None = None
    user_id: str | None = None
    # This user's points and the points shared with the tenant (no user_id): user scope.
    user_scope: str | None = None
    session_id: str | None = None
    entity_ids: Sequence[str] | None = None  # any of
    since: float | None = None  # created_at >= since
    until: float | None = None  # created_at <= until
    as_of: float | None = None
    live_at: float | None = None
    include_superseded: bool = False
    ids: Sequence[str] | None = None  # restrict to these point ids


@dataclass(frozen=True)
class NeighborWindow:
    """Look for points of ``session_id`` created within [lo, hi] around ``seed``, which was
    created at ``at``."""

    seed: str
    session_id: str
    at: float
    lo: float
    hi: float


@dataclass(frozen=True)
class ScoredId:
    id: str
    score: float
    payload: Mapping[str, Any] = field(default_factory=dict)


class VectorIndex(Protocol):
    """Dense + sparse memory vectors. Every call is scoped to one tenant."""

    dimension: int

    async def open(self) -> None:
        """Create the collection / shard and payload indexes if missing (idempotent)."""

    async def close(self) -> None: ...

    async def optimize(self) -> bool:
        """Build indexes after bulk changes (start-up, jobs). Returns whether work was done;
        a server that optimizes by itself returns False."""

    async def compact(self) -> bool:
        """Rewrite storage so that deleted points leave no bytes on disk (after an erase).
        Returns whether it could: a server manages its own files (see docs/OPERATIONS.md on what
        an operator does there) and returns False."""

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points (idempotent by id)."""

    async def set_payload(
        self, tenant_id: str, ids: Sequence[str], payload: Mapping[str, Any]
    ) -> None:
        """Merge ``payload`` into the given points of this tenant."""

    async def delete(self, tenant_id: str, ids: Sequence[str]) -> None:
        """Delete these points if they belong to the tenant; other tenants' ids are ignored."""

    async def delete_by_filter(self, flt: VectorFilter) -> None: ...

    async def dense_search(
        self, vector: Sequence[float], flt: VectorFilter, limit: int, payload: bool = True
    ) -> list[ScoredId]:
        """Nearest points by cosine; ``payload=False`` leaves ``ScoredId.payload`` empty."""

    async def keyword_search(
        self, text: str, flt: VectorFilter, limit: int, payload: bool = True
    ) -> list[ScoredId]:
        """BM25 over the sparse vectors (IDF applied by the engine)."""

    async def hybrid_search(
        self, vector: Sequence[float], text: str, flt: VectorFilter, limit: int, prefetch: int = 50
    ) -> list[ScoredId]:
        """Dense and BM25 prefetches fused by reciprocal-rank fusion in the engine."""

    async def neighbors(
        self, tenant_id: str, windows: Sequence[NeighborWindow]
    ) -> dict[str, tuple[str, ...]]:
        """For each window's seed, the id of the nearest earlier and of the nearest later
        point of its session within [lo, hi] (points of any version state; either may be
        missing, and points created at the seed's own time, to the millisecond, are neither).
        Seeds with neither are left out. One round trip for all windows."""

    async def retrieve(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
        """Payloads of the points that exist among ``ids`` for this tenant. Payloads are
        shared and read-only; an array value may come back as a list or a tuple."""

    async def vectors(self, tenant_id: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Dense vectors of the points that exist among ``ids`` for this tenant (lifecycle
        jobs compare memories without re-embedding them)."""

    async def all_ids(self, tenant_id: str | None = None) -> list[str]:
        """Every point id (of one tenant, or all: used by the reconciler to find orphans)."""

    async def count(self, tenant_id: str | None = None) -> int: ...
