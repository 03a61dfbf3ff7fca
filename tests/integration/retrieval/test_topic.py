"""The dense signal measures what a query asks about, not whom it names: in a chat every turn
of a speaker carries the speaker's name, the answer may come from someone else."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.retrieval_types import SearchQuery
from core.types import EntityType, NewMemory
from retrieval.retriever import Retriever

pytestmark = pytest.mark.integration


async def test_similarity_follows_the_topic_not_the_name(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    gina = await g.create_entity("Gina", EntityType.PERSON)
    jon = await g.create_entity("Jon", EntityType.PERSON)
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Jon: I'm currently reading The Lean Startup, hoping for tips for my biz.",
                entity_ids=[jon.id],
            ),
            NewMemory(
                content="Gina: Thanks Jon! Gina is doing great, talk soon.", entity_ids=[gina.id]
            ),
        ],
    )
    query = SearchQuery(query="What book is Gina currently reading?", entity_ids=(gina.id,))
    hits = (await retriever.search(tenant_id, query)).hits
    similarity = {h.memory.content.split(":")[0]: h.signals["similarity"] for h in hits}
    assert similarity["Jon"] > similarity["Gina"]
    # The entity is still matched, by the entity signal.
    assert next(h for h in hits if h.memory.content.startswith("Gina")).signals["entity_match"] > 0
