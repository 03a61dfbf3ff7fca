"""recordTurn end to end on the real engines, the real spaCy resolver and the real embedder:
the seed scenario, working memory, audit trail, retrievability on the next turn, bad input
and tenant isolation."""

from __future__ import annotations

import asyncio

import pytest

from api.brain import Brain
from core.errors import InvalidInput, NotFound
from core.ids import new_id
from core.ingest_types import Role, TurnInput
from core.retrieval_types import SearchQuery
from core.types import EntityType, MemoryType, NewMemory
from ingest.service import IngestService
from ingest.write.marks import IndexMarks
from resolution.profiles import profile_facets
from resolution.resolver import Resolver

pytestmark = pytest.mark.integration

SEED = (
    "The company is Wolf of Blog Street, also known as WOBS. We do link building. "
    "Peter is one of our writers."
)


async def test_seed_turn_links_entities_and_extracts_the_role_fact(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    result = await ingest.turns.record_turn(
        tenant_id, TurnInput(session_id="s1", user_id="u1", content=SEED, at=1_673_000_000.0)
    )
    names = {e.name for e in result.entities}
    assert "Peter" in names
    assert any(
        "Wolf of Blog Street" in e.aliases or e.name == "Wolf of Blog Street"
        for e in result.entities
    )
    wobs = await brain.graph.tenant(tenant_id).find_by_alias("WOBS")
    assert len(wobs) == 1 and wobs[0].id in result.episode.entity_ids
    facts = [m for m in result.extracted if m.type is MemoryType.FACT]
    assert [(f.predicate, f.object) for f in facts] == [("role", "writer")]
    peter = next(e for e in result.entities if e.name == "Peter")
    assert facts[0].subject == peter.id and peter.id in facts[0].entity_ids
    await ingest.writer.sync.marks.flush()  # the indexed mark is written off the request path
    stored = await brain.memories.get(tenant_id, result.episode.id)
    assert stored.indexed and stored.type is MemoryType.EPISODIC and stored.content == SEED
    # Retrievable on the very next call.
    hits = await brain.reads.search(tenant_id, SearchQuery(query="who writes for the company?"))
    assert facts[0].id in [h.memory.id for h in hits.hits[:3]]


async def test_pleasantries_produce_nothing_but_the_audit_record(
    ingest: IngestService, tenant_id: str
) -> None:
    result = await ingest.turns.record_turn(
        tenant_id, TurnInput(session_id="s", content="Thanks a lot!")
    )
    assert result.extracted == () and result.tasks == ()
    assert result.episode.content == "Thanks a lot!"
    assert result.episode.importance < 0.4


async def test_a_one_sentence_event_is_stored_once_as_the_turn(
    ingest: IngestService, tenant_id: str
) -> None:
    said = "We met the new client at their office yesterday."
    result = await ingest.turns.record_turn(tenant_id, TurnInput(session_id="s", content=said))
    assert result.episode.content == said
    assert [m for m in result.extracted if m.type is MemoryType.EPISODIC] == []
    # In a longer turn the event sentence is a memory of its own (finer than the turn).
    longer = f"{said} The weather was awful all day, and the trains were late."
    result = await ingest.turns.record_turn(tenant_id, TurnInput(session_id="s", content=longer))
    assert [m.content for m in result.extracted if m.type is MemoryType.EPISODIC] == [said]


async def test_working_memory_keeps_the_first_turn_and_a_sliding_window(
    ingest: IngestService, tenant_id: str
) -> None:
    for i in range(25):
        role = Role.USER if i % 2 == 0 else Role.ASSISTANT
        await ingest.turns.record_turn(
            tenant_id, TurnInput(session_id="w", role=role, content=f"message number {i}")
        )
    turns = await ingest.turns.working_memory(tenant_id, "w")
    assert len(turns) == 20
    assert turns[0].content == "message number 0" and turns[0].index == 1
    assert [t.content for t in turns[1:]] == [f"message number {i}" for i in range(6, 25)]
    assert turns[1].role is Role.USER and turns[2].role is Role.ASSISTANT
    assert turns[-1].index == 25


async def test_close_and_idle_expiry_empty_the_working_memory(
    ingest: IngestService, tenant_id: str
) -> None:
    t0 = 1_700_000_000.0
    await ingest.turns.record_turn(tenant_id, TurnInput(session_id="c", content="first", at=t0))
    session = await ingest.turns.close_session(tenant_id, "c")
    assert session.closed_at is not None
    assert await ingest.turns.working_memory(tenant_id, "c") == []
    with pytest.raises(NotFound):
        await ingest.turns.close_session(tenant_id, "never-opened")
    # A turn long after the idle timeout starts a fresh window under the same id.
    idle = ingest.settings.ingest.session_idle_seconds
    await ingest.turns.record_turn(tenant_id, TurnInput(session_id="i", content="old turn", at=t0))
    later = await ingest.turns.record_turn(
        tenant_id, TurnInput(session_id="i", content="new turn", at=t0 + idle + 5)
    )
    assert later.session is not None and later.session.window == (later.episode.id,)
    assert later.session.turn_count == 2


@pytest.mark.parametrize(
    "turn",
    [
        {"session_id": "s", "content": "  "},
        {"session_id": "", "content": "hello there"},
        {"session_id": "bad id with spaces", "content": "hello there"},
        {"session_id": "s", "content": "x" * 40_000},
    ],
    ids=["blank", "no-session", "bad-session", "oversized"],
)
async def test_bad_turns_are_rejected_and_change_nothing(
    ingest: IngestService, brain: Brain, tenant_id: str, turn: dict[str, str]
) -> None:
    with pytest.raises(InvalidInput):
        await ingest.turns.record_turn(tenant_id, TurnInput(**turn))  # type: ignore[arg-type]
    assert await brain.graph.tenant(tenant_id).memory_counts() == (0, 0)


async def test_a_new_name_met_in_several_sessions_at_once_becomes_one_entity(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    people = ["Marta Quill", "Omar Reyes", "Lena Fox", "Ivan Petrov"]
    results = await asyncio.gather(
        *(
            ingest.turns.record_turn(
                tenant_id, TurnInput(session_id=f"s{i}", content=f"{p} works for Zephyr Labs.")
            )
            for i, p in enumerate(people)
        )
    )
    g = brain.graph.tenant(tenant_id)
    (org,) = await g.find_by_alias("Zephyr Labs")  # was three entities, one turn unlinked
    assert org.type is EntityType.ORG
    for person, result in zip(people, results, strict=True):
        (who,) = await g.find_by_alias(person)
        assert {who.id, org.id} <= set(result.episode.entity_ids)
        assert [(r.target_id, r.relation) for r in await g.relations(who.id)] == [
            (org.id, "works_for")
        ]


async def test_one_task_said_in_several_sessions_at_once_is_one_task(
    ingest: IngestService, tenant_id: str
) -> None:
    todo = "TODO: send the traffic report to the Anderson team"
    results = await asyncio.gather(
        *(
            ingest.turns.record_turn(tenant_id, TurnInput(session_id=f"t{i}", content=todo))
            for i in range(3)
        )
    )
    ids = {t.id for r in results for t in r.tasks}
    assert len(ids) == 1  # was three candidate tasks
    (task,) = await ingest.tasks.page(tenant_id)
    assert task.id in ids


async def test_another_tenant_sees_nothing_of_a_recorded_turn(
    ingest: IngestService, brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    result = await ingest.turns.record_turn(tenant_id, TurnInput(session_id="s", content=SEED))
    other = brain.graph.tenant(other_tenant_id)
    assert await other.get_memories([result.episode.id]) == {}
    assert await other.find_by_alias("WOBS") == []
    assert await ingest.turns.working_memory(other_tenant_id, "s") == []
    with pytest.raises(NotFound):
        await ingest.turns.close_session(other_tenant_id, "s")
    hits = await brain.reads.search(
        other_tenant_id, SearchQuery(query="Wolf of Blog Street writers")
    )
    assert hits.hits == []
    # And the owner's session is untouched by the other tenant's attempt.
    assert len(await ingest.turns.working_memory(tenant_id, "s")) == 1


async def test_indexed_marks_are_batched_off_the_request_path(
    brain: Brain, ingest: IngestService, tenant_id: str
) -> None:
    # Six first turns of a new tenant at once: they also race to register the tenant (a
    # MERGE on its unique id), which once failed all but one of them with a Conflict.
    marks = ingest.writer.sync.marks
    before = marks.batches
    results = await asyncio.gather(
        *(
            ingest.turns.record_turn(
                tenant_id, TurnInput(session_id=f"m{i}", content=f"The crate {i} shipped today.")
            )
            for i in range(6)
        )
    )
    assert all(r.episode.indexed for r in results)  # in the vector index when the call returns
    await marks.flush()
    assert marks.pending == 0
    # At most one statement per turn; how many they share depends on scheduling (below).
    assert 1 <= marks.batches - before <= 6
    assert await brain.graph.tenant(tenant_id).unindexed_ids() == []


async def test_the_next_turn_carries_the_previous_turns_marks(
    brain: Brain, ingest: IngestService, tenant_id: str
) -> None:
    """In a conversation, a turn's indexed marks ride along with the next turn's write: no
    statement of their own."""
    marks = ingest.writer.sync.marks
    delay, marks.delay = marks.delay, 60.0  # the background batch would come much later
    try:
        first = await ingest.turns.record_turn(
            tenant_id, TurnInput(session_id="carry", content="The crate left Lisbon today.")
        )
        before = marks.batches
        g = brain.graph.tenant(tenant_id)
        assert not (await g.get_memory(first.episode.id)).indexed  # pending, not yet written
        sent: list[str] = []
        brain.graph.observer = lambda name, seconds: sent.append(name)
        try:
            await ingest.turns.record_turn(
                tenant_id, TurnInput(session_id="carry", content="It reaches Porto on Friday.")
            )
        finally:
            brain.graph.observer = None
        assert (await g.get_memory(first.episode.id)).indexed
        assert marks.batches == before  # written by the second turn's own transaction ...
        assert "memory_mark_indexed" not in sent and "memory_create" in sent  # ... in its create
    finally:
        marks.delay = delay
        await marks.flush()


async def test_a_tenant_that_keeps_writing_carries_its_marks_until_it_is_quiet(
    brain: Brain, tenant_id: str
) -> None:
    """While a tenant writes every few milliseconds, each write carries the marks pending
    before it and the batch writes none (it was a transaction of its own beside the next
    turn); once the tenant is quiet for the delay, the batch writes the last ones."""
    made = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"Bale {i}") for i in "abcdefgh"]
    )
    await brain.writer.sync.marks.flush()
    g = brain.graph.tenant(tenant_id)
    await g.mark_indexed([m.id for m in made], indexed=False)
    marks = IndexMarks(brain.graph, delay=0.1)
    carried: list[str] = []
    for m in made:  # eight quick writes, 25 ms apart: each takes what the one before left
        async with marks.writing(tenant_id):
            carried += marks.take(tenant_id)
        marks.add(tenant_id, [m.id])
        await asyncio.sleep(0.025)
    assert marks.batches == 0  # 200 ms of writes, twice the delay: nothing of its own
    await g.mark_indexed(carried)  # what the writes' own transactions would have written
    for _ in range(50):
        if marks.batches:
            break
        await asyncio.sleep(0.02)
    assert marks.batches == 1 and marks.pending == 0
    assert await g.unindexed_ids() == []


async def test_marks_added_while_a_batch_is_pending_share_its_statement(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    ours = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"Crate {i}") for i in "abc"]
    )
    theirs = await brain.memories.remember(other_tenant_id, NewMemory(content="Crate d"))
    await brain.writer.sync.marks.flush()
    g = brain.graph.tenant(tenant_id)
    await g.mark_indexed([m.id for m in ours], indexed=False)
    marks = IndexMarks(brain.graph)
    for m in ours:  # three turns finishing in one tick of the event loop
        marks.add(tenant_id, [m.id])
    marks.add(other_tenant_id, [theirs.id])
    await marks.flush()
    assert marks.batches == 2  # one statement per tenant, not one per turn
    assert await g.unindexed_ids() == []


async def test_a_new_client_named_once_becomes_an_entity(
    brain: Brain, ingest: IngestService, tenant_id: str
) -> None:
    text = "We signed a new client, Brightwave, last week."
    result = await ingest.turns.record_turn(tenant_id, TurnInput(session_id="c1", content=text))
    found = await brain.graph.tenant(tenant_id).find_by_alias("Brightwave")
    assert [(e.name, e.type) for e in found] == [("Brightwave", EntityType.ORG)]
    assert found[0].id in result.episode.entity_ids


async def test_the_profile_job_embeds_facets_for_later_disambiguation(
    brain: Brain, ingest: IngestService, resolver: Resolver, tenant_id: str
) -> None:
    text = "Marisol is one of our editors. Marisol reviews the travel guides."
    result = await ingest.turns.record_turn(tenant_id, TurnInput(session_id="f1", content=text))
    await ingest.queue.drain()
    (marisol,) = await brain.graph.tenant(tenant_id).find_by_alias("Marisol")
    assert marisol.id in result.episode.entity_ids and marisol.profile_summary
    facets = profile_facets(marisol)
    assert facets and all(f in resolver.disambiguator._facets for f in facets)


async def test_a_mark_added_as_flush_cancels_the_waiting_batch_is_still_written(
    brain: Brain, tenant_id: str
) -> None:
    b = await brain.memories.remember(tenant_id, NewMemory(content="Crate e"))
    await brain.writer.sync.marks.flush()
    g = brain.graph.tenant(tenant_id)
    await g.mark_indexed([b.id], indexed=False)
    marks = IndexMarks(brain.graph, delay=0.01)
    marks.add(tenant_id, [new_id()])
    await asyncio.sleep(0)  # its batch task is now waiting out the delay
    marks.take(tenant_id)  # an ingest write carried that mark
    await marks.flush()  # nothing pending: the waiting task is cancelled, nothing awaited
    marks.add(tenant_id, [b.id])  # in the same tick, while that task is still cancelling
    for _ in range(50):
        if (await g.get_memory(b.id)).indexed:
            break
        await asyncio.sleep(0.02)
    assert (await g.get_memory(b.id)).indexed  # a new batch wrote it, no flush needed


async def test_the_mark_statement_never_runs_beside_an_ingest_write(
    brain: Brain, tenant_id: str
) -> None:
    """On ArcadeDB concurrent writes to the same pages conflict and the loser is retried after
    a backoff: the batch leaves a tenant that is writing for later, and a write waits for a
    mark statement in flight. Ingest writes themselves run side by side."""
    a, b = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"Crate {i}") for i in "hi"]
    )
    await brain.writer.sync.marks.flush()
    g = brain.graph.tenant(tenant_id)
    await g.mark_indexed([a.id, b.id], indexed=False)
    marks = IndexMarks(brain.graph, delay=0.01)

    async with marks.writing(tenant_id), marks.writing(tenant_id):  # two writes at once
        marks.add(tenant_id, [a.id])
        await asyncio.sleep(0.15)  # the batch's delay ran out several times meanwhile
        assert marks.batches == 0 and marks.pending == 1
        assert not (await g.get_memory(a.id)).indexed
    for _ in range(50):  # the writes are done: a later batch writes it
        if (await g.get_memory(a.id)).indexed:
            break
        await asyncio.sleep(0.02)
    assert (await g.get_memory(a.id)).indexed and marks.batches == 1

    # A write that starts while a mark statement is in flight waits for it to commit.
    marks.add(tenant_id, [b.id])
    seen: list[bool] = []

    async def write() -> None:
        async with marks.writing(tenant_id):
            seen.append((await g.get_memory(b.id)).indexed)

    flushing = asyncio.ensure_future(marks.flush())
    await asyncio.sleep(0)  # the statement is now in flight
    await asyncio.gather(write(), flushing)
    assert seen == [True] and marks.batches == 2
    assert not marks._gates  # idle tenants are forgotten


async def test_a_memory_with_the_turns_own_text_shares_its_vector(
    ingest: IngestService, brain: Brain, tenant_id: str, embedded: list[str]
) -> None:
    said = "I prefer short summaries for the quarterly report."
    result = await ingest.turns.record_turn(tenant_id, TurnInput(session_id="s", content=said))
    [preference] = [m for m in result.extracted if m.type is MemoryType.PREFERENCE]
    assert preference.content == said and result.episode.indexed and preference.indexed
    assert embedded.count(said) == 1  # embedded once, for the turn and its preference
    hits = await brain.reads.search(tenant_id, SearchQuery(query="how long should summaries be?"))
    assert {result.episode.id, preference.id} <= {h.memory.id for h in hits.hits}
