"""Task extraction through recordTurn and the confirm / dismiss / expire lifecycle."""

from __future__ import annotations

import asyncio

import pytest

from api.brain import Brain
from core.errors import Conflict, InvalidInput, NotFound
from core.ids import new_id
from core.ingest_types import Role, TaskPriority, TaskStatus, TurnInput
from core.retrieval_types import SearchQuery
from core.types import MemoryType
from ingest.service import IngestService
from resolution.resolver import Resolver
from tests.integration.ingest.conftest import build_ingest

pytestmark = pytest.mark.integration


async def say(ingest: IngestService, tenant: str, text: str, at: float | None = None):  # noqa: ANN201
    return await ingest.turns.record_turn(tenant, TurnInput(session_id="t", content=text, at=at))


async def test_a_todo_becomes_a_searchable_candidate_task(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    result = await say(ingest, tenant_id, "TODO: update the style guide for the writers")
    assert len(result.tasks) == 1
    task = result.tasks[0]
    assert task.status is TaskStatus.CANDIDATE and task.priority is TaskPriority.MEDIUM
    assert task.content == "Update the style guide for the writers"
    assert 0.70 <= task.confidence < 0.85
    await ingest.writer.sync.marks.flush()  # the indexed mark is written off the request path
    memory = await brain.memories.get(tenant_id, task.id)
    assert memory.type is MemoryType.TASK and memory.indexed
    hits = await brain.reads.search(
        tenant_id, SearchQuery(query="style guide", types=(MemoryType.TASK,))
    )
    assert [h.memory.id for h in hits.hits] == [task.id]


async def test_vague_needs_and_assistant_turns_make_no_task(
    ingest: IngestService, tenant_id: str
) -> None:
    assert (await say(ingest, tenant_id, "I need to sleep.")).tasks == ()
    said = await ingest.turns.record_turn(
        tenant_id,
        TurnInput(session_id="t", role=Role.ASSISTANT, content="TODO: update the style guide"),
    )
    assert said.tasks == ()
    assert await ingest.tasks.page(tenant_id) == []


async def test_repetition_deduplicates_and_raises_priority(
    ingest: IngestService, tenant_id: str
) -> None:
    text = "Don't forget to send the backlink report to Anderson."
    first = (await say(ingest, tenant_id, text)).tasks[0]
    await say(ingest, tenant_id, "don't forget to send the backlink report to Anderson!")
    third = (await say(ingest, tenant_id, text)).tasks[0]
    assert third.id == first.id and third.mentions == 3
    assert third.confidence > first.confidence and third.priority is TaskPriority.HIGH
    assert len(await ingest.tasks.page(tenant_id)) == 1


async def test_confirm_dismiss_and_expire(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    a = (await say(ingest, tenant_id, "TODO: renew the hosting contract for WOBS")).tasks[0]
    b = (await say(ingest, tenant_id, "TODO: migrate the staging server to Hetzner")).tasks[0]
    old = 1_600_000_000.0
    c = (await say(ingest, tenant_id, "TODO: archive the old editorial calendar", at=old)).tasks[0]
    confirmed = await ingest.tasks.confirm(tenant_id, a.id)
    assert confirmed.status is TaskStatus.CONFIRMED
    dismissed = await ingest.tasks.dismiss(tenant_id, b.id)
    assert dismissed.status is TaskStatus.DISMISSED
    assert not (await brain.memories.get(tenant_id, b.id)).is_live(10**12)
    with pytest.raises(Conflict):
        await ingest.tasks.confirm(tenant_id, b.id)
    expired = await ingest.tasks.expire(tenant_id)
    assert expired == [c.id]
    statuses = {t.id: t.status for t in await ingest.tasks.page(tenant_id)}
    assert statuses == {
        a.id: TaskStatus.CONFIRMED,
        b.id: TaskStatus.DISMISSED,
        c.id: TaskStatus.EXPIRED,
    }
    assert [t.id for t in await ingest.tasks.page(tenant_id, TaskStatus.CONFIRMED)] == [a.id]
    hits = await brain.reads.search(tenant_id, SearchQuery(query="staging server hosting calendar"))
    assert b.id not in [h.memory.id for h in hits.hits]
    with pytest.raises(NotFound):
        await ingest.tasks.confirm(tenant_id, new_id())
    with pytest.raises(InvalidInput):
        await ingest.tasks.confirm(tenant_id, "not-an-id")


async def test_tasks_are_invisible_to_another_tenant(
    ingest: IngestService, tenant_id: str, other_tenant_id: str
) -> None:
    task = (await say(ingest, tenant_id, "TODO: renew the hosting contract for WOBS")).tasks[0]
    assert await ingest.tasks.page(other_tenant_id) == []
    with pytest.raises(NotFound):
        await ingest.tasks.confirm(other_tenant_id, task.id)
    with pytest.raises(NotFound):
        await ingest.tasks.dismiss(other_tenant_id, task.id)
    assert (await ingest.tasks.page(tenant_id))[0].status is TaskStatus.CANDIDATE


async def test_a_tenants_tasks_are_one_index_lookup_also_after_an_upgrade(
    ingest: IngestService, brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    """Listing, expiring and the task bonus find a tenant's tasks through the task_tenant
    index (the tenant id on task memories), never another tenant's; a database written
    before that key gets it at the next start; export leaves it out."""
    task = (await say(ingest, tenant_id, "TODO: update the style guide for the writers")).tasks[0]
    await ingest.tasks.confirm(tenant_id, task.id)
    graph, ours, theirs = (
        brain.graph,
        brain.graph.tenant(tenant_id),
        brain.graph.tenant(other_tenant_id),
    )
    assert [t.id for t in await ingest.tasks.page(tenant_id)] == [task.id]
    assert await ours.confirmed_task_ids(10) == [task.id]
    assert await ingest.tasks.page(other_tenant_id) == []
    assert await theirs.confirmed_task_ids(10) == []

    async def as_before(tx: object) -> object:  # the state an older version left behind
        await graph._run(tx, "MATCH (m:Memory {id: $id}) REMOVE m.task_tenant", {"id": task.id})  # type: ignore[arg-type]
        return await graph._run(tx, "MATCH (g:Migration {name: 'task_tenant'}) DELETE g", {})  # type: ignore[arg-type]

    await graph._execute_write(as_before)  # type: ignore[arg-type]
    assert await ingest.tasks.page(tenant_id) == []
    await graph.install_schema()
    assert [t.id for t in await ingest.tasks.page(tenant_id)] == [task.id]
    assert await ours.confirmed_task_ids(10) == [task.id]
    records = [r async for r in ours.export_records()]
    assert all("task_tenant" not in r.get("memory", {}) for r in records)


async def test_a_task_said_in_two_replicas_at_once_is_one_task(
    ingest: IngestService, brain: Brain, resolver: Resolver, tenant_id: str
) -> None:
    # A second service on the same engines is what another API replica is: its in-process
    # locks do not order its turns against this one's; the graph statement does.
    replica = build_ingest(brain, resolver)
    await replica.start(tenants=[])
    text = "TODO: renew the certificate for the blog network"
    results = []
    try:
        for _ in range(2):  # the race is not certain in one round
            results += await asyncio.gather(
                *(
                    service.turns.record_turn(
                        tenant_id, TurnInput(session_id=f"r{i}", user_id="u1", content=text)
                    )
                    for i, service in enumerate((ingest, replica, ingest, replica))
                )
            )
    finally:
        await replica.stop()
    (task,) = await ingest.tasks.page(tenant_id)
    assert task.mentions == 8
    assert all([t.id for t in r.tasks] == [task.id] for r in results)
    assert [m.id for r in results for m in r.extracted if m.type is MemoryType.TASK] == [task.id]
    hits = await brain.reads.search(tenant_id, SearchQuery(query="renew the certificate", top_k=10))
    assert [h.memory.id for h in hits.hits if h.memory.type is MemoryType.TASK] == [task.id]
    assert await brain.index.count(tenant_id) == 1 + 8  # the task and eight turns, no stray
