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
from core.types import EntityType, NewMemory
from ingest.jobs.queue import JobQueue
from ingest.service import IngestService
from resolution.resolver import Resolver
from tests.integration.ingest.conftest import build_ingest
from vectors.embedding.embedder import BACKGROUND

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
    assert sorted(int(str(j.payload["n"])) for j in pending) == [2, 3, 4]

    async def fast(tenant: str, payload: Mapping[str, Any]) -> None:
        done.append(int(payload["n"]))

    restarted = JobQueue(brain.graph, IngestSettings())
    restarted.register("work", fast)
    assert await restarted.start(tenants=[tenant_id]) == 3
    await restarted.drain()
    await restarted.stop()
    assert sorted(done) == [0, 1, 2, 3, 4]
    assert await brain.graph.tenant(tenant_id).pending_jobs() == []


async def test_memories_and_documents_about_entities_queue_their_profile_refresh(
    brain: Brain, resolver: Resolver, tenant_id: str
) -> None:
    # Not only turns: a remembered memory or a document about an entity changes its profile
    # too. Without the refresh the first ambiguous mention built it on demand (seconds).
    g = brain.graph.tenant(tenant_id)
    mira = await g.create_entity("Mira Holt", EntityType.PERSON)
    await brain.memories.remember(
        tenant_id, NewMemory(content="Mira Holt edits the travel newsletter.", entity_ids=[mira.id])
    )
    (job,) = await g.pending_jobs()
    assert job.kind == "profile_refresh" and job.payload["entity_ids"] == [mira.id]
    # Run by a service started on the same graph (the brain's own queue is not started here).
    service = build_ingest(brain, resolver)
    assert await service.start(tenants=[tenant_id]) == 1
    try:
        await service.queue.drain()
        profiled = await g.get_entity(mira.id)
        assert profiled.profile_summary and "newsletter" in profiled.profile_summary
        result = await service.ingest_document(
            tenant_id, "notes/mira.md", "# Mira Holt\n\nMira Holt also runs the podcast."
        )
        assert mira.id in {e.id for e in result.entities}
        await service.queue.drain()
        profiled = await g.get_entity(mira.id)
        assert profiled.profile_summary and "podcast" in profiled.profile_summary
    finally:
        await service.stop()
    assert await g.pending_jobs() == []


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
    result = await ingest.turns.record_turn(
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


def _union(payloads: Any) -> dict[str, Any]:
    return {"ids": [i for p in payloads for i in p["ids"]]}


def _gated() -> tuple[list[list[int]], asyncio.Event, Any]:
    """A merged kind's handler that records each run's ids, then waits for the gate."""
    runs: list[list[int]] = []
    gate = asyncio.Event()

    async def handler(tenant: str, payload: Mapping[str, Any]) -> None:
        runs.append(sorted(payload["ids"]))
        await gate.wait()

    return runs, gate, handler


async def test_a_job_runs_as_background_work(brain: Brain, tenant_id: str) -> None:
    """Nobody waits for a job: its embeddings go to the model's background lane."""
    seen: list[bool] = []

    async def handler(tenant: str, payload: Mapping[str, Any]) -> None:
        seen.append(BACKGROUND.get())

    queue = JobQueue(brain.graph, IngestSettings())
    queue.register("work", handler)
    await queue.start(tenants=[])
    await queue.enqueue(tenant_id, "work", {})
    await queue.drain()
    await queue.stop()
    assert seen == [True]
    assert BACKGROUND.get() is False  # the caller that enqueued it is not background work


async def test_jobs_of_a_merged_kind_settle_and_run_as_one(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    runs: list[tuple[str, list[int]]] = []

    async def handler(tenant: str, payload: Mapping[str, Any]) -> None:
        runs.append((tenant, sorted(payload["ids"])))

    queue = JobQueue(brain.graph, IngestSettings())
    queue.register("merged", handler, merge=_union, settle=0.2)
    await queue.start(tenants=[])
    for n in range(4):
        await queue.enqueue(tenant_id, "merged", {"ids": [n]})
    await queue.enqueue(other_tenant_id, "merged", {"ids": [9]})
    async with asyncio.timeout(10):  # no drain: the settle timer releases them
        while queue.completed < 5:
            await asyncio.sleep(0.01)
    await queue.stop()
    # one run per tenant, never a payload mixing tenants
    assert sorted(runs) == [(other_tenant_id, [9]), (tenant_id, [0, 1, 2, 3])]
    assert queue.runs == 2 and queue.depth == 0
    assert await brain.graph.tenant(tenant_id).pending_jobs() == []


async def test_jobs_that_pile_up_behind_a_run_join_the_next_one(
    brain: Brain, tenant_id: str
) -> None:
    runs, gate, handler = _gated()
    queue = JobQueue(brain.graph, IngestSettings())
    queue.register("merged", handler, merge=_union, settle=0.0)
    await queue.start(tenants=[])
    await queue.enqueue(tenant_id, "merged", {"ids": [0]})
    async with asyncio.timeout(10):
        while not runs:  # the first run is under way, blocked at the gate
            await asyncio.sleep(0.01)
    for n in range(1, 6):
        await queue.enqueue(tenant_id, "merged", {"ids": [n]})
    assert queue.depth == 6
    gate.set()
    await queue.drain()
    await queue.stop()
    assert runs == [[0], [1, 2, 3, 4, 5]]


@pytest.mark.parametrize("duty", [1.0, 0.25])
async def test_a_merged_kind_with_a_duty_rests_after_each_run(
    brain: Brain, tenant_id: str, duty: float
) -> None:
    """A run that took 0.2 s with duty 0.25 makes the next wait 0.6 s after it (and the jobs
    of that wait run as one); with duty 1 the next only settles (0.05 s)."""
    spans: list[tuple[float, float, list[int]]] = []

    async def handler(tenant: str, payload: Mapping[str, Any]) -> None:
        start = asyncio.get_running_loop().time()
        await asyncio.sleep(0.2)
        spans.append((start, asyncio.get_running_loop().time(), sorted(payload["ids"])))

    queue = JobQueue(brain.graph, IngestSettings())
    queue.register("merged", handler, merge=_union, settle=0.05, duty=duty)
    await queue.start(tenants=[])
    await queue.enqueue(tenant_id, "merged", {"ids": [0]})
    async with asyncio.timeout(10):
        while not spans:
            await asyncio.sleep(0.005)
        for n in (1, 2):
            await queue.enqueue(tenant_id, "merged", {"ids": [n]})
        while queue.completed < 3:
            await asyncio.sleep(0.005)
    await queue.stop()
    (_, first_end, _), (second_start, _, second_ids) = spans
    gap = second_start - first_end
    if duty < 1:
        assert gap >= 0.55 and second_ids == [1, 2], spans
    else:
        assert gap < 0.4, spans


async def test_a_failing_merged_run_retries_every_job_then_keeps_them_failed(
    brain: Brain, tenant_id: str
) -> None:
    calls: list[list[int]] = []

    async def broken(tenant: str, payload: Mapping[str, Any]) -> None:
        calls.append(sorted(payload["ids"]))
        raise RuntimeError("model unavailable")

    settings = IngestSettings(queue_max_attempts=2, queue_retry_seconds=0.01)
    queue = JobQueue(brain.graph, settings)
    queue.register("merged", broken, merge=_union, settle=5.0)  # drain does not wait for it
    await queue.start(tenants=[])
    jobs = [await queue.enqueue(tenant_id, "merged", {"ids": [n]}) for n in range(3)]
    await queue.drain()
    await queue.stop()
    assert calls == [[0, 1, 2], [0, 1, 2]]
    stored = await brain.graph.tenant(tenant_id).get_jobs([j.id for j in jobs])
    assert {(s.status, s.attempts) for s in stored.values()} == {(JobStatus.FAILED, 2)}
    assert queue.failed == 3


async def test_turns_about_the_same_people_refresh_their_profiles_once(
    brain: Brain, resolver: Any, tenant_id: str
) -> None:
    service = build_ingest(brain, resolver)  # its own queue: counts only these turns
    await service.start(tenants=[])
    try:
        texts = [
            "Peter is one of our writers at WOBS.",
            "Peter writes the SEO articles for the Anderson order.",
            "Peter also edits the newsletter.",
        ]
        results = [
            await service.turns.record_turn(tenant_id, TurnInput(session_id="merge", content=text))
            for text in texts
        ]
        await service.queue.drain()
        assert service.queue.completed == 3 and service.queue.runs == 1
        ids = {e.id for r in results for e in r.entities if e.name == "Peter"}
        assert len(ids) == 1
        peter = await brain.graph.tenant(tenant_id).get_entity(ids.pop())
        assert peter.profile_summary and "newsletter" in peter.profile_summary
        assert "writers" in peter.profile_summary
    finally:
        await service.stop()


async def test_settling_jobs_join_the_run_in_line_and_run_once(
    brain: Brain, tenant_id: str
) -> None:
    runs, gate, handler = _gated()
    queue = JobQueue(brain.graph, IngestSettings(queue_workers=2))
    queue.register("merged", handler, merge=_union, settle=0.3)
    await queue.start(tenants=[])
    await queue.enqueue(tenant_id, "merged", {"ids": [0]})
    await queue.enqueue(tenant_id, "merged", {"ids": [1]})  # settles with 0
    async with asyncio.timeout(10):
        while not runs:
            await asyncio.sleep(0.01)
    # 0 and 1 run as one on one worker; the other worker takes 2 when it is released and
    # blocks too; 3 and 4, released into the line meanwhile, wait for a free worker, and 5
    # and 6, still settling then, join them.
    await queue.enqueue(tenant_id, "merged", {"ids": [2]})
    async with asyncio.timeout(10):
        while len(runs) < 2:
            await asyncio.sleep(0.01)
    for n in (3, 4):
        await queue.enqueue(tenant_id, "merged", {"ids": [n]})
    await asyncio.sleep(0.5)  # 3 and 4 are in line now
    for n in (5, 6):
        await queue.enqueue(tenant_id, "merged", {"ids": [n]})
    gate.set()
    async with asyncio.timeout(10):
        while queue.completed < 7:
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.5)  # a duplicate run of 5 and 6 would have come by now
    await queue.stop()
    assert runs == [[0, 1], [2], [3, 4, 5, 6]]
    assert queue.runs == 3
