"""Tenant graph operations of the read side (session view, entity path, access counts).

Statements live in ``cypher/`` like every other; this mixin is composed into ``TenantGraph``.
Each call is one round trip; ids of other tenants simply match nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.ingest_types import Session
from core.types import Entity, Memory
from graph.core_ops import pinned_keys
from graph.records import entity_from, memory_from, session_from
from graph.scoped import Scoped


@dataclass(frozen=True)
class EntitySet:
    """The entity path's entity ids, and the given entities (without profile embeddings)."""

    ids: list[str] = field(default_factory=list)
    given: Mapping[str, Entity] = field(default_factory=dict)


@dataclass(frozen=True)
class SessionView:
    """A session as the read side sees it: its working-memory record (None while the session
    holds only tracker state), its stored entity tracker (JSON) and its window's memories."""

    session: Session | None
    tracker: str | None = None
    memories: Mapping[str, Memory] = field(default_factory=dict)

    def window(self, at: float) -> tuple[Memory, ...]:
        """The window's memories, oldest first; empty when the session is closed or expired."""
        if self.session is None or not self.session.is_open(at):
            return ()
        return tuple(self.memories[i] for i in self.session.window if i in self.memories)


class RetrievalOps(Scoped):
    async def session_view(self, session_id: str) -> SessionView:
        """The session's record, tracker and window memories in one round trip."""
        rows = await self.read("retrieval_session_context", session_id=session_id)
        if not rows:
            return SessionView(None)
        props = rows[0]["s"]
        memories = {
            r["m"]["id"]: memory_from(r["m"], r["entity_ids"]) for r in rows if r["m"] is not None
        }
        tracker = props.get("entity_tracker")
        return SessionView(session_from(props), str(tracker) if tracker else None, memories)

    async def entity_set(self, entity_ids: Sequence[str]) -> EntitySet:
        """The entity path's entity set: the given entities (those of this tenant), their
        parents, related process entities and entities merged into them; given ones first."""
        if not entity_ids:
            return EntitySet()
        rows = await self.read("retrieval_entity_expand", ids=list(dict.fromkeys(entity_ids)))
        given = {r["e"]["id"]: entity_from(r["e"]) for r in rows}
        out: dict[str, None] = {e: None for e in entity_ids if e in given}
        for r in rows:
            for extra in (r["e"].get("parent_id"), *r.get("linked", ()), *r.get("merged", ())):
                if extra:
                    out.setdefault(extra, None)
        return EntitySet(list(out), given)

    async def entity_path(
        self, entity_ids: Sequence[str], at: float, as_of: float | None, limit: int
    ) -> tuple[list[tuple[str, tuple[str, ...]]], int]:
        """The entity path's graph part, one round trip: (memory id, matched entity ids) of
        live memories about the entities, current or valid ``as_of``, those about more of the
        entities first, then newest (at most ``limit``); and how many memories of any state
        are about them (the set's document frequency)."""
        if not entity_ids:
            return [], 0
        rows = await self.read(
            "retrieval_entity_memories",
            entity_ids=list(entity_ids),
            at=at,
            as_of=as_of,
            limit=max(1, limit),
        )
        degree = int(rows[0]["degree"] or 0) if rows else 0
        found = [(r["id"], tuple(r["entity_ids"])) for r in rows if r["id"] is not None]
        return (found if limit > 0 else []), degree

    async def confirmed_task_ids(self, limit: int) -> list[str]:
        """Ids of confirmed tasks, newest first (the task bonus), through the task_key index."""
        return [r["id"] for r in await self.read("retrieval_confirmed_tasks", limit=limit)]

    async def core_memory_ids(
        self, at: float, as_of: float | None, limit: int, user_id: str | None = None
    ) -> list[str]:
        """Ids of live pinned (core) memories, most important first; with ``user_id``, that
        user's own and the tenant's shared ones."""
        return [i for i, _ in await self.core_memory_rows(at, as_of, limit, user_id)]

    async def core_memory_rows(
        self, at: float, as_of: float | None, limit: int, user_id: str | None = None
    ) -> list[tuple[str, bool]]:
        """``core_memory_ids`` with whether each was learned from conversation."""
        keys = pinned_keys(self.tenant_id, user_id)
        rows = await self.read(
            "retrieval_pinned", keys=keys, at=at, as_of=as_of, user=user_id, limit=limit
        )
        return [(r["id"], bool(r["learned"])) for r in rows]

    async def record_access(self, counts: Mapping[str, int], at: float) -> int:
        """Add access counts (one UNWIND write for the whole batch); returns rows updated."""
        if not counts:
            return 0
        rows = [{"id": k, "n": int(n), "at": at} for k, n in counts.items()]
        found = await self.write("retrieval_record_access", rows=rows)
        return int(found[0]["updated"]) if found else 0
