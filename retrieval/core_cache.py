"""The ids of a tenant's pinned (core) memories (and its memory count), cached briefly.

Core memory is read on every search and every context assembly, but it changes only when
someone pins, updates or unpins. The read is one index lookup (``pinned_key``, ~2 ms at
250,000 memories; it scanned the tenant, 0.1-1 s, before that key existed), and the id list
is still kept per tenant for ``ttl`` seconds: one round trip fewer per request. Past half its
life an entry is refreshed in the background while it is still served, so under steady
traffic no request waits for that read; an entry older than ``ttl`` is never served.
``invalidate`` makes a change visible at once in this process (``Brain`` calls it when a
memory is pinned, unpinned, updated or forgotten as core memory, and on erase and import);
other replicas see it within ``ttl``. Cached ids are only candidates: each one is hydrated
and filtered (expired, superseded) on every request, so a stale entry can never serve a
removed memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from core.clock import now
from graph.tenant import TenantGraph

log = logging.getLogger(__name__)

T = TypeVar("T")
COUNT_TTL_FACTOR = 60  # the memory count only scales the entity path: kept 60 × ttl


class CoreCache:
    """Per-tenant pinned memory ids with a time-to-live.

    Args:
        ttl: seconds an id list stays fresh; 0 disables caching.
        limit: how many pinned ids to keep per tenant (most important first).
    """

    def __init__(self, ttl: float = 5.0, limit: int = 20) -> None:
        self._ttl = ttl
        self._limit = limit
        # (tenant id, user id or None) → (monotonic time loaded, value)
        self._entries: dict[tuple[str, str | None], tuple[float, list[tuple[str, bool]]]] = {}
        self._counts: dict[tuple[str, str | None], tuple[float, int]] = {}
        self._generation: dict[str, int] = {}  # bumped by invalidate: late loads are dropped
        self._refreshing: set[tuple[str, tuple[str, str | None]]] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def ids(
        self, tenant: TenantGraph, at: float, as_of: float | None, user_id: str | None = None
    ) -> list[str]:
        """Pinned ids live at ``at`` (as-of reads always go to the graph); with ``user_id``,
        that user's own and the tenant's shared ones (another user's learned name, role and
        rules are not theirs)."""
        return [i for i, _ in await self.rows(tenant, at, as_of, user_id)]

    async def rows(
        self, tenant: TenantGraph, at: float, as_of: float | None, user_id: str | None = None
    ) -> list[tuple[str, bool]]:
        """``ids`` with whether each was learned from conversation (``ingest/learned``)."""
        if as_of is not None or self._ttl <= 0:
            return await tenant.core_memory_rows(at, as_of, self._limit, user_id)

        def load(when: float) -> Awaitable[list[tuple[str, bool]]]:
            return tenant.core_memory_rows(when, None, self._limit, user_id)

        key = (tenant.tenant_id, user_id)
        return await self._cached("ids", self._entries, key, self._ttl, load, at)

    async def memory_count(self, tenant: TenantGraph) -> int:
        """The tenant's memory count, cached for ``COUNT_TTL_FACTOR`` × ttl."""

        async def load(_: float) -> int:
            return (await tenant.memory_counts())[0]

        ttl = COUNT_TTL_FACTOR * self._ttl
        key = (tenant.tenant_id, None)
        return await self._cached("count", self._counts, key, ttl, load, now())

    def invalidate(self, tenant_id: str | None = None) -> None:
        """Forget one tenant's ids, for every user (or all tenants')."""
        if tenant_id is None:
            self._entries.clear()
            self._counts.clear()
            for tenant in self._generation:
                self._generation[tenant] += 1
        else:
            for key in [k for k in self._entries if k[0] == tenant_id]:
                del self._entries[key]  # every user's view of the tenant's core
            self._counts.pop((tenant_id, None), None)
            self._generation[tenant_id] = self._generation.get(tenant_id, 0) + 1

    async def _cached(
        self,
        kind: str,
        entries: dict[tuple[str, str | None], tuple[float, T]],
        key: tuple[str, str | None],
        ttl: float,
        load: Callable[[float], Awaitable[T]],
        at: float,
    ) -> T:
        """The cached value; loaded at ``at`` when missing or older than ``ttl``, refreshed
        in the background (at the time of the refresh) past half of ``ttl``."""
        tenant_id = key[0]
        entry = entries.get(key)
        clock = time.monotonic()
        if entry is not None and clock - entry[0] < ttl:
            if clock - entry[0] >= ttl / 2:
                self._refresh(kind, entries, key, load)
            return entry[1]
        generation = self._generation.get(tenant_id, 0)
        value = await load(at)
        if self._generation.get(tenant_id, 0) == generation:
            entries[key] = (clock, value)
        return value

    def _refresh(
        self,
        kind: str,
        entries: dict[tuple[str, str | None], tuple[float, T]],
        entry_key: tuple[str, str | None],
        load: Callable[[float], Awaitable[T]],
    ) -> None:
        key = (kind, entry_key)
        if key in self._refreshing:
            return
        self._refreshing.add(key)
        tenant_id = entry_key[0]
        generation = self._generation.get(tenant_id, 0)

        async def refresh() -> None:
            try:
                started = time.monotonic()
                value = await load(now())
                if self._generation.get(tenant_id, 0) == generation:
                    entries[entry_key] = (started, value)
            except Exception as e:  # noqa: BLE001 - the next request past ttl loads it again
                log.warning("background refresh of cached %s failed: %s", kind, e)
            finally:
                self._refreshing.discard(key)

        task = asyncio.ensure_future(refresh())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
