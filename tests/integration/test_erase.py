"""erase on the real engines: a subject leaves the graph and the vector index with everything
derived from it — extractions from its turns, earlier versions, merged duplicates, patterns
over its episodes, profiles quoting it, conflicts, jobs, session windows, documents,
feedback, relationships — and then nothing recoverable remains in either engine."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import NEVER
from core.errors import NotFound
from core.ingest_types import TurnInput
from core.retrieval_types import SearchQuery
from core.types import EntityType, Memory, MemoryType, NewMemory
from ingest.turns import TurnResult
from tests.integration.api_client import Client
from vectors.vector_index import VectorFilter

pytestmark = pytest.mark.integration

T0 = 1_700_000_000.0
TOKENS = ("quixworth", "zebulon")  # only ever said about the erased subject


async def say(
    brain: Brain, tenant: str, text: str, at: float, session: str = "s1", user: str = "u1"
) -> TurnResult:
    turn = TurnInput(session_id=session, user_id=user, content=text, at=at)
    return await brain.ingest.turns.record_turn(tenant, turn)


async def remember(brain: Brain, tenant: str, text: str, *entities: str) -> Memory:
    return await brain.memories.remember(tenant, NewMemory(content=text, entity_ids=list(entities)))


def strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


async def leaks(brain: Brain, tenant: str, needles: Iterable[str]) -> list[str]:
    """Every node or relationship property of the tenant holding one of ``needles``."""
    wanted = [n.lower() for n in needles]
    nodes, relations = await brain.graph.tenant(tenant).audit()
    found = []
    for where, props in [
        *((r["labels"], r["props"]) for r in nodes),
        *((r["type"], r["props"]) for r in relations),
    ]:
        for key, value in props.items():
            for text in strings(value):
                found += [f"{where}.{key} holds {n!r}" for n in wanted if n in text.lower()]
    return found


async def snapshot(brain: Brain, tenant: str) -> list[str]:
    for writer in (brain.writer, brain.ingest.writer):
        await writer.sync.marks.flush()  # settled: no indexed mark still on its way
    nodes, relations = await brain.graph.tenant(tenant).audit()
    return sorted(repr(sorted(r["props"].items())) for r in [*nodes, *relations])


async def point_ids(brain: Brain, tenant: str, text: str) -> set[str]:
    """Ids the vector index finds for ``text`` by keyword and by meaning, hidden ones too."""
    flt = VectorFilter(tenant_id=tenant, include_superseded=True)
    vector = await brain.embedder.embed_query(text)
    found = await brain.index.keyword_search(text, flt, 100)
    found += await brain.index.dense_search(vector, flt, 100)
    return {hit.id for hit in found}


def fact(result: TurnResult, predicate: str) -> Memory:
    return next(m for m in result.extracted if m.predicate == predicate)


async def test_erasing_an_entity_leaves_nothing_recoverable(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    t, g = tenant_id, brain.graph.tenant(tenant_id)
    # -- the subject, through the real pipeline ----------------------------------------------
    hired = await say(brain, t, "Zebulon Quixworth is one of our writers.", T0)
    zeb = next(e for e in hired.entities if e.name == "Zebulon Quixworth")
    promoted = await say(brain, t, "Actually, Zebulon Quixworth is an editor now.", T0 + 60)
    met = await say(brain, t, "Alice Brightwater met Zebulon Quixworth in Lisbon.", T0 + 120)
    alice = next(e for e in met.entities if e.name == "Alice Brightwater")
    berlin = await say(brain, t, "Alice Brightwater is based in Berlin.", T0 + 180)
    office = await say(brain, t, "Alice Brightwater enjoys the Berlin office.", T0 + 200)
    task = await say(
        brain, t, "I need to send Zebulon Quixworth the signed contract by Friday.", T0 + 240
    )
    trip = await say(
        brain, t, "Zebulon Quixworth booked the trip. I prefer window seats on flights.", T0 + 270
    )
    seats = next(m for m in trip.extracted if m.type is MemoryType.PREFERENCE)
    assert zeb.id not in seats.entity_ids  # derived from the subject's turn, not about it
    await say(brain, t, "I like long lunches with Zebulon Quixworth.", T0 + 300)
    disliked = await say(brain, t, "I don't like long lunches with Zebulon Quixworth.", T0 + 360)
    assert disliked.conflicts, "precondition: a recorded contradiction"
    role_v1, role_v2 = fact(hired, "role"), fact(promoted, "role")
    assert promoted.superseded == (role_v1.id,)
    assert task.tasks and zeb.id in task.tasks[0].entity_ids
    doc = await brain.ingest.ingest_document(
        t, "people/quixworth.md", "# Zebulon Quixworth\n\nZebulon Quixworth edits our reports."
    )

    # Curated structure around the subject.
    zeb_q = await brain.entities.create(t, "Zeb Q", EntityType.PERSON)
    zeb_q_said = await remember(brain, t, "Zeb Q phoned about the Quixworth invoice.", zeb_q.id)
    await brain.entities.merge(t, zeb.id, [zeb_q.id], reason="Zeb Q is Zebulon Quixworth")
    falcon = await g.create_entity("Project Falcon", EntityType.PROJECT, parent_id=zeb.id)
    globex = await g.create_entity("Globex", EntityType.ORG)
    await g.relate(alice.id, globex.id, "works_for", source_memory_id=met.episode.id)
    await brain.lifecycle.feedback(t, "s1", [met.episode.id, berlin.episode.id], helpful=True)

    # Duplicates hidden behind a winner, the subject on either side.
    tea = await remember(brain, t, "Zebulon Quixworth drinks green tea every morning.", zeb.id)
    tea_dup = await remember(brain, t, "Mr Quixworth drinks green tea each morning.")
    bay = await remember(brain, t, "Zebulon Quixworth parks in bay seven.", zeb.id)
    bay_dup = await remember(brain, t, "Quixworth parks in bay 7.")
    merge = {"reason": "duplicate", "similarity": 0.95, "importance": 0.55, "before": 0.5}
    applied = await g.apply_merges(
        [
            {**merge, "loser_id": tea_dup.id, "winner_id": tea.id},
            {**merge, "loser_id": bay.id, "winner_id": bay_dup.id},
        ],
        T0 + 400,
    )
    assert len(applied) == 2

    # A pattern over one of the subject's episodes and two of Alice's.
    pattern = brain.writer.build(
        t,
        NewMemory(
            content="Alice Brightwater and Zebulon Quixworth often meet in Berlin.",
            type=MemoryType.PATTERN,
            entity_ids=[alice.id],
        ),
    )
    sources = [met.episode.id, berlin.episode.id, office.episode.id]
    assert await g.create_patterns([(pattern, sources)], T0 + 500) == 3
    await brain.memories.reconcile(
        [t]
    )  # the lifecycle's vector side: index the pattern, hide sources

    # The other tenant says the same things; none of it may change.
    await say(brain, other_tenant_id, "Zebulon Quixworth is one of our writers.", T0)
    await remember(brain, other_tenant_id, "Zebulon Quixworth drinks green tea.")
    theirs = await snapshot(brain, other_tenant_id)

    await brain.entities.reprofile(t, [alice.id, falcon.id])
    assert "Quixworth" in ((await g.get_entity(alice.id)).profile_summary or "")
    session = await g.get_session("s1")
    assert session is not None and met.episode.id in session.window
    erased_turns = [
        r.episode.id for r in (hired, promoted, met, task, trip, disliked) if r.episode is not None
    ]
    assert await leaks(brain, t, TOKENS), "precondition: the subject is in the graph"

    # -- erase ---------------------------------------------------------------------------------
    report = await brain.memories.erase(t, entity_id=zeb.id)

    erased = set(report.memory_ids)
    expected = {
        *erased_turns,
        role_v1.id,
        role_v2.id,
        task.tasks[0].id,
        seats.id,  # extracted from an erased turn, about something else
        *(c.memory_id for c in disliked.conflicts),
        *(c.existing_id for c in disliked.conflicts),
        zeb_q_said.id,  # about an entity merged into the subject
        tea.id,
        tea_dup.id,  # the hidden duplicate of an erased winner
        bay.id,
        bay_dup.id,  # the winner over an erased duplicate
        pattern.id,  # summarized an erased episode
        *doc.document.chunk_ids,
    }
    assert expected <= erased
    assert berlin.episode.id not in erased and office.episode.id not in erased
    assert report.entity_ids == tuple(sorted([zeb.id, zeb_q.id]))
    assert report.patterns == 1 and report.restored_memories == 2
    assert report.derived_memories == 3 and report.vector_points == len(erased)
    assert report.conflicts >= 1 and report.documents == 1 and report.feedback == 1
    assert report.relations == 1 and report.sessions >= 1 and report.verified
    assert alice.id in (await g.get_memory(berlin.episode.id)).entity_ids
    assert report.reprofiled_entities >= 2  # Alice and Project Falcon at least

    # Nothing recoverable in the graph: no text of the subject, no erased id, anywhere.
    assert await leaks(brain, t, TOKENS) == []
    assert await leaks(brain, t, [*erased, *report.entity_ids]) == []
    # Nothing in the vector index: no point, and no search finds one.
    assert await brain.index.retrieve(t, sorted(erased)) == {}
    assert await point_ids(brain, t, "Zebulon Quixworth") & erased == set()
    assert await point_ids(brain, t, "Quixworth green tea") & erased == set()
    hits = await brain.reads.search(t, SearchQuery(query="Zebulon Quixworth"))
    assert not [h for h in hits.hits if "quixworth" in h.memory.content.lower()]
    # The search's access counts land now, not between the snapshots below.
    await brain.access.flush()

    # Survivors are repaired, not damaged.
    for source in (berlin.episode.id, office.episode.id):
        restored = await g.get_memory(source)
        assert restored.is_current and restored.summarized_by is None and restored.indexed
    payloads = await brain.index.retrieve(t, [berlin.episode.id, office.episode.id])
    assert {p["superseded_at"] for p in payloads.values()} == {NEVER}
    profile = await g.get_entity(alice.id)
    assert "Berlin" in (profile.profile_summary or "") and profile.profile_embedding
    assert (await g.get_entity(falcon.id)).parent_id is None
    session = await g.get_session("s1")
    assert session is not None and berlin.episode.id in session.window
    assert await brain.ingest.conflicts(t, open_only=False) == []

    # The other tenant is untouched; a second erase changes nothing.
    assert await snapshot(brain, other_tenant_id) == theirs
    after = await snapshot(brain, t)
    with pytest.raises(NotFound):
        await brain.memories.erase(t, entity_id=zeb.id)
    assert await snapshot(brain, t) == after


async def test_erasing_a_user_leaves_nothing_of_theirs(brain: Brain, tenant_id: str) -> None:
    t, user, keeper = tenant_id, "user-vx-5521", "user-keep-1"
    await say(brain, t, "I prefer oolong tea in the afternoon.", T0, "s-a", user)
    await say(brain, t, "I like long meetings.", T0 + 10, "s-a", user)
    mine = await say(brain, t, "I don't like long meetings.", T0 + 20, "s-a", user)
    assert mine.conflicts and mine.conflicts[0].subject == f"user:{user}"
    await say(
        brain, t, "Remind me to water the ferns in the lobby by Friday.", T0 + 30, "s-a", user
    )
    kept = await say(brain, t, "I prefer green tea in the morning.", T0 + 40, "s-b", keeper)
    kept_ids = {kept.episode.id, *(m.id for m in kept.extracted)}
    assert await leaks(brain, t, [user, "oolong", "ferns"])

    report = await brain.memories.erase(t, user_id=user)

    assert report.memory_ids and kept_ids.isdisjoint(report.memory_ids)
    assert report.conflicts == 1 and report.sessions == 1 and report.verified
    assert await leaks(brain, t, [user, "oolong", "ferns", "long meetings"]) == []
    assert await leaks(brain, t, report.memory_ids) == []
    assert await brain.index.retrieve(t, list(report.memory_ids)) == {}
    assert await point_ids(brain, t, "oolong tea afternoon") & set(report.memory_ids) == set()
    assert set(await brain.memories.get_many(t, sorted(kept_ids))) == kept_ids
    session = await brain.graph.tenant(t).get_session("s-a")
    assert session is None or (session.window == () and session.user_id is None)

    again = await brain.memories.erase(t, user_id=user)  # nothing left: harmless
    assert again.memory_ids == () and again.verified


async def test_erasing_an_earlier_version_takes_older_ones_and_restarts_the_chain(
    brain: Brain, tenant_id: str
) -> None:
    t = tenant_id
    first = await remember(brain, t, "The vault code is 1111")
    second = await brain.memories.supersede(t, first.id, "The vault code is 2222")
    third = await brain.memories.supersede(t, second.id, "The vault code is 3333")

    report = await brain.memories.erase(t, memory_ids=[second.id])

    assert report.memory_ids == tuple(sorted([first.id, second.id]))
    assert report.derived_memories == 1  # the version before the named one
    survivor = await brain.memories.get(t, third.id)
    assert survivor.supersedes is None and survivor.is_current
    assert [link.memory.id for link in await brain.memories.lineage(t, third.id)] == [third.id]
    assert await leaks(brain, t, [first.id, second.id, "1111", "2222"]) == []
    assert await brain.index.retrieve(t, [first.id, second.id]) == {}
    with pytest.raises(NotFound):
        await brain.memories.erase(t, memory_ids=[second.id])


async def test_the_erase_report_over_graphql(brain: Brain, tenant_id: str) -> None:
    first = await remember(brain, tenant_id, "The alarm code is 4455")
    second = await brain.memories.supersede(tenant_id, first.id, "The alarm code is 6677")
    _, key = await create_key(brain.graph, tenant_id)
    body = await Client(brain, key).data(
        "mutation($id: ID!) { erase(input: {memoryIds: [$id]}) { __typename ... on EraseReport {"
        " memoryIds entityIds vectorPoints derivedMemories patterns restoredMemories"
        " reprofiledEntities conflicts jobs sessions documents feedback relations verified } } }",
        id=second.id,
    )
    report = body["erase"]
    assert report["__typename"] == "EraseReport"
    assert sorted(report["memoryIds"]) == sorted([first.id, second.id])
    assert report["derivedMemories"] == 1 and report["vectorPoints"] == 2 and report["verified"]
    assert report["patterns"] == report["conflicts"] == report["relations"] == 0


async def test_a_relation_a_turn_states_cites_it_and_goes_with_it(
    brain: Brain, tenant_id: str
) -> None:
    """ "Marta works for Brightwave" links the two entities and records the turn's episode as
    the relation's source: erasing that memory erases the relation, and nothing else."""
    turn = await say(brain, tenant_id, "Marta Okafor works for Brightwave Labs.", T0)
    g = brain.graph.tenant(tenant_id)
    marta = next(e for e in turn.entities if e.name == "Marta Okafor")
    (relation,) = await g.relations(marta.id)
    assert relation.relation == "works_for" and relation.source_memory_id == turn.episode.id
    await brain.memories.erase(tenant_id, memory_ids=[turn.episode.id])
    assert await g.relations(marta.id) == []
    assert (await g.get_entities([marta.id]))[marta.id].name == "Marta Okafor"


async def test_a_profile_read_before_an_erase_is_not_saved_after_it(
    brain: Brain, tenant_id: str
) -> None:
    """A profile job reads an entity's memories, embeds, then saves; an erase in between
    clears the profile and rebuilds it from what remains. The job's late save must not bring
    the erased text back: a profile is stored only while every memory it was built from
    exists."""
    g = brain.graph.tenant(tenant_id)
    tea = await say(brain, tenant_id, "Orla Pemberton prefers kumquat tea.", T0)
    await say(brain, tenant_id, "Orla Pemberton lives in Leeds.", T0 + 60)
    orla = next(e for e in tea.entities if e.name == "Orla Pemberton")
    read = (await g.entity_memories([orla.id], 20))[orla.id]  # the job's read
    assert any("kumquat" in text for text, _, _ in read.material)

    assert tea.episode is not None
    await brain.memories.erase(tenant_id, memory_ids=[tea.episode.id])
    late = {
        "id": orla.id,
        "summary": "Orla Pemberton prefers kumquat tea. Orla Pemberton lives in Leeds.",
        "tags": ["kumquat"],
        "embedding": [0.5] * 8,
        "sources": read.memory_ids,
    }
    assert await g.save_profiles([late]) == 0
    assert "kumquat" not in ((await g.get_entity(orla.id)).profile_summary or "")

    now = (await g.entity_memories([orla.id], 20))[orla.id]
    assert now.memory_ids and not any("kumquat" in text for text, _, _ in now.material)
    fresh = {**late, "summary": "Orla Pemberton lives in Leeds.", "sources": now.memory_ids}
    assert await g.save_profiles([fresh]) == 1
    assert (await g.get_entity(orla.id)).profile_summary == "Orla Pemberton lives in Leeds."
