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

The batch also waits while a tenant is writing: marks of a tenant whose latest ingest write
began less than ``delay`` ago are left for its next write, which is likely to come (a
conversation, an import). Written by the batch, they were a transaction of their own landing
beside the next turn's parse every second or third turn; now they are written by the batch
only once the tenant has been quiet for ``delay``.

A tenant's mark statement never runs beside its ingest writes (``writing``): on ArcadeDB two
concurrent transactions that touch the same pages conflict, and the loser is retried after a
backoff of ~20 ms plus the whole transaction again, which was a turn's slowest path. The
batch leaves a tenant whose writes are in flight for later (they carry its marks anyway), and
a write waits for a mark statement in flight (a few milliseconds). Ingest writes still run
side by side: serialising them queued turns behind each other under load.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
import time
from collections.abc import AsyncIterator, Iterable

from core.errors import BackendError
from graph.store import GraphStore

log = logging.getLogger(__name__)


class _Gate:
    """One tenant's ingest writes in flight and whether its mark statement is."""

    def __init__(self) -> None:
        self.writes = 0
        self.idle = asyncio.Event()  # no ingest write in flight
        self.idle.set()
        self.unmarked = asyncio.Event()  # no mark statement in flight
        self.unmarked.set()


class IndexMarks:
    """Pending ``indexed`` marks by tenant and the task that writes them."""

    def __init__(self, graph: GraphStore, delay: float = 0.05) -> None:
        self._graph = graph
        self.delay = delay  # seconds a mark waits for an ingest write to carry it
        self._pending: dict[str, set[str]] = {}
        self._task: asyncio.Task[None] | None = None
        self._waiting = False  # the task is in its delay, not writing
        self._gates: dict[str, _Gate] = {}
        # Tenant → when (monotonic) its latest ingest write began; dropped when its marks
        # are written.
        self._began: dict[str, float] = {}
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

    @contextlib.asynccontextmanager
    async def writing(self, tenant_id: str) -> AsyncIterator[None]:
        """Around an ingest write of the tenant (``ingest/write/persist.py``): waits for its mark
        statement in flight, and keeps the next one from starting until the write is done."""
        while True:
            gate = self._gate(tenant_id)
            if gate.unmarked.is_set():
                break
            await gate.unmarked.wait()
        gate.writes += 1
        gate.idle.clear()
        self._began[tenant_id] = time.monotonic()
        try:
            yield
        finally:
            gate.writes -= 1
            if gate.writes == 0:
                gate.idle.set()
                self._release(tenant_id, gate)

    def take(self, tenant_id: str) -> list[str]:
        """The tenant's pending marks, for a caller that writes them in its own transaction
        (and hands them back with ``add`` if that transaction fails)."""
        return sorted(self._pending.pop(tenant_id, ()))

    async def flush(self) -> None:
        """Write every pending mark now (after the writes in flight, and after a batch being
        written)."""
        task = self._task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            if self._waiting:
                task.cancel()  # still in its delay: what it would write is written below
            else:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(task)
        while self._pending:
            for tenant_id in list(self._pending):
                await self._mark(tenant_id, wait=True)

    async def _drain(self) -> None:
        self._waiting = True
        try:
            await asyncio.sleep(self.delay)  # room for an ingest write to take them along
        finally:
            self._waiting = False
        for tenant_id in list(self._pending):
            try:
                await self._mark(tenant_id, wait=False)
            except Exception as e:  # the graph closed under it (a shutdown): nothing is lost,
                log.info("indexed marks left to the reconciler: %s", e)  # the reconciler marks
                return
        quiet = time.monotonic() - self.delay
        for tenant_id in [t for t, at in self._began.items() if at < quiet]:
            if tenant_id not in self._pending:
                del self._began[tenant_id]  # its writes carried every mark
        if self._pending:  # tenants that were writing, or marks added meanwhile: later
            self._task = asyncio.get_running_loop().create_task(
                self._drain(), context=contextvars.Context()
            )

    async def _mark(self, tenant_id: str, wait: bool) -> None:
        """Write the tenant's pending marks when none of its writes is in flight; without
        ``wait``, give up instead of waiting (the writes carry them, or a later batch), and
        leave them to a tenant that wrote within ``delay`` (its next write carries them)."""
        if not wait and time.monotonic() - self._began.get(tenant_id, -math.inf) < self.delay:
            return
        while True:
            gate = self._gate(tenant_id)
            if gate.writes == 0 and gate.unmarked.is_set():
                break
            if not wait:
                return
            await (gate.idle.wait() if gate.writes else gate.unmarked.wait())
        ids = self._pending.pop(tenant_id, None)
        if not ids:
            self._release(tenant_id, gate)
            return
        gate.unmarked.clear()
        self._began.pop(tenant_id, None)
        try:
            await self._graph.tenant(tenant_id).mark_indexed(sorted(ids))
            self.batches += 1
        except BackendError as e:  # the reconciler marks them on its next pass
            log.warning("could not mark %d memories indexed: %s", len(ids), e)
        finally:
            gate.unmarked.set()
            self._release(tenant_id, gate)

    def _gate(self, tenant_id: str) -> _Gate:
        gate = self._gates.get(tenant_id)
        if gate is None:
            gate = self._gates[tenant_id] = _Gate()
        return gate

    def _release(self, tenant_id: str, gate: _Gate) -> None:
        """Forget an idle tenant's gate (a waiter woken later looks its tenant up again)."""
        if gate.writes == 0 and gate.unmarked.is_set() and self._gates.get(tenant_id) is gate:
            del self._gates[tenant_id]
