"""Tenant graph operations of the read side (entity path, neighbours, access counts).

Statements live in ``cypher/`` like every other; this mixin is composed into ``TenantGraph``.
Each call is one round trip; ids of other tenants simply match nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graph.scoped import Scoped


@dataclass(frozen=True)
class NeighborWindow:
    """Look for memories of ``session_id`` created within [lo, hi] around ``seed``."""

    seed: str
    session_id: str
    lo: float
    hi: float


class RetrievalOps(Scoped):
    async def expand_entities(self, entity_ids: Sequence[str]) -> list[str]:
        """The entity path's entity set: the given entities (those of this tenant), their
        parents, related process entities and entities merged into them; given ones first."""
        if not entity_ids:
            return []
        rows = await self.read("retrieval_entity_expand", ids=list(dict.fromkeys(entity_ids)))
        found = {r["id"] for r in rows}
        out: dict[str, None] = {e: None for e in entity_ids if e in found}
        for r in rows:
            for extra in (r.get("parent_id"), *r.get("linked", ()), *r.get("merged", ())):
                if extra:
                    out.setdefault(extra, None)
        return list(out)

    async def memories_about(
        self, entity_ids: Sequence[str], at: float, as_of: float | None, limit: int
    ) -> list[tuple[str, tuple[str, ...]]]:
        """(memory id, matched entity ids) of live memories about the entities, current or
        valid ``as_of``; those about more of the entities first, then newest."""
        if not entity_ids or limit <= 0:
            return []
        rows = await self.read(
            "retrieval_memories_about",
            entity_ids=list(entity_ids),
            at=at,
            as_of=as_of,
            limit=limit,
        )
        return [(r["id"], tuple(r["entity_ids"])) for r in rows]

    async def core_memory_ids(self, at: float, as_of: float | None, limit: int) -> list[str]:
        """Ids of live pinned (core) memories, most important first."""
        rows = await self.read("retrieval_pinned", at=at, as_of=as_of, limit=limit)
        return [r["id"] for r in rows]

    async def session_neighbors(
        self, windows: Sequence[NeighborWindow]
    ) -> dict[str, list[tuple[str, float]]]:
        """For each seed, the (id, created_at) of memories in its session window."""
        if not windows:
            return {}
        rows = await self.read(
            "retrieval_session_neighbors",
            rows=[
                {"seed": w.seed, "session_id": w.session_id, "lo": w.lo, "hi": w.hi}
                for w in windows
            ],
        )
        out: dict[str, list[tuple[str, float]]] = {}
        for r in rows:
            out.setdefault(r["seed"], []).append((r["id"], float(r["created_at"])))
        return out

    async def record_access(self, counts: Mapping[str, int], at: float) -> int:
        """Add access counts (one UNWIND write for the whole batch); returns rows updated."""
        if not counts:
            return 0
        rows = [{"id": k, "n": int(n), "at": at} for k, n in counts.items()]
        return len(await self.write("retrieval_record_access", rows=rows))

    async def entity_degree(self, entity_ids: Sequence[str]) -> int:
        """Memories about any of the entities (how selective an entity path is)."""
        if not entity_ids:
            return 0
        rows = await self.read("retrieval_entity_degree", entity_ids=list(entity_ids))
        return int(rows[0]["n"] or 0) if rows else 0
