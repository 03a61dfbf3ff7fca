"""Creating an entity for a new name once, whoever else creates it at the same time."""

from __future__ import annotations

import asyncio

import pytest

from core.types import EntityType
from graph.store import GraphStore

pytestmark = pytest.mark.integration


async def test_a_name_created_at_once_by_several_writers_is_one_entity(
    graph: GraphStore, tenant_id: str
) -> None:
    # What API replicas meeting "Zephyr Labs" in several sessions at once send: no
    # in-process lock orders them, the statement does.
    g = graph.tenant(tenant_id)
    results = await asyncio.gather(
        *(g.create_entity_once("Zephyr Labs", EntityType.ORG, EntityType.ORG) for _ in range(4))
    )
    assert sum(created for _, created in results) == 1
    (zephyr,) = await g.find_by_alias("zephyr labs")
    assert {e.id for e, _ in results} == {zephyr.id}
    assert zephyr.type is EntityType.ORG and zephyr.aliases == ("Zephyr Labs",)

    # the same for a name whose alias exists already (it names two places, so no project):
    # the writers take turns on the alias node rather than on creating it
    for _ in range(2):
        await g.create_entity("Apollo", EntityType.PLACE)
    results = await asyncio.gather(
        *(g.create_entity_once("Apollo", EntityType.PROJECT, EntityType.PROJECT) for _ in range(3))
    )
    assert sum(created for _, created in results) == 1
    projects = [e for e in await g.find_by_alias("apollo") if e.type is EntityType.PROJECT]
    assert [p.id for p in projects] == [results[0][0].id] == [e.id for e, _ in results][1:2]


async def test_create_once_finds_as_resolution_does(
    graph: GraphStore, tenant_id: str, other_tenant_id: str
) -> None:
    g = graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    # a mention of another (guessed) type still names the one entity called so
    found, created = await g.create_entity_once("peter", EntityType.PLACE, EntityType.PLACE)
    assert (found.id, created) == (peter.id, False)
    # with no type to agree on, too
    found, created = await g.create_entity_once("Peter", EntityType.PERSON, None)
    assert (found.id, created) == (peter.id, False)

    # two entities of one name, one of the mention's type: that one
    await g.create_entity("Mercury", EntityType.PROJECT)
    place = await g.create_entity("Mercury", EntityType.PLACE)
    found, created = await g.create_entity_once("Mercury", EntityType.PLACE, EntityType.PLACE)
    assert (found.id, created) == (place.id, False)
    # two of the same type: the name names neither, so a new entity is made
    await g.create_entity("Mercury", EntityType.PLACE)
    found, created = await g.create_entity_once("Mercury", EntityType.PLACE, EntityType.PLACE)
    assert created and found.id != place.id
    assert len(await g.find_by_alias("mercury")) == 4

    # a merged entity's name leads to the entity it was merged into
    keep = await g.create_entity("Dana Whit", EntityType.PERSON)
    drop = await g.create_entity("D. Whit", EntityType.PERSON)
    await g.merge_entities(keep.id, [drop.id], "same person")
    found, created = await g.create_entity_once("D. Whit", EntityType.PERSON, None)
    assert (found.id, created) == (keep.id, False)

    # another tenant's entity of the same name is not found, and it is left as it was
    theirs = graph.tenant(other_tenant_id)
    found, created = await theirs.create_entity_once("Peter", EntityType.PERSON, None)
    assert created and found.id != peter.id and found.tenant_id == other_tenant_id
    assert [e.id for e in await g.find_by_alias("peter")] == [peter.id]
