"""Paged listings and core (pinned) memory of a tenant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.types import Entity, EntityType, Memory, MemoryType
from graph.core_ops import pinned_keys
from graph.records import entity_from
from graph.scoped import Scoped


class ListingOps(Scoped):
    async def list_memory_ids(
        self,
        *,
        limit: int,
        types: Sequence[MemoryType] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        current_only: bool = True,
        live_at: float | None = None,
        since: float | None = None,
        until: float | None = None,
        after: tuple[float, str] | None = None,
    ) -> list[str]:
        """Memory ids newest first; ``after`` is (created_at, id) of the previous page's last.
        A session or user filter starts from that index; otherwise the tenant is read."""
        name = (
            "memory_list_by_session"
            if session_id is not None
            else "memory_list_by_user"
            if user_id is not None
            else "memory_list"
        )
        filters = _memory_filters(
            types, project_id, session_id, user_id, current_only, live_at, since, until
        )
        rows = await self.read(
            name,
            **filters,
            after_ts=after[0] if after else None,
            after_id=after[1] if after else None,
            limit=limit,
        )
        return [r["id"] for r in rows]

    async def count_memories(
        self,
        *,
        types: Sequence[MemoryType] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        current_only: bool = True,
        live_at: float | None = None,
        since: float | None = None,
        until: float | None = None,
    ) -> int:
        """How many memories ``list_memory_ids`` pages through with these filters."""
        filters = _memory_filters(
            types, project_id, session_id, user_id, current_only, live_at, since, until
        )
        rows = await self.read("memory_list_count", **filters)
        return int(rows[0]["total"]) if rows else 0

    async def count_entities(
        self, *, type: EntityType | None = None, name: str | None = None
    ) -> int:
        """How many entities ``list_entities`` pages through with these filters."""
        rows = await self.read(
            "entity_list_count",
            type=type.value if type else None,
            name_part=name.casefold() if name else None,
        )
        return int(rows[0]["total"]) if rows else 0

    async def list_entities(
        self,
        *,
        limit: int,
        type: EntityType | None = None,
        name: str | None = None,
        after: str | None = None,
    ) -> list[Entity]:
        rows = await self.read(
            "entity_list",
            type=type.value if type else None,
            name_part=name.casefold() if name else None,
            after=after,
            limit=limit,
        )
        return [entity_from(r["e"]) for r in rows]

    async def pinned_ids(self, at: float, user_id: str | None = None) -> list[str]:
        """Current, live pinned ids, oldest first; with ``user_id``, that user's own and the
        tenant's shared ones."""
        keys = pinned_keys(self.tenant_id, user_id)
        return [r["id"] for r in await self.read("memory_pinned", keys=keys, at=at, user=user_id)]

    async def set_pinned(self, ids: Sequence[str], pinned: bool) -> list[str]:
        return [
            r["id"] for r in await self.write("memory_set_pinned", ids=list(ids), pinned=pinned)
        ]

    async def core_memories(self, at: float, user_id: str | None = None) -> list[Memory]:
        ids = await self.pinned_ids(at, user_id)
        found = await self.get_memories(ids)  # type: ignore[attr-defined]
        return [found[i] for i in ids if i in found]


def _memory_filters(
    types: Sequence[MemoryType] | None,
    project_id: str | None,
    session_id: str | None,
    user_id: str | None,
    current_only: bool,
    live_at: float | None,
    since: float | None,
    until: float | None,
) -> dict[str, Any]:
    """The parameters a memory listing and its count share (null ones do not filter)."""
    return {
        "types": [t.value for t in types] if types else None,
        "project_id": project_id,
        "session_id": session_id,
        "user_id": user_id,
        "current_only": current_only,
        "live_at": live_at,
        "since": since,
        "until": until,
    }
