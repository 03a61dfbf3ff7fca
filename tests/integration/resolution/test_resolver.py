"""Resolver behaviour on the real engines: clarification, creation, isolation, bad input,
profiles and the bulk re-profiling job, tracker persistence, the coreference seam."""

from __future__ import annotations

import asyncio
import time

import pytest

from api.brain import Brain
from core.errors import BackendError, InvalidInput
from core.settings import ResolutionSettings, Settings
from core.types import Entity, EntityType, NewMemory
from graph.runtime import GraphRuntime, open_graph
from resolution.gazetteer import KnownName
from resolution.resolver import Resolver
from resolution.summary import statements
from vectors.embedding.embedder import Embedder

pytestmark = pytest.mark.integration

AT = 1_700_000_000.0


async def test_exact_alias_case_accents_acronym(resolver: Resolver, tenant_id: str) -> None:
    g = resolver.graph.tenant(tenant_id)
    zoe = await g.create_entity("Zoë Müller", EntityType.PERSON, at=AT)
    wobs = await g.create_entity("Wolf of Blog Street", EntityType.ORG, ["WOBS"], at=AT)
    result = await resolver.resolve(tenant_id, "ZOE MULLER met the W.O.B.S. team", at=AT)
    assert set(result.entity_ids) == {zoe.id, wobs.id}
    assert all(r.method == "alias" for r in result.resolved if r.entity is not None)


async def test_ambiguous_name_returns_clarification(resolver: Resolver, tenant_id: str) -> None:
    g = resolver.graph.tenant(tenant_id)
    a = await g.create_entity("Peter Novak", EntityType.PERSON, at=AT)
    b = await g.create_entity("Peter Hale", EntityType.PERSON, at=AT)
    await resolver.profiles.refresh(tenant_id, [a.id, b.id])
    result = await resolver.resolve(tenant_id, "Call Peter tomorrow", at=AT)
    assert result.clarification is not None
    assert result.clarification.question == "Which Peter?"
    assert {c.id for c in result.clarification.candidates} == {a.id, b.id}
    assert result.entity_ids == []


async def test_undecidable_name_on_write_is_provisional(resolver: Resolver, tenant_id: str) -> None:
    """Issue 21: a write never asks "Which Anna?" nor links to a guess; the statement is
    about a provisional Anna linked to both known ones (it used to be about nobody)."""
    g = resolver.graph.tenant(tenant_id)
    berg = await g.create_entity("Anna Berg", EntityType.PERSON, at=AT)
    costa = await g.create_entity("Anna Costa", EntityType.PERSON, at=AT)
    before = await g.entity_count()
    result = await resolver.resolve(tenant_id, "Say hi to Anna", at=AT, create_missing=True)
    assert result.clarification is None
    assert await g.entity_count() == before + 1
    [anna] = [r.entity for r in result.resolved if r.entity is not None]
    assert anna.provisional and anna.id not in {berg.id, costa.id}
    [question] = await g.identity_questions(10)
    assert question.entity.id == anna.id
    assert {c.entity.id for c in question.candidates} == {berg.id, costa.id}


async def test_create_missing_only_on_write(resolver: Resolver, tenant_id: str) -> None:
    g = resolver.graph.tenant(tenant_id)
    text = "Marta Lindqvist works for Northwind Traders"
    read = await resolver.resolve(tenant_id, text, at=AT)
    assert read.entity_ids == [] and await g.entity_count() == 0
    wrote = await resolver.resolve(tenant_id, text, at=AT, create_missing=True)
    assert len(wrote.entity_ids) == 2
    marta = (await g.find_by_alias("Marta Lindqvist"))[0]
    org = (await g.find_by_alias("Northwind Traders"))[0]
    assert marta.type is EntityType.PERSON
    assert [r.relation for r in await g.relations(marta.id)] == ["works_for"]
    assert marta.parent_id == org.id
    again = await resolver.resolve(tenant_id, "Ask Marta Lindqvist", at=AT)
    assert again.entity_ids == [marta.id]  # the name cache was extended, no reload needed


async def test_tenant_isolation(resolver: Resolver, tenant_id: str, other_tenant_id: str) -> None:
    g = resolver.graph.tenant(tenant_id)
    secret = await g.create_entity("Project Nightjar", EntityType.PROJECT, at=AT)
    await resolver.resolve(tenant_id, "Project Nightjar is late", session_id="s1", at=AT)
    other = await resolver.resolve(
        other_tenant_id, "Project Nightjar is late", session_id="s1", at=AT
    )
    assert secret.id not in other.entity_ids and other.entity_ids == []
    assert await resolver.tracked(other_tenant_id, "s1") == []
    assert [t.entity.id for t in await resolver.tracked(tenant_id, "s1")] == [secret.id]
    # Re-profiling another tenant cannot touch this tenant's entity.
    report = await resolver.profiles.reprofile_entities(other_tenant_id, ids=[secret.id])
    assert report.profiled == 0
    assert (await g.get_entity(secret.id)).profile_summary is None
    # Creating on the other tenant's write path makes its own entity, never a link to ours.
    created = await resolver.resolve(
        other_tenant_id, "Project Nightjar is late", at=AT, create_missing=True
    )
    assert created.entity_ids and secret.id not in created.entity_ids
    assert len(await g.find_by_alias("Project Nightjar")) == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"text": 42}, "text"),
        ({"text": "x" * 32_001}, "text"),  # over the content limit
        ({"text": "hi", "session_id": ""}, "sessionId"),
        ({"text": "hi", "session_id": "s" * 201}, None),
    ],
)
async def test_bad_input_changes_nothing(
    resolver: Resolver, tenant_id: str, kwargs: dict[str, object], field: str | None
) -> None:
    with pytest.raises(InvalidInput) as caught:
        await resolver.resolve(tenant_id, create_missing=True, **kwargs)  # type: ignore[arg-type]
    if field:
        assert caught.value.field == field
    assert await resolver.graph.tenant(tenant_id).entity_count() == 0


async def test_profiles_refresh_and_bulk_job(
    brain: Brain, resolver: Resolver, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    ids = []
    for i, job in enumerate(
        ["plumber fixing pipes", "dentist cleaning teeth", "pilot flying jets"]
    ):
        e = await g.create_entity(f"Worker {i}", EntityType.PERSON, at=AT)
        ids.append(e.id)
        await brain.memories.remember(
            tenant_id, NewMemory(content=f"Worker {i} is a {job}.", entity_ids=[e.id])
        )
    calls: list[tuple[int, int]] = []
    report = await resolver.profiles.reprofile_entities(
        tenant_id, progress=lambda done, total: calls.append((done, total))
    )
    assert report.total == 3 and report.profiled == 3
    assert calls and calls[-1] == (3, 3)
    profiled = await g.get_entities(ids)
    assert "dentist" in (profiled[ids[1]].profile_summary or "")
    assert "dentist" in profiled[ids[1]].context_tags
    assert profiled[ids[0]].profile_embedding is not None
    assert len(profiled[ids[0]].profile_embedding or ()) == resolver.embedder.dimension
    # A superseded fact leaves the profile on the next refresh.
    old = await g.get_memories(await g.memory_ids_about(ids[1]))
    await brain.memories.supersede(
        tenant_id, next(iter(old)), "Worker 1 is a baker.", "career change"
    )
    refreshed = (await resolver.profiles.refresh(tenant_id, [ids[1]]))[0]
    assert "baker" in (refreshed.profile_summary or "")
    assert "dentist" not in (refreshed.profile_summary or "")


async def test_a_profile_that_did_not_change_is_neither_embedded_nor_written_again(
    brain: Brain, resolver: Resolver, tenant_id: str, embedded: list[str]
) -> None:
    """A profile refresh follows most turns; for a well-known person the profile is usually
    what it was, and writing it again only collided with the turns' writes."""
    g = brain.graph.tenant(tenant_id)
    e = await g.create_entity("Greta Lind", EntityType.PERSON, at=AT)
    await brain.memories.remember(
        tenant_id, NewMemory(content="Greta Lind audits the warehouse.", entity_ids=[e.id])
    )
    await resolver.profiles.refresh(tenant_id, [e.id])
    assert resolver.embedder is brain.embedder  # the one ``embedded`` records
    embedded.clear()
    sent: list[str] = []
    resolver.graph.observer = lambda name, seconds: sent.append(name)
    try:
        (again,) = await resolver.profiles.refresh(tenant_id, [e.id])
        assert "resolution_profile_update" not in sent and embedded == []
        assert statements(again.profile_summary or "") == ["Greta Lind audits the warehouse."]
        # something new about her is embedded and written
        await brain.memories.remember(
            tenant_id, NewMemory(content="Greta Lind runs the night shift.", entity_ids=[e.id])
        )
        sent.clear()
        embedded.clear()  # the memory's own vector
        (changed,) = await resolver.profiles.refresh(tenant_id, [e.id])
    finally:
        resolver.graph.observer = None
    assert "resolution_profile_update" in sent and len(embedded) == 1
    assert "night shift" in (changed.profile_summary or "")
    stored = (await g.get_entities([e.id]))[e.id]
    assert stored.profile_embedding == changed.profile_embedding != again.profile_embedding


async def test_tracker_survives_a_new_resolver(resolver: Resolver, tenant_id: str) -> None:
    g = resolver.graph.tenant(tenant_id)
    anna = await g.create_entity("Anna Berg", EntityType.PERSON, at=AT)
    await resolver.resolve(tenant_id, "Anna Berg sent the draft", session_id="chat", at=AT)
    restarted = Resolver(resolver.graph, resolver.embedder, resolver.settings, resolver.parser)
    follow = await restarted.resolve(tenant_id, "Did she fix it?", session_id="chat", at=AT + 5)
    she = [r for r in follow.resolved if r.mention.text == "she"][0]
    assert she.entity is not None and she.entity.id == anna.id and she.method == "tracker"


async def test_pronoun_without_session_stays_unresolved(resolver: Resolver, tenant_id: str) -> None:
    g = resolver.graph.tenant(tenant_id)
    await g.create_entity("Anna Berg", EntityType.PERSON, at=AT)
    result = await resolver.resolve(tenant_id, "Did she fix it?", at=AT)
    assert result.entity_ids == [] and result.tracked == ()


def test_fastcoref_configured_but_absent_fails_at_start(resolver: Resolver) -> None:
    with pytest.raises(BackendError, match="fastcoref"):
        Resolver(resolver.graph, resolver.embedder, ResolutionSettings(coref="fastcoref"))


async def _two_peters(resolver: Resolver, tenant_id: str) -> tuple[Entity, ...]:
    """Acme Media, Globex Labs, Peter Novak (of Acme) and Peter Okafor (of Globex), with
    their profiles built."""
    g = resolver.graph.tenant(tenant_id)
    acme = await g.create_entity("Acme Media", EntityType.ORG, at=AT)
    globex = await g.create_entity("Globex Labs", EntityType.ORG, at=AT)
    novak = await g.create_entity("Peter Novak", EntityType.PERSON, at=AT)
    okafor = await g.create_entity("Peter Okafor", EntityType.PERSON, at=AT)
    await g.update_entity(novak.id, parent_id=acme.id)
    await g.update_entity(okafor.id, parent_id=globex.id)
    await resolver.profiles.refresh(tenant_id, [novak.id, okafor.id])  # no write on reads
    return acme, globex, novak, okafor


async def test_entities_are_reused_only_until_the_tenant_changes_them(
    resolver: Resolver, tenant_id: str
) -> None:
    """A resolve keeps the namesakes it weighed (``entity_cache.py``), and the next one uses
    them; a write that only touches memories leaves them valid, a write that changes an
    entity makes them stale: here the two Peters swap organisations, and the same cue
    settles on the other one."""
    g = resolver.graph.tenant(tenant_id)
    acme, globex, novak, okafor = await _two_peters(resolver, tenant_id)
    query = "What did Peter from Acme Media say?"

    def meant(result: object) -> list[str]:
        return [r.entity.id for r in result.resolved if r.entity and r.mention.text == "Peter"]  # type: ignore[attr-defined]

    assert meant(await resolver.resolve(tenant_id, query, at=AT)) == [novak.id]
    writes = g._store.entity_writes_of(tenant_id)
    both = [novak.id, okafor.id]
    assert set(resolver.entities.get(tenant_id, writes, both)) == set(both)
    kept = resolver.entities.get(tenant_id, writes, both, profiled=both)  # context weighed them
    assert kept[novak.id].profile_embedding is not None
    assert kept[novak.id].profile_embedding == (await g.get_entity(novak.id)).profile_embedding
    await g.mark_indexed([novak.id])  # a memory-only write (no such memory: nothing changes)
    await g.record_access({novak.id: 1}, AT)  # a search's access counts, flushed: the same
    assert g._store.entity_writes_of(tenant_id) == writes
    assert set(resolver.entities.get(tenant_id, writes, both)) == set(both)
    assert meant(await resolver.resolve(tenant_id, query, at=AT)) == [novak.id]
    await g.update_entity(novak.id, parent_id=globex.id)
    await g.update_entity(okafor.id, parent_id=acme.id)
    assert g._store.entity_writes_of(tenant_id) > writes
    assert not resolver.entities.get(tenant_id, g._store.entity_writes_of(tenant_id), [novak.id])
    assert meant(await resolver.resolve(tenant_id, query, at=AT)) == [okafor.id]


async def test_namesakes_weighed_from_a_larger_pool_are_kept_with_their_profiles(
    resolver: Resolver, tenant_id: str
) -> None:
    """A name with more namesakes than context weighs at once (``max_candidates``) reads its
    pool without profile embeddings; the ones context then weighs are read with theirs once
    and kept, so the next text naming them reads nothing (every turn used to read them)."""
    narrow = resolver.settings.model_copy(update={"max_candidates": 2})
    small = Resolver(resolver.graph, resolver.embedder, narrow, resolver.parser)
    g = resolver.graph.tenant(tenant_id)
    _, _, novak, okafor = await _two_peters(small, tenant_id)
    # A third Peter, provisional: in the pool, not weighed by a read (it is a "maybe").
    await g.create_identity("Peter", EntityType.PERSON, True, [(novak.id, 0.5)], at=AT)
    query = "What did Peter from Acme Media say?"
    sent: list[str] = []
    resolver.graph.observer = lambda name, seconds: sent.append(name)
    try:
        first = await small.resolve(tenant_id, query, at=AT)
        reads_first = sent.count("resolution_entity_get")
        sent.clear()
        again = await small.resolve(tenant_id, query, at=AT)
    finally:
        resolver.graph.observer = None
    meant = [r.entity.id for r in first.resolved if r.entity and r.mention.text == "Peter"]
    assert meant == [novak.id]
    assert [r.entity_ids for r in (first, again)] == [first.entity_ids] * 2
    assert reads_first >= 1  # the pool, then the two weighed with their profiles
    assert "resolution_entity_get" not in sent, sent
    writes = g._store.entity_writes_of(tenant_id)
    kept = small.entities.get(tenant_id, writes, [novak.id, okafor.id], [novak.id, okafor.id])
    assert kept[okafor.id].profile_embedding is not None


async def test_kept_entities_and_names_are_renewed_in_the_background_after_the_ttl(
    settings: Settings, embedded_graph: GraphRuntime, embedder: Embedder, tenant_id: str
) -> None:
    """Another process changes entities this one keeps (``entity_cache.py``, the gazetteer):
    within the ttl this process answers from what it kept; past it, a background read
    renews both caches and answers follow the graph, without a request waiting for it. A
    name added while the names reload is not lost."""
    fast = settings.resolution.model_copy(update={"entity_cache_ttl": 0.5, "gazetteer_ttl": 0.5})
    resolver = Resolver(embedded_graph.store, embedder, fast)
    nlp = await resolver.parser.load()
    other = await open_graph(settings, attach=True)  # a second process on the same graph
    try:
        elsewhere = other.store.tenant(tenant_id)
        acme, globex, novak, okafor = await _two_peters(resolver, tenant_id)
        query = "What did Peter from Acme Media say?"

        async def meant() -> list[str]:
            result = await resolver.resolve(tenant_id, query, at=AT)
            return [r.entity.id for r in result.resolved if r.entity and r.mention.text == "Peter"]

        assert await meant() == [novak.id]
        kept_names = await resolver.names.get(tenant_id, nlp)
        writes = embedded_graph.store.entity_writes_of(tenant_id)
        await elsewhere.update_entity(novak.id, parent_id=globex.id)
        await elsewhere.update_entity(okafor.id, parent_id=acme.id)
        marta = await elsewhere.create_entity("Marta Quill", EntityType.PERSON, at=AT)
        both = [novak.id, okafor.id]
        kept = resolver.entities.get(tenant_id, writes, both, profiled=both)
        assert kept[okafor.id].profile_embedding is not None
        vector = [-x for x in kept[okafor.id].profile_embedding]  # a new profile, elsewhere
        await elsewhere.save_profiles(
            [{"id": okafor.id, "summary": "Works at Acme Media.", "tags": [], "embedding": vector}]
        )
        assert embedded_graph.store.entity_writes_of(tenant_id) == writes  # unseen here
        assert await meant() == [novak.id]  # within the ttl: what was kept
        assert not kept_names.exact("Marta Quill")

        await asyncio.sleep(0.6)
        stale = await resolver.names.get(tenant_id, nlp)
        assert stale is kept_names  # past the ttl: served at once, reloaded meanwhile
        nadia = KnownName("Nadia Brook", "e-nadia", EntityType.PERSON)
        await resolver.names.extend(tenant_id, [nadia])  # this process adds a name meanwhile
        deadline = time.monotonic() + 10
        answers = await meant()
        while answers != [okafor.id] and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            answers = await meant()
        assert answers == [okafor.id]  # the renewed entities: the swap is seen
        renewed = resolver.entities.get(tenant_id, writes, both, profiled=both)
        assert renewed[okafor.id].profile_embedding == tuple(vector)  # read again in full
        assert renewed[novak.id].profile_embedding == kept[novak.id].profile_embedding
        fresh = await resolver.names.get(tenant_id, nlp)
        assert fresh is not kept_names
        assert fresh.exact("Marta Quill") == {marta.id}  # the reload read the new name
        assert fresh.exact("Nadia Brook") == {"e-nadia"}  # and kept the one added meanwhile
    finally:
        await resolver.close()
        await other.close()
