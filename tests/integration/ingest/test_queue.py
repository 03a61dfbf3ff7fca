"""The persisted job queue: jobs survive a stop mid-way and resume on restart, failures are
retried then kept as failed, and recordTurn's profile-refresh jobs really refresh profiles."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from api.brain import Brain
from core.ingest_types import JobStatus, TurnInput
from core.settings import IngestSettings
from ingest.queue import JobQueue
from ingest.service import IngestService

pytestmark = pytest.mark.integration


async def test_pending_jobs_survive_a_stop_and_resume_on_restart(
    brain: Brain, tenant_id: str
) -> None:
    done: list[int] = []
    gate = asyncio.Event()

    async def slow(tenant: str, payload: Mapping[str, Any]) -> None:
        if len(done) >= 2:
            await gate.wait()  # the process "stops" while this job runs
        done.append(int(payload["n"]))

    first = JobQueue(brain.graph, IngestSettings())
    first.register("work", slow)
    await first.start(tenants=[])
    for n in range(5):
        await first.enqueue(tenant_id, "work", {"n": n})
    async with asyncio.timeout(10):
        # two jobs finished (handler ran and the job was deleted); the third blocks at the gate
        while first.completed < 2:
            await asyncio.sleep(0.01)
    await first.stop()
    assert done == [0, 1]
    pending = await brain.graph.tenant(tenant_id).pending_jobs()
    assert sorted(int(j.payload["n"]) for j in pending) == [2, 3, 4]

    async def fast(tenant: str, payload: Mapping[str, Any]) -> None:
        done.append(int(payload["n"]))

    restarted = JobQueue(brain.graph, IngestSettings())
    restarted.register("work", fast)
    assert await restarted.start(tenants=[tenant_id]) == 3
    await restarted.drain()
    await restarted.stop()
    assert sorted(done) == [0, 1, 2, 3, 4]
    assert await brain.graph.tenant(tenant_id).pending_jobs() == []


async def test_a_failing_job_is_retried_then_kept_as_failed(brain: Brain, tenant_id: str) -> None:
    calls: list[str] = []

    async def broken(tenant: str, payload: Mapping[str, Any]) -> None:
        calls.append(tenant)
        raise RuntimeError("model unavailable")

    queue = JobQueue(brain.graph, IngestSettings(queue_max_attempts=3, queue_retry_seconds=0.01))
    queue.register("broken", broken)
    await queue.start(tenants=[])
    job = await queue.enqueue(tenant_id, "broken", {})
    await queue.drain()
    await queue.stop()
    assert calls == [tenant_id] * 3
    stored = (await brain.graph.tenant(tenant_id).get_jobs([job.id]))[job.id]
    assert stored.status is JobStatus.FAILED and stored.attempts == 3
    assert "model unavailable" in (stored.error or "")


async def test_jobs_are_tenant_scoped(brain: Brain, tenant_id: str, other_tenant_id: str) -> None:
    queue = JobQueue(brain.graph, IngestSettings())
    job = await queue.enqueue(tenant_id, "unhandled", {"x": 1})  # not started: stays pending
    assert await brain.graph.tenant(other_tenant_id).get_jobs([job.id]) == {}
    assert await brain.graph.tenant(other_tenant_id).pending_jobs() == []
    assert [j.id for j in await brain.graph.tenant(tenant_id).pending_jobs()] == [job.id]


async def test_record_turn_queues_profile_refresh_that_fills_profiles(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    result = await ingest.record_turn(
        tenant_id,
        TurnInput(session_id="p", content="Peter is one of our writers. He writes SEO articles."),
    )
    assert result.jobs
    await ingest.queue.drain()
    peter = next(e for e in result.entities if e.name == "Peter")
    refreshed = await brain.graph.tenant(tenant_id).get_entity(peter.id)
    assert refreshed.profile_summary and "writer" in refreshed.profile_summary
    assert refreshed.profile_embedding is not None
    assert await brain.graph.tenant(tenant_id).pending_jobs() == []
