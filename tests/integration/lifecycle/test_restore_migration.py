"""The data migrations that give back what the old lifecycle rules hid: turns a flush expired,
memories a prune faded out, episodes a compression hid; what a user forgot stays forgotten."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncManagedTransaction

from api.brain import Brain
from core.clock import NEVER, now
from core.ingest_types import TurnInput
from core.retrieval_types import SearchQuery
from core.types import NewMemory

pytestmark = pytest.mark.integration

# The old rules' writes, replayed on this tenant's records (test set-up only: no statement
# of the service writes these states any more).
OLD_FLUSH = """MATCH (s:Session {sid: $session, tenant_id: $tenant})
SET s.flushed_at = $at
WITH s
MATCH (m:Memory {session_id: s.sid, tenant_id: $tenant}) WHERE m.id IN $expired
SET m.wm_state = 'expired', m.expires_at = $at, m.indexed = false"""
OLD_FORGET_BEFORE_FLUSH = """MATCH (m:Memory {id: $id, tenant_id: $tenant})
SET m.wm_state = 'expired', m.expires_at = $expires_at, m.indexed = false"""
OLD_PRUNE = """MATCH (m:Memory {id: $id, tenant_id: $tenant})
SET m.pruned_at = $at, m.expires_at = $at, m.indexed = false"""
OLD_COMPRESS = """MATCH (p:Memory {id: $pattern, tenant_id: $tenant})
MATCH (m:Memory {id: $id, tenant_id: $tenant})
SET m.summarized_by = p.id, m.superseded_by = p.id, m.superseded_at = $at, m.indexed = false"""


async def _raw(brain: Brain, text: str, **params: Any) -> None:
    async def work(tx: AsyncManagedTransaction) -> Any:
        return await brain.graph._run(tx, text, params)

    await brain.graph._execute_write(work)


async def test_restore_migrations_give_back_hidden_records_but_not_forgotten_ones(
    brain: Brain, tenant_id: str
) -> None:
    say = brain.ingest.turns.record_turn
    at = now()
    expired = await say(
        tenant_id, TurnInput(session_id="old", content="The Gdansk warehouse door code is 4471.")
    )
    forgotten = await say(
        tenant_id, TurnInput(session_id="old", content="My old bank PIN was 1234, scrap it.")
    )
    faded = await brain.memories.remember(
        tenant_id, NewMemory(content="Blog traffic was 480 a week.")
    )
    pattern = await brain.memories.remember(
        tenant_id, NewMemory(content="Recurring: weekly checks.")
    )
    compressed = await brain.memories.remember(
        tenant_id, NewMemory(content="Checked the Kraków batch on Monday.")
    )
    await _raw(
        brain, OLD_FLUSH, tenant=tenant_id, session="old", at=at, expired=[expired.episode.id]
    )
    await _raw(
        brain,
        OLD_FORGET_BEFORE_FLUSH,
        tenant=tenant_id,
        id=forgotten.episode.id,
        expires_at=at - 10,
    )
    await _raw(brain, OLD_PRUNE, tenant=tenant_id, id=faded.id, at=at)
    await _raw(brain, OLD_COMPRESS, tenant=tenant_id, pattern=pattern.id, id=compressed.id, at=at)
    await brain.memories.reconcile([tenant_id])
    hidden = await brain.memories.get_many(tenant_id, [expired.episode.id, faded.id, compressed.id])
    assert not any(m.is_live(now()) and m.is_current for m in hidden.values())

    changed = {}
    for name in ("restore_flushed_turns", "restore_pruned", "restore_summarized"):
        rows = await brain.graph.system.write(f"migrate_{name}")
        changed[name] = rows[0]["changed"]
    await brain.memories.reconcile([tenant_id])

    assert all(n >= 1 for n in changed.values()), changed
    back = await brain.memories.get_many(tenant_id, [expired.episode.id, faded.id, compressed.id])
    assert all(m.is_live(now()) and m.is_current for m in back.values())
    assert back[compressed.id].summarized_by == pattern.id  # still listed by its pattern
    still = await brain.memories.get(tenant_id, forgotten.episode.id)
    assert still.expires_at < NEVER and not still.is_live(now())
    for query, memory_id in (
        ("What is the Gdansk warehouse door code?", expired.episode.id),
        ("How much blog traffic did we get?", faded.id),
        ("Which batch was checked on Monday?", compressed.id),
    ):
        hits = (await brain.reads.search(tenant_id, SearchQuery(query=query))).hits
        # the memory, or the statement a restored turn states ("the door code is 4471")
        top = hits[0].memory if hits else None
        assert top is not None and (
            top.id == memory_id or (top.source or "").endswith(memory_id)
        ), query
        assert memory_id in [h.memory.id for h in hits], query
