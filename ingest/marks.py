"""``indexed=true`` marks written off the request path, batched per tenant.

The durable write stays graph first (``indexed=false``), then the vector, then the mark
(../shared/DESIGN.md). A turn's caller does not wait for that last statement: ``add`` hands
the ids to a background task that, ``delay`` seconds later, writes every pending mark with one
statement per tenant, so concurrent turns share statements. Until then the next ingest write
of the tenant may ``take`` them into its own transaction (a turn in a conversation carries
the previous turn's marks), which saves a write transaction per turn. A crash before a mark
is written leaves a memory that is in the vector index but still ``indexed=false``; the
reconciler re-upserts it (idempotent) and marks it. ``flush`` writes what is pending now
(graceful shutdown, tests that read the flag).

A tenant's mark statement and its ingest writes take turns (``writing``): on ArcadeDB two
concurrent transactions that touch the same pages conflict, and the loser is retried after a
backoff of ~20 ms plus the whole transaction again, a turn's slowest path. Waiting for the
other (a few milliseconds) is cheaper.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Iterable

from core.errors import BackendError
from graph.store import GraphStore

log = logging.getLogger(__name__)

LOCK_STRIPES = 64


class IndexMarks:
    """Pending ``indexed`` marks by tenant and the task that writes them."""

    def __init__(self, graph: GraphStore, delay: float = 0.05) -> None:
        self._graph = graph
        self.delay = delay  # seconds a mark waits for an ingest write to carry it
        self._pending: dict[str, set[str]] = {}
        self._task: asyncio.Task[None] | None = None
        self._waiting = False  # the task is in its delay, not writing
        self._locks = [asyncio.Lock() for _ in range(LOCK_STRIPES)]
        self.batches = 0  # statements written; tests use it to prove batching

    @property
    def pending(self) -> int:
        return sum(len(ids) for ids in self._pending.values())

    def add(self, tenant_id: str, ids: Iterable[str]) -> None:
        """Mark these memories indexed soon (no IO; never blocks)."""
        ids = set(ids)
        if not ids:
            return
        self._pending.setdefault(tenant_id, set()).update(ids)
        loop = asyncio.get_running_loop()
        task = self._task
        alive = task is not None and not task.done() and not task.cancelling()
        if alive and task is not None and task.get_loop() is loop:
            return  # the running drain picks these up (a cancelled one would not)
        # A fresh context: the drain belongs to no request (request-scoped context variables,
        # such as a request id or a statement counter, do not follow it).
        self._task = loop.create_task(self._drain(), context=contextvars.Context())

    def writing(self, tenant_id: str) -> asyncio.Lock:
        """Held while the tenant's marks or an ingest write (``ingest/persist.py``) are written."""
        return self._locks[hash(tenant_id) % LOCK_STRIPES]

    def take(self, tenant_id: str) -> list[str]:
        """The tenant's pending marks, for a caller that writes them in its own transaction
        (and hands them back with ``add`` if that transaction fails)."""
        return sorted(self._pending.pop(tenant_id, ()))

    async def flush(self) -> None:
        """Write every pending mark now (and wait for a batch being written)."""
        task = self._task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            if self._waiting:
                task.cancel()  # still in its delay: what it would write is written below
            else:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(task)
        await self._write_pending()

    async def _drain(self) -> None:
        self._waiting = True
        try:
            await asyncio.sleep(self.delay)  # room for an ingest write to take them along
        finally:
            self._waiting = False
        await self._write_pending()

    async def _write_pending(self) -> None:
        while self._pending:
            for tenant_id in list(self._pending):
                async with self.writing(tenant_id):
                    # An ingest write may have taken them while this waited.
                    ids = self._pending.pop(tenant_id, None)
                    if not ids:
                        continue
                    try:
                        await self._graph.tenant(tenant_id).mark_indexed(sorted(ids))
                        self.batches += 1
                    except BackendError as e:  # the reconciler marks them on its next pass
                        log.warning("could not mark %d memories indexed: %s", len(ids), e)
