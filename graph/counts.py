"""How many items a listing pages through (``brain.counts``): the ``totalCount`` of the
``memories`` and ``entities`` connections, counted only when a client asks for it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.clock import now
from core.types import EntityType, MemoryType
from graph.store import GraphStore


def listing_scope(include_superseded: bool, include_forgotten: bool) -> dict[str, Any]:
    """What a listing's two switches mean to the graph: current versions only unless
    superseded ones are asked for; live now unless forgotten ones are."""
    return {
        "current_only": not include_superseded,
        "live_at": None if include_forgotten else now(),
    }


class Counts:
    """Counts with the same filters as ``brain.memories.page`` and ``brain.entities.page``."""

    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph

    async def memories(
        self,
        tenant_id: str,
        *,
        types: Sequence[MemoryType] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        include_superseded: bool = False,
        include_forgotten: bool = False,
        since: float | None = None,
        until: float | None = None,
    ) -> int:
        return await self.graph.tenant(tenant_id).count_memories(
            types=types,
            project_id=project_id,
            session_id=session_id,
            user_id=user_id,
            **listing_scope(include_superseded, include_forgotten),
            since=since,
            until=until,
        )

    async def entities(
        self,
        tenant_id: str,
        *,
        type: EntityType | None = None,
        name: str | None = None,
        alias: str | None = None,
    ) -> int:
        tenant = self.graph.tenant(tenant_id)
        if alias is not None:  # as the listing: the entities the alias names, of the type
            return sum(
                1 for e in await tenant.find_by_alias(alias) if type is None or e.type == type
            )
        return await tenant.count_entities(type=type, name=name)
