"""`resolve` and `reprofileEntities` through the API (the resolver itself is tested in
tests/integration/resolution/)."""

from __future__ import annotations

import pytest

from api.auth import create_key
from api.brain import Brain
from core.types import EntityType, MemoryType, NewMemory
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

RESOLVE = """query($text: String!, $session: String) { resolve(text: $text, sessionId: $session) {
  __typename ... on ResolveResult { ambiguous entities { id name }
    references { text method entity { id } }
    clarification { question candidates { id } } } } }"""


async def test_resolve_and_reprofile(brain: Brain, tenant_id: str, other_tenant_id: str) -> None:
    g = brain.graph.tenant(tenant_id)
    wobs = await g.create_entity("Wolf of Blog Street", EntityType.ORG, aliases=["WOBS"])
    peter = await g.create_entity("Peter", EntityType.PERSON)
    await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Peter is one of our writers at WOBS",
            type=MemoryType.SEMANTIC,
            entity_ids=[peter.id, wobs.id],
        ),
    )
    brain.resolver.names.invalidate(tenant_id)
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)

    reprofiled = await client.data(
        "mutation { reprofileEntities { ... on ReprofileReport { entities } } }"
    )
    assert reprofiled["reprofileEntities"]["entities"] == 2
    profile = await client.data(
        f'{{ entity(id: "{peter.id}") {{ ... on Entity {{ profileSummary }} }} }}'
    )
    assert "writer" in profile["entity"]["profileSummary"]

    data = await client.data(
        RESOLVE, text="Check if the WOBS articles are passing as human", session=None
    )
    assert [e["id"] for e in data["resolve"]["entities"]] == [wobs.id]
    assert data["resolve"]["ambiguous"] is False
    before = await brain.resolver.tracked(tenant_id, "s1")
    await client.data(RESOLVE, text="Ask Peter about WOBS", session="s1")
    assert await brain.resolver.tracked(tenant_id, "s1") == before  # a read does not advance it
    entities_after = await g.entity_count()
    await client.data(RESOLVE, text="Maria from Globex called", session=None)
    assert await g.entity_count() == entities_after  # a read never creates entities

    _, other_key = await create_key(brain.graph, other_tenant_id)
    other = await Client(brain, other_key).data(
        RESOLVE, text="Check the WOBS articles", session=None
    )
    assert other["resolve"]["entities"] == []
    bad = await client.data('mutation { reprofileEntities(ids: ["nope"]) { __typename } }')
    assert bad["reprofileEntities"]["__typename"] == "InvalidInputError"
