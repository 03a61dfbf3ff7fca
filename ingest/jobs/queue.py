"""An in-process job queue whose pending work survives a restart.

Every job is a ``(:Job)`` node written to the graph *before* it is acknowledged (``recordTurn``
writes it in the same transaction as the turn), then handed to in-process workers. A finished
job is deleted; a failing one is retried with backoff and, after ``queue_max_attempts``, kept
as ``failed`` with its error for inspection. On start-up ``start()`` re-schedules every pending
job of every tenant, so stopping the process mid-way loses nothing — handlers must therefore be
idempotent (a job may run again if the process stopped after its work but before its delete).

A kind registered with ``merge`` is coalesced: its jobs of one tenant wait ``settle`` seconds
for more of their kind, and a worker runs every job of that tenant and kind still waiting as
one call with the merged payload (then deletes them all). Ten turns about the same people in
a few seconds refresh those profiles once, not ten times; under load, when the worker is
behind, everything that piled up meanwhile joins the next run. With ``duty`` below 1, a run
of a tenant's kind that took T seconds makes the next one wait at least T × (1 / duty − 1)
after it: background work of that kind takes at most that share of its worker's time, and the
busier the machine (the longer a run takes), the more turns each run gathers.

    queue = JobQueue(graph, settings.ingest)
    queue.register("profile_refresh", refresh_profiles, merge=union_of_ids, settle=1.0)
    await queue.start()
    await queue.enqueue("acme", "profile_refresh", {"entity_ids": [...]})
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.clock import now
from core.errors import InvalidInput
from core.ids import new_id
from core.ingest_types import Job, JobStatus
from core.settings import IngestSettings
from graph.store import GraphStore
from vectors.embedding.embedder import in_background

log = logging.getLogger(__name__)

Handler = Callable[[str, Mapping[str, Any]], Awaitable[None]]
Merge = Callable[[Sequence[Mapping[str, Any]]], Mapping[str, Any]]

MAX_MERGED = 256  # jobs run as one call at most; a longer backlog goes in several runs


@dataclass(frozen=True)
class _Kind:
    handler: Handler
    merge: Merge | None
    settle: float
    duty: float = 1.0  # the share of time its runs of one tenant may take (merged kinds)


class JobQueue:
    """Persisted jobs, run by ``settings.queue_workers`` asyncio workers."""

    def __init__(self, graph: GraphStore, settings: IngestSettings) -> None:
        self.graph = graph
        self.settings = settings
        self._kinds: dict[str, _Kind] = {}
        # A queue entry is a tenant and the ids of the jobs one handler call runs.
        self._queue: asyncio.Queue[tuple[str, list[str]]] = asyncio.Queue()
        self._scheduled: dict[str, str] = {}  # job id -> kind, until it finishes or fails
        # Merged kinds, by (tenant, kind): the ids settling, and the entry in line for a
        # worker, which later jobs of the key join until a worker takes it.
        self._held: dict[tuple[str, str], list[str]] = {}
        self._settling: dict[tuple[str, str], asyncio.TimerHandle] = {}
        self._in_line: dict[tuple[str, str], list[str]] = {}
        self._rest_until: dict[tuple[str, str], float] = {}  # loop time, after a merged run
        self._running: set[tuple[str, str]] = set()  # keys of a kind with a duty, while run
        self._workers: list[asyncio.Task[None]] = []
        self._timers: set[asyncio.TimerHandle] = set()  # retries waiting for their backoff
        self.completed = 0
        self.failed = 0
        self.runs = 0  # handler calls (fewer than completed jobs when kinds merge)

    @property
    def depth(self) -> int:
        """Jobs of this process not finished yet (settling, waiting, running or retrying)."""
        return len(self._scheduled)

    def register(
        self,
        kind: str,
        handler: Handler,
        *,
        merge: Merge | None = None,
        settle: float = 0.0,
        duty: float = 1.0,
    ) -> None:
        """Run ``handler(tenant_id, payload)`` for jobs of ``kind``.

        With ``merge``, jobs of one tenant and this kind are coalesced: each waits ``settle``
        seconds, and the waiting ones run as one call with ``merge(their payloads)``; with
        ``duty`` below 1 as well, a run rests ``duty``'s complement before the next.
        """
        if not 0 < duty <= 1:
            raise InvalidInput("duty must be above 0 and at most 1", field="duty")
        self._kinds[kind] = _Kind(handler, merge, max(0.0, settle), duty)

    def handles(self, kind: str) -> bool:
        """Is a handler registered for ``kind``?"""
        return kind in self._kinds

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
        self.schedule(tenant_id, [job])
        return job

    def schedule(self, tenant_id: str, jobs: Sequence[Job]) -> None:
        """Hand persisted jobs to the workers (a job already scheduled is not added twice)."""
        for job in jobs:
            if job.id in self._scheduled:
                continue
            self._scheduled[job.id] = job.kind
            spec = self._kinds.get(job.kind)
            if spec is None or spec.merge is None:
                self._queue.put_nowait((tenant_id, [job.id]))
                continue
            key = (tenant_id, job.kind)
            held = self._held.setdefault(key, [])
            held.append(job.id)
            if len(held) >= MAX_MERGED:
                self._release(key, force=True)
            elif key not in self._settling:
                loop = asyncio.get_running_loop()
                rest = self._rest_until.get(key, 0.0) - loop.time()
                self._settling[key] = loop.call_later(max(spec.settle, rest), self._release, key)

    def _release(self, key: tuple[str, str], force: bool = False) -> None:
        """Settling jobs of ``key`` go to the workers (as one run); unless ``force``, not
        while a run of a kind with a duty is under way or resting (its end re-arms it)."""
        timer = self._settling.pop(key, None)
        if timer is not None:
            timer.cancel()
        if not force and self._rests(key):
            if key in self._running:
                return  # the run's end re-arms the release
            loop = asyncio.get_running_loop()
            wait = self._rest_until.get(key, 0.0) - loop.time()
            if wait > 0:
                self._settling[key] = loop.call_later(wait, self._release, key)
                return
        ids = self._held.pop(key, None)
        if not ids:
            return
        in_line = self._in_line.get(key)
        if in_line is not None and len(in_line) + len(ids) <= MAX_MERGED:
            in_line.extend(ids)
        else:
            self._in_line[key] = ids
            self._queue.put_nowait((key[0], ids))

    async def start(self, tenants: Sequence[str] | None = None) -> int:
        """Start the workers and resume every pending job; returns how many were resumed."""
        resumed = 0
        for tenant_id in tenants if tenants is not None else await self.graph.system.tenants():
            pending = await self.graph.tenant(tenant_id).pending_jobs()
            self.schedule(tenant_id, pending)
            resumed += len(pending)
        if not self.running:
            self._workers = [
                asyncio.create_task(self._work(), name=f"ingest-queue-{i}")
                for i in range(self.settings.queue_workers)
            ]
        return resumed

    async def stop(self) -> None:
        """Stop at once: a job being run stays pending in the graph and resumes on start."""
        for timer in [*self._timers, *self._settling.values()]:
            timer.cancel()
        self._timers.clear()
        self._settling.clear()
        self._held.clear()
        self._in_line.clear()
        self._rest_until.clear()
        for worker in self._workers:
            worker.cancel()
        for worker in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        self._workers = []
        self._queue = asyncio.Queue()
        self._scheduled.clear()

    async def drain(self, timeout: float = 30.0) -> None:
        """Run every scheduled job now, without waiting for them to settle, and wait until
        they have finished (tests, shutdown, batch ingest)."""
        async with asyncio.timeout(timeout):
            while self._scheduled:
                for key in list(self._held):
                    self._release(key, force=True)
                await asyncio.sleep(0.01)

    async def _work(self) -> None:
        in_background()  # nobody waits for a job: its embeddings yield to requests
        while True:
            tenant_id, ids = await self._queue.get()
            key = (tenant_id, self._scheduled.get(ids[0], ""))
            if self._in_line.get(key) is ids:
                del self._in_line[key]
                held = self._held.pop(key, [])  # still settling: they join it too
                room = MAX_MERGED - len(ids)
                ids.extend(held[:room])
                if held[room:]:
                    self._held[key] = held[room:]  # their settle timer still runs
                elif (timer := self._settling.pop(key, None)) is not None:
                    timer.cancel()
            loop = asyncio.get_running_loop()
            started = loop.time()
            if self._rests(key):
                self._running.add(key)
            try:
                await self._run(tenant_id, ids)
            except asyncio.CancelledError:
                raise
            except Exception:  # the queue must outlive any job
                log.exception("jobs %s of tenant %s crashed the runner", ids, tenant_id)
                self._finish(ids)
            finally:
                self._running.discard(key)
            self._rest(key, loop.time() - started)

    def _rests(self, key: tuple[str, str]) -> bool:
        """Does ``key``'s kind rest after a run (merged, duty below 1)?"""
        spec = self._kinds.get(key[1])
        return spec is not None and spec.merge is not None and spec.duty < 1

    def _rest(self, key: tuple[str, str], took: float) -> None:
        """After a run of a merged kind with a duty below 1: the earliest the next may start;
        the jobs that came meanwhile wait for it (``drain`` does not)."""
        if not self._rests(key):
            return
        spec = self._kinds[key[1]]
        loop = asyncio.get_running_loop()
        self._rest_until[key] = loop.time() + took * (1 / spec.duty - 1)
        if self._held.get(key) and key not in self._settling:
            self._release(key)  # re-armed for the rest

    def _finish(self, ids: Sequence[str]) -> None:
        for job_id in ids:
            self._scheduled.pop(job_id, None)

    async def _run(self, tenant_id: str, ids: list[str]) -> None:
        tenant = self.graph.tenant(tenant_id)
        found = await tenant.get_jobs(ids)
        jobs = [found[i] for i in ids if i in found and found[i].status is JobStatus.PENDING]
        live = {j.id for j in jobs}
        self._finish([i for i in ids if i not in live])  # done or gone meanwhile
        if not jobs:
            return
        spec = self._kinds.get(jobs[0].kind)
        if spec is None:
            log.warning("no handler for job kind %r; it stays pending", jobs[0].kind)
            self._finish(ids)
            return
        payload = jobs[0].payload
        if spec.merge is not None and len(jobs) > 1:
            payload = dict(spec.merge([j.payload for j in jobs]))
        self.runs += 1
        try:
            await spec.handler(tenant_id, payload)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            await self._failed(tenant_id, jobs, e)
            return
        await tenant.delete_jobs([j.id for j in jobs])
        self.completed += len(jobs)
        self._finish(ids)

    async def _failed(self, tenant_id: str, jobs: Sequence[Job], error: Exception) -> None:
        tenant = self.graph.tenant(tenant_id)
        attempts = max(j.attempts for j in jobs) + 1
        status = JobStatus.FAILED if attempts >= self.settings.queue_max_attempts else None
        for job in jobs:
            await tenant.update_job(
                job.id, status or JobStatus.PENDING, attempts, repr(error)[:2000], now()
            )
        ids = [j.id for j in jobs]
        if status is JobStatus.FAILED:
            self.failed += len(jobs)
            self._finish(ids)
            log.warning("jobs %s (%s) failed for good: %r", ids, jobs[0].kind, error)
            return
        delay = self.settings.queue_retry_seconds * 2 ** (attempts - 1)
        loop = asyncio.get_running_loop()

        def retry() -> None:
            self._timers.discard(timer)
            self._queue.put_nowait((tenant_id, ids))

        timer = loop.call_later(delay, retry)
        self._timers.add(timer)
