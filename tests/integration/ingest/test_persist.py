"""The ingest transaction (``ingest/write/persist.py``) on the real engines, when a memory it
makes is already there: made first by another write (an earlier turn's statement memory,
which two turns correcting it at once both make), or by an earlier try of the same write
whose commit its caller never heard of (issue 43, item 3: such a turn failed with a
ConflictError, outside recordTurn's result union)."""

from __future__ import annotations

import asyncio

import pytest

from api.brain import Brain
from core.clock import NEVER, now
from core.statements import statement_id
from core.types import Memory, MemoryType, NewMemory
from graph.write_ops import SupersedeLink
from ingest.write.persist import WriteSet, commit, persist

pytestmark = pytest.mark.integration


def _memory(brain: Brain, tenant_id: str, content: str, memory_id: str | None = None) -> Memory:
    item = NewMemory(content=content, type=MemoryType.FACT, session_id="s1")
    return brain.writer.build(tenant_id, item, memory_id=memory_id)


async def _made_first(
    brain: Brain, tenant_id: str, said: str, changed: str
) -> tuple[Memory, Memory]:
    """A turn that said ``said``, and a later write that made its statement memory (an id
    derived from the turn) and superseded it by ``changed``, as two turns correcting it at
    once both plan to: (that statement memory, the memory that superseded it)."""
    turn = _memory(brain, tenant_id, said)
    await persist(brain.writer, tenant_id, WriteSet(memories=[turn]), now())
    own = statement_id(turn.id, 0)
    statement = _memory(brain, tenant_id, said, memory_id=own)
    first = _memory(brain, tenant_id, changed)
    await persist(
        brain.writer,
        tenant_id,
        WriteSet(memories=[first, statement], pairs=[SupersedeLink(own, first.id, "changed")]),
        now(),
    )
    return statement, first


async def test_a_statement_memory_another_turn_made_first_is_linked_not_made_again(
    brain: Brain, tenant_id: str
) -> None:
    # Two later turns each plan to make the statement memory of that sentence and to
    # supersede it; the first commits.
    statement, first = await _made_first(
        brain, tenant_id, "The deploy target is staging.", "The deploy target is production."
    )
    own = statement.id
    second = _memory(brain, tenant_id, "The deploy target is AWS.")
    ws = WriteSet(memories=[second, statement], pairs=[SupersedeLink(own, second.id, "changed")])
    assert await persist(brain.writer, tenant_id, ws, now())
    assert ws.elsewhere == {own}
    assert [m.id for m in ws.memories] == [second.id]  # what this write indexed
    g = brain.graph.tenant(tenant_id)
    chain = await g.chain(own)
    assert [link.memory.id for link in chain] == [own, first.id, second.id]  # one chain
    assert ws.superseded == [first.id]  # the end of the chain when it committed
    # The statement memory's point still says it was superseded: it was not upserted again
    # with the write's stale copy.
    points = await brain.index.retrieve(tenant_id, [own])
    assert points[own]["superseded_at"] != NEVER
    await brain.writer.sync.marks.flush()
    assert await g.memory_counts() == (4, 0)


async def test_a_write_run_again_after_its_commit_went_unheard_changes_nothing(
    brain: Brain, tenant_id: str
) -> None:
    old = _memory(brain, tenant_id, "The office cat is called Miso.")
    await persist(brain.writer, tenant_id, WriteSet(memories=[old]), now())
    new = _memory(brain, tenant_id, "The office cat is called Tofu.")
    at = now()
    for _ in range(2):  # the second time as the store's retry after a lost reply would
        ws = WriteSet(memories=[new], pairs=[SupersedeLink(old.id, new.id, "renamed")])
        assert await persist(brain.writer, tenant_id, ws, at)
        assert ws.elsewhere == set() and [m.id for m in ws.memories] == [new.id]
    g = brain.graph.tenant(tenant_id)
    assert [link.memory.id for link in await g.chain(old.id)] == [old.id, new.id]
    assert new.id in await brain.index.retrieve(tenant_id, [new.id])
    await brain.writer.sync.marks.flush()
    assert await g.memory_counts() == (2, 0)  # both indexed, neither twice


async def test_vectors_still_computing_when_the_write_drops_a_memory_match_what_it_keeps(
    brain: Brain, tenant_id: str
) -> None:
    """Under concurrent writers a turn's own vector can finish after the graph commit that
    found another of its memories made elsewhere: the vectors kept must be those of the
    memories kept (they were read from the narrowed list, one short: "list index out of
    range" in a recordTurn)."""
    statement, _ = await _made_first(
        brain, tenant_id, "Our printer is the Brother HL-L2350.", "Our printer is the Canon G620."
    )
    own = statement.id
    turn = _memory(brain, tenant_id, "Our printer is the Epson ET-2850 now, ink is cheap.")
    fact = _memory(brain, tenant_id, "Our printer is the Epson ET-2850.")
    late: asyncio.Future[list[float]] = asyncio.get_running_loop().create_future()
    ws = WriteSet(
        memories=[turn, statement, fact],  # the one made elsewhere between two kept ones
        pairs=[SupersedeLink(own, fact.id, "changed")],
        vectors={turn.id: late},  # the turn's vector, started before the write was known
    )
    indexing = await commit(brain.writer, tenant_id, ws, now())
    assert ws.elsewhere == {own} and [m.id for m in ws.memories] == [turn.id, fact.id]
    [vector] = await brain.writer.sync.embed([turn])
    late.set_result(vector)
    assert await indexing.run()
    stored = await brain.index.vectors(tenant_id, [turn.id, fact.id])
    [fact_vector] = await brain.writer.sync.embed([fact])
    for memory_id, expected in ((turn.id, vector), (fact.id, fact_vector)):  # each its own
        assert stored[memory_id] == pytest.approx(expected, abs=1e-5)
