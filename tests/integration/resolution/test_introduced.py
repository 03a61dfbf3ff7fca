"""People a turn introduces are created by the turn's own transaction (issue 21).

A write-path resolve with a ``source_memory_id`` (the memory the text becomes) does not
create the new or provisional person it decides on: it hands them to its caller
(``Resolution.created``), role, organisation and relations included, to create in the
transaction that stores that memory; ``introduced`` then makes them findable. So a turn that
never commits leaves no entity behind, and the turn's path has one write transaction.
"""

from __future__ import annotations

import pytest

from core.errors import NotFound
from core.types import EntityType
from graph.write_ops import create_identities
from resolution.gazetteer import KnownName
from resolution.resolver import Resolver

pytestmark = pytest.mark.integration

AT = 1_700_000_000.0


async def test_a_new_namesake_is_left_to_the_caller_then_found(
    resolver: Resolver, tenant_id: str
) -> None:
    g = resolver.graph.tenant(tenant_id)
    dunmore = await g.create_entity("Dunmore Foods", EntityType.ORG, at=AT)
    okafor = await g.create_entity("Sarah Okafor", EntityType.PERSON, parent_id=dunmore.id, at=AT)
    brandt = await g.create_entity("Brandt & Voss", EntityType.ORG, at=AT)
    people = await g.entity_count()

    text = "Sarah from the law firm Brandt & Voss reviewed our contract template."
    result = await resolver.resolve(
        tenant_id, text, at=AT, create_missing=True, source_memory_id="m-1"
    )

    # Decided, described and linked in the result, but not written.
    [new] = result.created
    sarah = new.entity
    assert sarah.id != okafor.id and sarah.name == "Sarah" and not sarah.provisional
    assert sarah.parent_id == brandt.id  # works for the firm the sentence names
    assert [(r.target_id, r.relation) for r in new.relations] == [(brandt.id, "works_for")]
    assert sarah.id in result.entity_ids
    [decision] = result.decisions
    assert decision["entity_id"] == sarah.id and decision["outcome"] == "new"
    assert await g.entity_count() == people
    with pytest.raises(NotFound):
        await g.get_entity(sarah.id)

    # The caller's transaction creates her as resolution described her.
    await g.write_many(create_identities(tenant_id, result.created, "m-1"))
    resolver.introduced(tenant_id, result.created)
    stored = await g.get_entity(sarah.id)
    assert (stored.name, stored.parent_id) == ("Sarah", brandt.id)
    [relation] = await g.relations(sarah.id)
    assert (relation.target_id, relation.relation) == (brandt.id, "works_for")
    assert relation.source_memory_id == "m-1"

    # The next text finds her by name and by what she was introduced with.
    again = await resolver.resolve(
        tenant_id, "Sarah from Brandt & Voss sent the signed copy.", at=AT, create_missing=True
    )
    assert sarah.id in again.entity_ids and okafor.id not in again.entity_ids
    assert not again.created

    # Family, where both known Sarahs are known through work: someone new, tagged so.
    cousin = await resolver.resolve(
        tenant_id,
        "My cousin Sarah teaches piano.",
        at=AT,
        create_missing=True,
        source_memory_id="m-3",
    )
    [new] = cousin.created
    assert new.entity.id not in {sarah.id, okafor.id}
    assert "related_to_speaker:cousin" in new.entity.context_tags
    await g.write_many(create_identities(tenant_id, cousin.created, "m-3"))
    assert "related_to_speaker:cousin" in (await g.get_entity(new.entity.id)).context_tags


async def test_an_undecidable_namesake_is_provisional_with_its_links(
    resolver: Resolver, tenant_id: str
) -> None:
    g = resolver.graph.tenant(tenant_id)
    berg = await g.create_entity("Anna Berg", EntityType.PERSON, at=AT)
    costa = await g.create_entity("Anna Costa", EntityType.PERSON, at=AT)
    result = await resolver.resolve(
        tenant_id, "Say hi to Anna", at=AT, create_missing=True, source_memory_id="m-2"
    )
    [new] = result.created
    assert new.entity.provisional
    assert {i for i, _ in new.links} == {berg.id, costa.id}
    assert await g.identity_questions(10) == []  # nothing written yet

    await g.write_many(create_identities(tenant_id, result.created, "m-2"))
    [question] = await g.identity_questions(10)
    assert question.entity.id == new.entity.id
    assert {c.entity.id for c in question.candidates} == {berg.id, costa.id}


async def test_names_added_off_the_path_are_there_for_the_next_text(
    resolver: Resolver, tenant_id: str
) -> None:
    """``extend_soon``: the caller does not wait for the name ruler to grow, the next
    resolve of the tenant does."""
    nlp = await resolver.parser.load()
    names = await resolver.names.get(tenant_id, nlp)
    nadia = KnownName("Nadia Brook", "e-nadia", EntityType.PERSON)
    resolver.names.extend_soon(tenant_id, [nadia])
    assert not names.exact("Nadia Brook")  # not yet: the caller went on
    assert (await resolver.names.get(tenant_id, nlp)).exact("Nadia Brook") == {"e-nadia"}
    result = await resolver.resolve(tenant_id, "Nadia Brook joined the call.", at=AT)
    assert [m.text for m in result.parsed.mentions if m.source == "ruler"] == ["Nadia Brook"]
