"""An in-process job queue whose pending work survives a restart.

Every job is a ``(:Job)`` node written to the graph *before* it is acknowledged (``recordTurn``
writes it in the same transaction as the turn), then handed to in-process workers. A finished
job is deleted; a failing one is retried with backoff and, after ``queue_max_attempts``, kept
as ``failed`` with its error for inspection. On start-up ``start()`` re-schedules every pending
job of every tenant, so stopping the process mid-way loses nothing — handlers must therefore be
idempotent (a job may run again if the process stopped after its work but before its delete).

    queue = JobQueue(graph, settings.ingest)
    queue.register("profile_refresh", refresh_profiles)
    await queue.start()
    await queue.enqueue("acme", "profile_refresh", {"entity_ids": [...]})
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from core.clock import now
from core.errors import InvalidInput
from core.ids import new_id
from core.ingest_types import Job, JobStatus
from core.settings import IngestSettings
from graph.store import GraphStore

log = logging.getLogger(__name__)

Handler = Callable[[str, Mapping[str, Any]], Awaitable[None]]


class JobQueue:
    """Persisted jobs, run by ``settings.queue_workers`` asyncio workers."""

    def __init__(self, graph: GraphStore, settings: IngestSettings) -> None:
        self.graph = graph
        self.settings = settings
        self._handlers: dict[str, Handler] = {}
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._scheduled: set[str] = set()
        self._workers: list[asyncio.Task[None]] = []
        self._timers: set[asyncio.TimerHandle] = set()
        self.completed = 0
        self.failed = 0

    @property
    def depth(self) -> int:
        """Jobs waiting in this process (scheduled retries included)."""
        return self._queue.qsize() + len(self._timers)

    def register(self, kind: str, handler: Handler) -> None:
        """Run ``handler(tenant_id, payload)`` for jobs of ``kind``."""
        self._handlers[kind] = handler

    @property
    def running(self) -> bool:
        return any(not w.done() for w in self._workers)

    def build(self, kind: str, payload: Mapping[str, Any], at: float | None = None) -> Job:
        """A new pending job (not yet persisted); callers may persist it in their own
        transaction (``ingest_job_create``) and then ``schedule`` it."""
        if not kind:
            raise InvalidInput("a job kind is required", field="kind")
        when = now() if at is None else at
        return Job(id=new_id(), kind=kind, payload=dict(payload), created_at=when, updated_at=when)

    async def enqueue(self, tenant_id: str, kind: str, payload: Mapping[str, Any]) -> Job:
        """Persist a job, then schedule it. Returns once it is durable."""
        job = self.build(kind, payload)
        await self.graph.tenant(tenant_id).create_jobs([job])
        self.schedule(tenant_id, [job.id])
        return job

    def schedule(self, tenant_id: str, job_ids: Sequence[str]) -> None:
        """Hand persisted jobs to the workers (a job already scheduled is not added twice)."""
        for job_id in job_ids:
            if job_id not in self._scheduled:
                self._scheduled.add(job_id)
                self._queue.put_nowait((tenant_id, job_id))

    async def start(self, tenants: Sequence[str] | None = None) -> int:
        """Start the workers and resume every pending job; returns how many were resumed."""
        resumed = 0
        for tenant_id in tenants if tenants is not None else await self.graph.system.tenants():
            pending = await self.graph.tenant(tenant_id).pending_jobs()
            self.schedule(tenant_id, [j.id for j in pending])
            resumed += len(pending)
        if not self.running:
            self._workers = [
                asyncio.create_task(self._work(), name=f"ingest-queue-{i}")
                for i in range(self.settings.queue_workers)
            ]
        return resumed

    async def stop(self) -> None:
        """Stop at once: a job being run stays pending in the graph and resumes on start."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        for worker in self._workers:
            worker.cancel()
        for worker in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        self._workers = []
        self._queue = asyncio.Queue()
        self._scheduled.clear()

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait until every scheduled job has finished (tests, shutdown, batch ingest)."""
        async with asyncio.timeout(timeout):
            while self._scheduled:
                await asyncio.sleep(0.01)

    async def _work(self) -> None:
        while True:
            tenant_id, job_id = await self._queue.get()
            try:
                await self._run(tenant_id, job_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # the queue must outlive any job
                log.exception("job %s of tenant %s crashed the runner", job_id, tenant_id)
                self._scheduled.discard(job_id)

    async def _run(self, tenant_id: str, job_id: str) -> None:
        tenant = self.graph.tenant(tenant_id)
        job = (await tenant.get_jobs([job_id])).get(job_id)
        if job is None or job.status is not JobStatus.PENDING:
            self._scheduled.discard(job_id)
            return
        handler = self._handlers.get(job.kind)
        if handler is None:
            log.warning("no handler for job kind %r; it stays pending", job.kind)
            self._scheduled.discard(job_id)
            return
        try:
            await handler(tenant_id, job.payload)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            attempts = job.attempts + 1
            if attempts >= self.settings.queue_max_attempts:
                await tenant.update_job(job_id, JobStatus.FAILED, attempts, repr(e)[:2000], now())
                self.failed += 1
                self._scheduled.discard(job_id)
                log.warning("job %s (%s) failed for good: %r", job_id, job.kind, e)
                return
            await tenant.update_job(job_id, JobStatus.PENDING, attempts, repr(e)[:2000], now())
            delay = self.settings.queue_retry_seconds * 2 ** (attempts - 1)
            loop = asyncio.get_running_loop()
            timer = loop.call_later(delay, self._queue.put_nowait, (tenant_id, job_id))
            self._timers.add(timer)
            return
        await tenant.delete_jobs([job_id])
        self.completed += 1
        self._scheduled.discard(job_id)
