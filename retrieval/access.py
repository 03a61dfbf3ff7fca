"""Access counts, updated in batches off the request path.

``note`` only adds to an in-memory counter; a background task writes the pending counts every
``flush_seconds`` (or sooner when many are pending) with one UNWIND statement per tenant, so a
search never waits for a graph write. Counts not yet flushed are lost on a crash: they tune
ranking, they are not data.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Iterable

from core.clock import now
from graph.store import GraphStore

log = logging.getLogger(__name__)


class AccessRecorder:
    """Batches access counts per tenant and flushes them in the background.

    Args:
        graph: where counts are written.
        flush_seconds: how often pending counts are written.
        max_pending: flush early when this many accesses are pending.
    """

    def __init__(self, graph: GraphStore, flush_seconds: float = 1.0, max_pending: int = 5000):
        self._graph = graph
        self._flush_seconds = flush_seconds
        self._max_pending = max_pending
        self._pending: dict[str, Counter[str]] = {}
        self._pending_count = 0
        self._last_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self.flushes = 0  # batches written; tests use it to prove batching

    def note(self, tenant_id: str, ids: Iterable[str], at: float | None = None) -> None:
        """Count one access of each id (no IO; never blocks)."""
        counter = self._pending.setdefault(tenant_id, Counter())
        for memory_id in ids:
            counter[memory_id] += 1
            self._pending_count += 1
        self._last_at = max(self._last_at, at if at is not None else now())
        self._ensure_task()
        if self._pending_count >= self._max_pending and self._wake is not None:
            self._wake.set()

    @property
    def pending(self) -> int:
        return self._pending_count

    async def flush(self) -> int:
        """Write every pending count now; returns the memories updated."""
        pending, self._pending, self._pending_count = self._pending, {}, 0
        at = self._last_at or now()
        updated = 0
        for tenant_id, counts in pending.items():
            if counts:
                updated += await self._graph.tenant(tenant_id).record_access(counts, at)
                self.flushes += 1
        return updated

    async def close(self) -> None:
        """Stop the background task and write what is pending."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.flush()

    def _ensure_task(self) -> None:
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: counts wait for an explicit flush
        self._wake = asyncio.Event()
        self._task = loop.create_task(self._run())

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._flush_seconds)
            self._wake.clear()
            try:
                await self.flush()
            except Exception as e:  # noqa: BLE001 - ranking data only: log and keep serving
                log.warning("access count flush failed: %s", e)
