"""What the explorer reads (memories with their stored 3D layout, entity relations) and what
the layout job writes (those positions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.types import Memory, MemoryType
from graph.records import memory_from
from graph.scoped import Scoped

Point = tuple[float, float, float]


class VizOps(Scoped):
    def _viz_params(
        self,
        at: float,
        as_of: float | None,
        history: bool,
        project_id: str | None,
        types: Sequence[MemoryType] | None,
        since: float | None,
        until: float | None,
    ) -> dict[str, Any]:
        return {
            "at": at,
            "as_of": as_of,
            "history": history,
            "project_id": project_id,
            "types": [t.value for t in types] if types else None,
            "since": since,
            "until": until,
        }

    async def viz_memories(
        self,
        *,
        at: float,
        limit: int,
        as_of: float | None = None,
        history: bool = False,
        project_id: str | None = None,
        types: Sequence[MemoryType] | None = None,
        since: float | None = None,
        until: float | None = None,
    ) -> tuple[list[tuple[Memory, Point | None]], int]:
        """A stable sample of at most ``limit`` memories with their stored layout, and how
        many matched in all (see cypher/viz_memories.cypher for which ones)."""
        params = self._viz_params(at, as_of, history, project_id, types, since, until)
        rows = await self.read("viz_memories", limit=limit, **params)
        found = [(memory_from(r["m"], r["entity_ids"]), _point(r["layout"])) for r in rows]
        if len(rows) < limit:  # nothing was cut: no second scan to count
            return found, len(rows)
        total = await self.read("viz_memory_count", **params)
        return found, int(total[0]["total"]) if total else 0

    async def viz_relations(self, entity_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        rows = await self.read("viz_relations", ids=list(entity_ids))
        return [(r["source_id"], r["target_id"], r["relation"]) for r in rows]

    async def layout_state(self) -> list[tuple[str, Point | None]]:
        """Every memory of the tenant (oldest first) with its stored position, if any."""
        rows = await self.read("layout_pending")
        return [(r["id"], _point(r["layout"])) for r in rows]

    async def save_layout(self, positions: Mapping[str, Point]) -> int:
        rows = [{"id": i, "layout": list(p)} for i, p in positions.items()]
        return len(await self.write("layout_save", rows=rows))


def _point(value: Any) -> Point | None:
    if not value or len(value) != 3:
        return None
    return (float(value[0]), float(value[1]), float(value[2]))
