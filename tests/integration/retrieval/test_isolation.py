"""Tenant isolation of every retrieval path: another tenant's memories, entities, pinned core
memory, turns and access counts never reach (or change) this tenant's results."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.clock import now
from core.retrieval_types import ContextRequest, SearchQuery
from core.types import EntityType, MemoryType, NewMemory
from retrieval.assembly import ContextAssembler
from retrieval.retriever import Retriever

pytestmark = pytest.mark.integration


async def test_no_path_crosses_tenants(
    brain: Brain, retriever: Retriever, tenant_id: str, other_tenant_id: str
) -> None:
    other = brain.graph.tenant(other_tenant_id)
    secret_person = await other.create_entity("Orion", EntityType.PERSON)
    secret = await brain.memories.remember_many(
        other_tenant_id,
        [
            NewMemory(content="Orion's salary is 90k", entity_ids=[secret_person.id]),
            NewMemory(content="Orion core rule: never discuss salary", pinned=True),
            NewMemory(
                content="Orion said hello",
                type=MemoryType.EPISODIC,
                session_id="s1",
                created_at=now() - 10,
            ),
        ],
    )
    mine = await brain.memories.remember(
        tenant_id, NewMemory(content="Our salary bands are public")
    )
    # Another tenant's entity ids, turns and the same keywords: nothing of theirs comes back.
    response = await retriever.search(
        tenant_id,
        SearchQuery(
            query="Orion salary core rule hello",
            entity_ids=(secret_person.id,),
            recent_turns=(secret[2],),
            session_id="s1",
        ),
    )
    assert [h.memory.id for h in response.hits] == [mine.id]
    counts = response.metadata.candidates_per_path
    assert counts["ENTITY"] == counts["CORE"] == counts["CONVERSATION"] == 0
    # ... and their search still finds their own data through every path.
    theirs = await retriever.search(
        other_tenant_id,
        SearchQuery(
            query="Orion salary", entity_ids=(secret_person.id,), recent_turns=(secret[2],)
        ),
    )
    found = {h.memory.id: set(h.paths) for h in theirs.hits}
    assert "ENTITY" in found[secret[0].id] and "CORE" in found[secret[1].id]
    assert "CONVERSATION" in found[secret[2].id] and mine.id not in found


async def test_access_counts_and_context_stay_in_the_tenant(
    brain: Brain,
    retriever: Retriever,
    assembler: ContextAssembler,
    tenant_id: str,
    other_tenant_id: str,
) -> None:
    theirs = await brain.memories.remember(
        other_tenant_id, NewMemory(content="The vault code is 1234", pinned=True)
    )
    await brain.memories.remember(tenant_id, NewMemory(content="The vault is in the basement"))
    ctx = await assembler.assemble(
        tenant_id,
        ContextRequest(session_id="s", query="vault code", recent_turns=(theirs,)),
    )
    assert "1234" not in ctx.text
    assert all(item.memory.tenant_id == tenant_id for item in ctx.items)
    assert retriever.access is not None
    retriever.access.note(tenant_id, [theirs.id])  # a forged id: matches nothing here
    await retriever.access.flush()
    assert (await brain.memories.get(other_tenant_id, theirs.id)).access_count == 0
