"""The in-process scheduler: one leader per deployment runs the due lifecycle jobs.

Every replica runs a scheduler loop, but only the holder of the graph's ``LeaderLock`` node
does work. The lock has an expiry: the leader renews it on every tick and before each tenant;
if the leader dies, another replica takes the lock once it has expired. A job is due for a
tenant when its last finished run started longer ago than its interval (jobs are idempotent,
so the rare overlap of an old and a new leader is harmless). A job that has never run for a
tenant waits one interval from the tenant's first write: a brand-new tenant has nothing to
merge, compress, decay or prune, and its first writes should not meet every job at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket

from core.clock import now
from core.errors import BrainError
from core.ids import new_id
from core.lifecycle_types import JOB_ORDER, JobName
from core.settings import LifecycleSettings
from graph.store import GraphStore
from ingest.lifecycle.consolidator import Consolidator
from vectors.embedding.embedder import in_background

log = logging.getLogger(__name__)

LOCK = "lifecycle-scheduler"


class Scheduler:
    def __init__(
        self, graph: GraphStore, consolidator: Consolidator, settings: LifecycleSettings
    ) -> None:
        self.graph = graph
        self.consolidator = consolidator
        self.settings = settings
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{new_id()[:8]}"
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self.ticks = 0

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if not self.running:
            self._stop.clear()
            self._task = asyncio.create_task(self._loop(), name="lifecycle-scheduler")

    async def stop(self) -> None:
        """Stop after the job in progress is cancelled (it resumes at the next run)."""
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(BrainError):
            await self.graph.system.release_lock(LOCK, self.holder)

    async def acquire(self) -> bool:
        """Take or renew the leader lock; False when another live process holds it."""
        at = now()
        until = at + self.settings.lock_ttl_seconds
        return await self.graph.system.acquire_lock(LOCK, self.holder, at, until)

    def due(self, last: dict[str, float], at: float, since: float | None = None) -> list[JobName]:
        """Jobs whose interval has passed since their last finished run, or (never run)
        since ``since``, the tenant's first write (None: unknown, so due now)."""
        out = []
        for job in JOB_ORDER:
            interval = self.settings.intervals.get(job.value, 0.0)
            if interval > 0 and at - last.get(job.value, since or 0.0) >= interval:
                out.append(job)
        return out

    async def tick(self) -> int:
        """Run the due jobs of every tenant if we lead; returns how many job runs were made."""
        if not await self.acquire():
            return 0
        runs = 0
        for tenant_id in await self.graph.system.tenants():
            done = await self.tick_tenant(tenant_id)
            if done < 0:  # lost the lock while working on other tenants
                break
            runs += done
        return runs

    async def tick_tenant(self, tenant_id: str) -> int:
        """Run one tenant's due jobs (the leader's work for it in a tick): the job runs
        made, or -1 when the leader lock was lost before they started."""
        tenant = self.graph.tenant(tenant_id)
        await tenant.prune_runs(now() - self.settings.report_retention_days * 86_400.0)
        last, since = await asyncio.gather(tenant.last_runs(), tenant.registered_at())
        jobs = self.due(last, now(), since)
        if not jobs:
            return 0
        if not await self.acquire():
            return -1
        report = await self.consolidator.run(tenant_id, jobs, trigger="scheduler")
        return len(report.runs)

    async def _loop(self) -> None:
        in_background()  # nobody waits for a lifecycle job: its embeddings yield to requests
        while not self._stop.is_set():
            try:
                await self.tick()
                self.ticks += 1
            except asyncio.CancelledError:
                raise
            except Exception:  # an engine hiccup must not end the loop
                log.exception("lifecycle scheduler tick failed; retrying next tick")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.settings.tick_seconds)
