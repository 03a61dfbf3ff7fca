"""The ids of a tenant's pinned (core) memories (and its memory count), cached briefly.

Core memory is read on every search and every context assembly, but it changes only when
someone pins, updates or unpins; the graph has no cheap "pinned of this tenant" lookup on
every backend (a boolean property index is not used by every planner), so the id list is
kept per tenant for ``ttl`` seconds. ``invalidate`` (called by the facade on pin / unpin /
update) makes a change visible at once in this process; other replicas see it within
``ttl``. Cached ids are only candidates: each one is hydrated and filtered (expired,
superseded) on every request, so a stale entry can never serve a removed memory.
"""

from __future__ import annotations

import time

from graph.tenant import TenantGraph


class CoreCache:
    """Per-tenant pinned memory ids with a time-to-live.

    Args:
        ttl: seconds an id list stays fresh; 0 disables caching.
        limit: how many pinned ids to keep per tenant (most important first).
    """

    def __init__(self, ttl: float = 5.0, limit: int = 20) -> None:
        self._ttl = ttl
        self._limit = limit
        self._entries: dict[str, tuple[float, list[str]]] = {}
        self._counts: dict[str, tuple[float, int]] = {}

    async def ids(self, tenant: TenantGraph, at: float, as_of: float | None) -> list[str]:
        """Pinned ids live at ``at`` (as-of reads always go to the graph)."""
        if as_of is not None or self._ttl <= 0:
            return await tenant.core_memory_ids(at, as_of, self._limit)
        entry = self._entries.get(tenant.tenant_id)
        clock = time.monotonic()
        if entry is not None and clock - entry[0] < self._ttl:
            return entry[1]
        found = await tenant.core_memory_ids(at, None, self._limit)
        self._entries[tenant.tenant_id] = (clock, found)
        return found

    async def memory_count(self, tenant: TenantGraph) -> int:
        """The tenant's memory count, cached for 60 × ttl (it only scales the entity path)."""
        entry = self._counts.get(tenant.tenant_id)
        clock = time.monotonic()
        if entry is not None and clock - entry[0] < 60 * self._ttl:
            return entry[1]
        total, _ = await tenant.memory_counts()
        self._counts[tenant.tenant_id] = (clock, total)
        return total

    def invalidate(self, tenant_id: str | None = None) -> None:
        """Forget one tenant's ids (or all)."""
        if tenant_id is None:
            self._entries.clear()
            self._counts.clear()
        else:
            self._entries.pop(tenant_id, None)
            self._counts.pop(tenant_id, None)
