"""The durable write path end to end on the real engines: remember, supersede, forget, erase,
bad input, tenancy, and reconciliation."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.clock import now
from core.errors import Conflict, InvalidInput, NotFound
from core.ids import new_id
from core.retrieval_types import SearchQuery
from core.text import content_hash
from core.types import EntityType, Memory, MemoryType, NewMemory
from ingest.write.reconcile import reconcile
from vectors.payload import payload_of
from vectors.vector_index import VectorPoint

pytestmark = pytest.mark.integration


async def counts(brain: Brain, tenant: str) -> tuple[int, int]:
    total, _ = await brain.graph.tenant(tenant).memory_counts()
    return total, await brain.index.count(tenant)


async def top(brain: Brain, tenant: str, query: str, **kw: object) -> list[str]:
    result = await brain.reads.search(tenant, SearchQuery(query=query, **kw))  # type: ignore[arg-type]
    return [h.memory.content for h in result.hits]


async def test_remembered_memory_is_searchable_at_once(brain: Brain, tenant_id: str) -> None:
    await brain.memories.remember(tenant_id, NewMemory(content="The office cat is called Miso"))
    m = await brain.memories.remember(
        tenant_id, NewMemory(content="Peter is a writer at WOBS", type=MemoryType.SEMANTIC)
    )
    assert m.indexed
    stored = await brain.memories.get(tenant_id, m.id)
    assert stored.indexed and stored.content == "Peter is a writer at WOBS"
    assert (await top(brain, tenant_id, "who writes articles for WOBS?"))[0] == m.content
    assert await counts(brain, tenant_id) == (2, 2)


async def test_a_batch_embeds_each_text_once(
    brain: Brain, tenant_id: str, embedded: list[str]
) -> None:
    said = "Invoices over 5,000 euros need a second approval"
    fact, rule, other = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content=said, type=MemoryType.FACT),
            NewMemory(content=said, type=MemoryType.PROCEDURAL),
            NewMemory(content="The office cat is called Miso"),
        ],
    )
    assert sorted(embedded) == sorted([said, other.content])  # the shared text once
    hits = await brain.reads.search(tenant_id, SearchQuery(query="who approves large invoices?"))
    assert {fact.id, rule.id} <= {h.memory.id for h in hits.hits[:3]}


@pytest.mark.parametrize(
    "content",
    ["", "   \n\t", "x" * 40_000, "nul \x00 byte"],
    ids=["empty", "blank", "oversized", "nul"],
)
async def test_bad_content_is_rejected_and_changes_nothing(
    brain: Brain, tenant_id: str, content: str
) -> None:
    await brain.memories.remember(tenant_id, NewMemory(content="baseline"))
    with pytest.raises(InvalidInput) as err:
        await brain.memories.remember(tenant_id, NewMemory(content=content))
    assert err.value.field == "content"
    assert await counts(brain, tenant_id) == (1, 1)


async def test_a_bad_item_rejects_the_whole_batch(brain: Brain, tenant_id: str) -> None:
    with pytest.raises(InvalidInput):
        await brain.memories.remember_many(
            tenant_id, [NewMemory(content="fine"), NewMemory(content=" ")]
        )
    assert await counts(brain, tenant_id) == (0, 0)


async def test_unknown_or_malformed_entity_ids_change_nothing(brain: Brain, tenant_id: str) -> None:
    for ids in ([new_id()], ["not-a-uuid"]):
        with pytest.raises(InvalidInput):
            await brain.memories.remember(
                tenant_id, NewMemory(content="about a ghost", entity_ids=ids)
            )
    assert await counts(brain, tenant_id) == (0, 0)


async def test_supersede_serves_the_correction_and_as_of_the_original(
    brain: Brain, tenant_id: str
) -> None:
    old = await brain.memories.remember(tenant_id, NewMemory(content="Our deploy target is Heroku"))
    between = now()
    new = await brain.memories.supersede(tenant_id, old.id, "Our deploy target is AWS", "migrated")
    assert new.supersedes == old.id
    current = await top(brain, tenant_id, "what is our deploy target?")
    assert current == ["Our deploy target is AWS"]
    assert await top(brain, tenant_id, "what is our deploy target?", as_of=between) == [
        "Our deploy target is Heroku"
    ]
    chain = await brain.memories.lineage(tenant_id, new.id)
    assert [(c.memory.id, c.current) for c in chain] == [(old.id, False), (new.id, True)]
    assert all(c.memory.indexed for c in chain)
    with pytest.raises(Conflict):
        await brain.memories.supersede(tenant_id, old.id, "fork", None)
    with pytest.raises(InvalidInput):
        await brain.memories.supersede(tenant_id, new.id, "  ", None)
    assert len(await brain.memories.lineage(tenant_id, new.id)) == 2


async def test_forget_hides_but_keeps_the_record(brain: Brain, tenant_id: str) -> None:
    m = await brain.memories.remember(tenant_id, NewMemory(content="The wifi password is hunter2"))
    await brain.memories.forget(tenant_id, m.id)
    assert await top(brain, tenant_id, "wifi password") == []
    kept = await brain.memories.get(tenant_id, m.id)
    assert kept.expires_at <= now() and kept.indexed


async def test_erase_removes_from_both_engines(brain: Brain, tenant_id: str) -> None:
    g = brain.graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    about = await brain.memories.remember(
        tenant_id, NewMemory(content="Peter lives in Leeds", entity_ids=[peter.id])
    )
    by_user = await brain.memories.remember(
        tenant_id, NewMemory(content="I prefer tea", user_id="u1")
    )
    keep = await brain.memories.remember(tenant_id, NewMemory(content="The sky is blue"))

    report = await brain.memories.erase(tenant_id, entity_id=peter.id)
    assert report.memory_ids == (about.id,) and report.entity_ids == (peter.id,)
    report = await brain.memories.erase(tenant_id, user_id="u1")
    assert report.memory_ids == (by_user.id,)
    assert await brain.index.retrieve(tenant_id, [about.id, by_user.id]) == {}
    assert await g.get_memories([about.id, by_user.id]) == {}
    assert await counts(brain, tenant_id) == (1, 1)
    assert (await brain.memories.get(tenant_id, keep.id)).content == "The sky is blue"
    with pytest.raises(InvalidInput):
        await brain.memories.erase(tenant_id)
    with pytest.raises(NotFound):
        await brain.memories.erase(tenant_id, memory_ids=[new_id()])


async def test_another_tenant_cannot_read_find_supersede_or_erase(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    m = await brain.memories.remember(tenant_id, NewMemory(content="Peter is a writer at WOBS"))
    with pytest.raises(NotFound):
        await brain.memories.get(other_tenant_id, m.id)
    assert await top(brain, other_tenant_id, "Peter is a writer at WOBS") == []
    with pytest.raises(NotFound):
        await brain.memories.supersede(other_tenant_id, m.id, "Peter was fired", "hostile")
    with pytest.raises(NotFound):
        await brain.memories.forget(other_tenant_id, m.id)
    with pytest.raises(NotFound):
        await brain.memories.erase(other_tenant_id, memory_ids=[m.id])
    with pytest.raises(NotFound):
        await brain.memories.lineage(other_tenant_id, m.id)
    still = await brain.memories.get(tenant_id, m.id)
    assert still.is_current and still.expires_at > now()
    assert await top(brain, tenant_id, "Peter is a writer at WOBS") == [m.content]


async def test_reconcile_indexes_graph_only_memories_and_drops_orphans(
    brain: Brain, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    t = now()
    stranded = Memory(
        id=new_id(),
        tenant_id=tenant_id,
        type=MemoryType.FACT,
        content="Invoices go out on Fridays",
        created_at=t,
        valid_from=t,
        content_hash=content_hash("Invoices go out on Fridays"),
    )
    await g.create_memories([stranded])  # as if the process died before the vector write
    orphan = stranded.model_copy(update={"id": new_id(), "content": "orphan"})
    vec = (await brain.embedder.embed_documents(["orphan"]))[0]
    await brain.index.upsert([VectorPoint(orphan.id, vec, "orphan", payload_of(orphan))])
    assert await top(brain, tenant_id, "when do invoices go out?") == []

    report = await brain.memories.reconcile([tenant_id])
    assert report.reindexed == 1 and report.orphans_removed == 1
    assert await top(brain, tenant_id, "when do invoices go out?") == ["Invoices go out on Fridays"]
    assert (await g.get_memory(stranded.id)).indexed
    assert await brain.index.retrieve(tenant_id, [orphan.id]) == {}
    again = await brain.memories.reconcile([tenant_id])
    assert again.reindexed == 0 and again.orphans_removed == 0


async def test_reconcile_of_a_consistent_tenant_compares_counts_not_ids(
    brain: Brain, tenant_id: str
) -> None:
    """No orphan search id by id when the index holds no more points than the graph has
    memories: two counts, whatever the tenant's size."""
    await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"Fact number {i}") for i in range(3)]
    )
    for writer in (brain.writer, brain.ingest.writer):
        await writer.sync.marks.flush()  # the deferred indexed marks are in the graph
    before = brain.graph.round_trips
    report = await reconcile(brain.writer, [tenant_id], batch=1)
    assert report.orphans_removed == 0
    assert brain.graph.round_trips - before == 2  # unindexed ids, memory count
