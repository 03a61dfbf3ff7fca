"""GraphStore contract for entities: aliases, merges, relationships. Runs on the embedded
ArcadeDB always, and on Neo4j when NEO4J_URI is set (memories: ``test_graph_contract.py``)."""

from __future__ import annotations

import asyncio

import pytest

from core.errors import Conflict, InvalidInput, NotFound
from core.ids import new_id
from core.types import EntityType, MemoryType
from graph.store import GraphStore
from tests.memories import a_memory

pytestmark = pytest.mark.integration


async def test_alias_lookup_is_case_accent_and_punctuation_insensitive(
    graph: GraphStore, tenant_id: str
) -> None:
    g = graph.tenant(tenant_id)
    wobs = await g.create_entity("Wolf of Blog Street", EntityType.ORG, aliases=["W.O.B.S."])
    zoe = await g.create_entity("Zoë Martín", EntityType.PERSON)
    assert [e.id for e in await g.find_by_alias("wobs")] == [wobs.id]
    assert [e.id for e in await g.find_by_alias("WOLF OF BLOG  STREET")] == [wobs.id]
    assert [e.id for e in await g.find_by_alias("zoe martin")] == [zoe.id]
    await g.add_alias(zoe.id, "ZM")
    assert [e.id for e in await g.find_by_alias("zm")] == [zoe.id]
    assert "ZM" in (await g.get_entity(zoe.id)).aliases
    assert await g.find_by_alias("nobody") == []


async def test_many_entities_share_a_name(graph: GraphStore, tenant_id: str) -> None:
    g = graph.tenant(tenant_id)
    peters = [await g.create_entity("Peter", EntityType.PERSON) for _ in range(3)]
    assert {e.id for e in await g.find_by_alias("peter")} == {p.id for p in peters}


async def test_merge_and_unmerge(graph: GraphStore, tenant_id: str) -> None:
    g = graph.tenant(tenant_id)
    keep = await g.create_entity("Peter Smith", EntityType.PERSON)
    drop = await g.create_entity("P. Smith", EntityType.PERSON)
    m = a_memory(
        "P. Smith sent the batch", MemoryType.FACT, tenant_id=tenant_id, entity_ids=(drop.id,)
    )
    await g.create_memories([m])

    merge = await g.merge_entities(keep.id, [drop.id], "same writer", by="alice")
    assert merge.drop_ids == (drop.id,) and merge.reason == "same writer" and merge.by == "alice"
    assert [e.id for e in await g.find_by_alias("p smith")] == [keep.id]
    assert m.id in await g.memory_ids_about(keep.id)
    assert (await g.get_entity(drop.id)).merged_into == keep.id
    with pytest.raises(Conflict):
        await g.merge_entities(keep.id, [drop.id], "again")
    bigger = await g.create_entity("Peter S.", EntityType.PERSON)
    with pytest.raises(Conflict):  # keep has absorbed drop: merges stay one hop deep
        await g.merge_entities(bigger.id, [keep.id], "chain")

    undone = await g.unmerge(merge.id)
    assert undone.undone_at is not None
    assert [e.id for e in await g.find_by_alias("p smith")] == [drop.id]
    assert m.id not in await g.memory_ids_about(keep.id)
    with pytest.raises(Conflict):
        await g.unmerge(merge.id)


async def test_merge_bad_input_changes_nothing(graph: GraphStore, tenant_id: str) -> None:
    g = graph.tenant(tenant_id)
    a = await g.create_entity("A", EntityType.ORG)
    with pytest.raises(InvalidInput):
        await g.merge_entities(a.id, [a.id], "self")
    with pytest.raises(InvalidInput):
        await g.merge_entities(a.id, [], "nothing")
    with pytest.raises(NotFound):
        await g.merge_entities(a.id, [new_id()], "ghost")
    with pytest.raises(NotFound):
        await g.unmerge(new_id())
    assert (await g.get_entity(a.id)).merged_into is None


async def test_relationships_with_since_until(graph: GraphStore, tenant_id: str) -> None:
    g = graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    wobs = await g.create_entity("WOBS", EntityType.ORG)
    acme = await g.create_entity("Acme", EntityType.ORG)
    await g.relate(peter.id, acme.id, "works_for", since=100.0, until=200.0)
    await g.relate(peter.id, wobs.id, "works_for", since=200.0)
    assert {r.target_id for r in await g.relations(peter.id)} == {acme.id, wobs.id}
    assert [r.target_id for r in await g.relations(peter.id, at=150.0)] == [acme.id]
    assert [r.target_id for r in await g.relations(peter.id, at=250.0)] == [wobs.id]
    with pytest.raises(InvalidInput):
        await g.relate(peter.id, wobs.id, "x", since=5.0, until=1.0)
    with pytest.raises(NotFound):
        await g.relate(peter.id, new_id(), "knows")


async def test_relate_once_relates_a_pair_once_and_sets_a_missing_parent(
    graph: GraphStore, tenant_id: str, other_tenant_id: str
) -> None:
    g = graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    wobs = await g.create_entity("WOBS", EntityType.ORG)
    acme = await g.create_entity("Acme", EntityType.ORG)

    before = graph.round_trips
    created, now_peter = await g.relate_once(peter.id, wobs.id, "works_for", set_parent=True)
    assert graph.round_trips - before == 1  # check, relate and parent in one statement
    assert created and now_peter.parent_id == wobs.id

    # the same relation again: nothing new; another employer keeps the first parent
    assert (await g.relate_once(peter.id, wobs.id, "works_for", set_parent=True))[0] is False
    created, now_peter = await g.relate_once(peter.id, acme.id, "works_for", set_parent=True)
    assert created and now_peter.parent_id == wobs.id
    assert (await g.relate_once(peter.id, wobs.id, "located_in"))[0]  # another relation
    relations = await g.relations(peter.id)
    assert sorted((r.target_id, r.relation) for r in relations) == sorted(
        [(wobs.id, "works_for"), (acme.id, "works_for"), (wobs.id, "located_in")]
    )

    # two turns stating the same relation at once record it once
    anna = await g.create_entity("Anna", EntityType.PERSON)
    results = await asyncio.gather(
        *(g.relate_once(anna.id, wobs.id, "works_for", set_parent=True) for _ in range(4))
    )
    assert sum(created for created, _ in results) == 1
    assert [r.target_id for r in await g.relations(anna.id)] == [wobs.id]
    assert (await g.get_entity(anna.id)).parent_id == wobs.id
    (row,) = await g.read("entity_get", ids=[anna.id])
    assert "_lock" not in row["e"]  # the write that serializes them leaves nothing behind

    # another tenant can relate neither end, and changes nothing
    theirs = graph.tenant(other_tenant_id)
    their_org = await theirs.create_entity("Initech", EntityType.ORG)
    with pytest.raises(NotFound):
        await theirs.relate_once(peter.id, their_org.id, "works_for", set_parent=True)
    with pytest.raises(NotFound):
        await g.relate_once(anna.id, their_org.id, "works_for", set_parent=True)
    assert len(await g.relations(peter.id)) == 3
    assert await theirs.relations(their_org.id) == []


async def test_forget_and_erase(graph: GraphStore, tenant_id: str) -> None:
    g = graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON, aliases=["Pete"])
    a = a_memory("a", MemoryType.FACT, tenant_id=tenant_id, entity_ids=(peter.id,))
    b = a_memory("b", MemoryType.FACT, tenant_id=tenant_id)
    await g.create_memories([a, b])
    await g.mark_indexed([a.id, b.id])
    assert await g.forget([b.id], at=123.0) == [b.id]
    forgotten = await g.get_memory(b.id)
    assert forgotten.expires_at == 123.0 and not forgotten.indexed  # reindex carries the expiry

    assert await g.erase_memories([a.id, new_id()]) == [a.id]
    assert await g.get_memories([a.id]) == {}
    await g.erase_entity(peter.id)
    assert await g.find_by_alias("pete") == []
    with pytest.raises(NotFound):
        await g.get_entity(peter.id)


async def test_bad_entity_names_are_rejected(graph: GraphStore, tenant_id: str) -> None:
    g = graph.tenant(tenant_id)
    for bad in ["", "   ", "...", "x" * 201]:
        with pytest.raises(InvalidInput):
            await g.create_entity(bad, EntityType.PERSON)
    assert await g.entity_count() == 0
