"""The scheduler on the real graph: one leader at a time through the lock node (released at
stop, taken over after expiry), and a tick runs only the jobs that are due."""

from __future__ import annotations

import asyncio

import pytest

from api.brain import Brain
from core.clock import now
from core.lifecycle_types import JobName, JobRun, RunStatus
from core.settings import LifecycleSettings
from core.types import NewMemory
from ingest.lifecycle.scheduler import Scheduler

pytestmark = pytest.mark.integration


def _scheduler(brain: Brain, **settings: object) -> Scheduler:
    return Scheduler(
        brain.graph, brain.lifecycle.consolidator, LifecycleSettings.model_validate(settings)
    )


async def test_one_leader_at_a_time(brain: Brain) -> None:
    first = _scheduler(brain, lock_ttl_seconds=0.5)
    second = _scheduler(brain, lock_ttl_seconds=0.5)
    assert await first.acquire()
    assert not await second.acquire()
    assert await first.acquire()  # renewing our own lock
    await asyncio.sleep(0.7)  # the leader stopped renewing: its lock expires
    assert await second.acquire()
    assert not await first.acquire()
    await second.stop()  # releases at once
    assert await first.acquire()
    await first.stop()


async def test_a_tick_runs_due_jobs_once_per_interval(brain: Brain, tenant_id: str) -> None:
    await brain.memories.remember(tenant_id, NewMemory(content="Invoices go out on Mondays."))
    tenant = brain.graph.tenant(tenant_id)
    scheduler = _scheduler(brain, intervals={"decay": 2.0}, lock_ttl_seconds=60.0)
    since = await tenant.registered_at()
    assert since is not None and now() - since < 2.0
    # A brand-new tenant: its jobs wait for their first interval. (A tick visits every
    # tenant of the test database, so "now" is checked here rather than through a tick.)
    assert scheduler.due(await tenant.last_runs(), now(), since) == []
    await asyncio.sleep(since + 2.05 - now())
    try:
        await scheduler.tick()
        runs = await brain.lifecycle.runs(tenant_id, first=10)
        assert [(r.job, r.trigger) for r in runs] == [(JobName.DECAY, "scheduler")]
        last = await tenant.last_runs()
        assert scheduler.due(last, last["decay"] + 1.9, since) == []  # not due again yet
        assert scheduler.due(last, last["decay"] + 2.0, since) == [JobName.DECAY]
    finally:
        await scheduler.stop()


async def test_the_loop_runs_and_stops_cleanly(brain: Brain) -> None:
    scheduler = _scheduler(brain, intervals={"reconcile": 0.0}, tick_seconds=0.05)
    scheduler.start()
    for _ in range(100):
        if scheduler.ticks >= 2:
            break
        await asyncio.sleep(0.05)
    await scheduler.stop()
    assert scheduler.ticks >= 2 and not scheduler.running


async def test_old_reports_are_dropped_but_never_a_running_one(
    brain: Brain, tenant_id: str
) -> None:
    await brain.lifecycle.consolidate(tenant_id, [JobName.DECAY, JobName.PRUNE])
    tenant = brain.graph.tenant(tenant_id)
    running = JobRun(
        id="00000000-0000-4000-8000-0000000000aa",
        tenant_id=tenant_id,
        job=JobName.REPROFILE,
        status=RunStatus.RUNNING,
        started_at=1.0,
    )
    await tenant.save_run(running)
    assert await tenant.prune_runs(now() + 1) == 2
    assert [r.id for r in await brain.lifecycle.runs(tenant_id, first=10)] == [running.id]
