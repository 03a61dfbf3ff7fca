"""Multi-path search on the real engines: the seed scenarios, each path reaching the top on
its own, filters, explainability, access counting and bad input."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from api.brain import Brain
from core.clock import now
from core.errors import BackendError, InvalidInput
from core.retrieval_types import SIGNALS, SearchMode, SearchQuery
from core.types import EntityType, Memory, MemoryType, NewMemory
from graph.memories import MemoryOps
from retrieval.retriever import Retriever
from vectors.edge_index import EdgeVectorIndex

pytestmark = pytest.mark.integration
DAY = 86_400.0


async def contents(retriever: Retriever, tenant: str, **kw: object) -> list[str]:
    response = await retriever.search(tenant, SearchQuery(**kw))  # type: ignore[arg-type]
    return [h.memory.content for h in response.hits]


async def test_peter_and_his_process_are_retrieved_together(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    process = await g.create_entity("Human content process", EntityType.PROCESS)
    anna = await g.create_entity("Anna", EntityType.PERSON)
    await g.relate(peter.id, process.id, "follows")
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Peter is a writer at WOBS", type=MemoryType.SEMANTIC, entity_ids=[peter.id]
            ),
            NewMemory(
                content="Human content: brief, outline, draft by hand, edit, fact check, publish",
                type=MemoryType.PROCEDURAL,
                entity_ids=[process.id],
            ),
            NewMemory(content="Anna is a writer at Globex", entity_ids=[anna.id]),
            NewMemory(content="The writers' lunch is on Friday"),
            NewMemory(content="Peter's cat is named Miso", type=MemoryType.EPISODIC),
        ],
    )
    response = await retriever.search(
        tenant_id,
        SearchQuery(
            query="What should Peter do for his next article?", top_k=3, entity_ids=(peter.id,)
        ),
    )
    top = {h.memory.content: h for h in response.hits}
    assert "Peter is a writer at WOBS" in top
    process_hit = next(h for c, h in top.items() if c.startswith("Human content"))
    assert "ENTITY" in process_hit.paths
    # Without the entity, the process is not among the top 3: the entity path found it.
    plain = await contents(
        retriever, tenant_id, query="What should Peter do for his next article?", top_k=3
    )
    assert not any(c.startswith("Human content") for c in plain)


async def test_current_deploy_target_is_the_end_of_the_chain_and_as_of_the_start(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t0 = now() - 30 * DAY
    first = await brain.memories.remember(
        tenant_id, NewMemory(content="The deploy target is staging-1", created_at=t0)
    )
    second = await brain.writer.supersede(
        tenant_id, first.id, "The deploy target is staging-2", at=t0 + 10 * DAY
    )
    third = await brain.writer.supersede(
        tenant_id, second.id, "The deploy target is prod-eu", at=t0 + 20 * DAY
    )
    await brain.memories.remember(tenant_id, NewMemory(content="Deploys happen on Tuesdays"))
    current = await retriever.search(tenant_id, SearchQuery(query="current deploy target"))
    ids = [h.memory.id for h in current.hits]
    assert ids[0] == third.id
    assert first.id not in ids and second.id not in ids
    old = await retriever.search(
        tenant_id, SearchQuery(query="current deploy target", as_of=t0 + 5 * DAY)
    )
    assert old.hits[0].memory.id == first.id
    assert {second.id, third.id}.isdisjoint(h.memory.id for h in old.hits)


async def test_yesterdays_traffic_beats_the_three_month_old_figure(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t = now()
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="Website traffic was 500 visits a day", created_at=t - 90 * DAY),
            NewMemory(content="Website traffic is 800 visits a day", created_at=t - DAY),
        ],
    )
    response = await retriever.search(tenant_id, SearchQuery(query="what is the website traffic?"))
    assert "800" in response.hits[0].memory.content
    old, new = sorted(response.hits, key=lambda h: h.memory.created_at)
    assert new.signals["recency"] > old.signals["recency"]
    assert new.signals["recency_boost"] > old.signals["recency_boost"]


async def test_old_foundation_is_not_outranked_by_recent_trivia(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t = now()
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Marta is the head of sales at Acme",
                type=MemoryType.SEMANTIC,
                created_at=t - 700 * DAY,
            ),
            NewMemory(
                content="Marta had a sandwich for lunch",
                type=MemoryType.EPISODIC,
                created_at=t - 3600,
            ),
        ],
    )
    hits = (await retriever.search(tenant_id, SearchQuery(query="Who is Marta?"))).hits
    assert hits[0].memory.content.startswith("Marta is the head of sales")
    assert hits[0].signals["recency"] == 1.0


async def test_keyword_only_memory_reaches_the_top(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    fillers = [f"Meeting notes about the quarterly marketing plan, part {i}" for i in range(30)]
    await brain.memories.remember_many(
        tenant_id,
        [NewMemory(content=c) for c in fillers]
        + [NewMemory(content="Ticket ZQX-7781 tracks the broken login redirect")],
    )
    response = await retriever.search(tenant_id, SearchQuery(query="ZQX-7781 marketing", top_k=3))
    hit = next(h for h in response.hits if "ZQX-7781" in h.memory.content)
    assert "KEYWORD" in hit.paths
    assert response.hits.index(hit) <= 1


async def test_filters_project_types_time_expired(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t = now()
    made = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Budget for Apollo is 10k", project_id="apollo", created_at=t - 5 * DAY
            ),
            NewMemory(content="Budget for Zeus is 20k", project_id="zeus", created_at=t - 2 * DAY),
            NewMemory(
                content="Budget review procedure: sum, check, sign",
                type=MemoryType.PROCEDURAL,
                project_id="apollo",
            ),
        ],
    )
    forgotten = await brain.memories.remember(
        tenant_id, NewMemory(content="Budget for Hermes is 5k")
    )
    await brain.memories.forget(tenant_id, forgotten.id)
    got = await contents(retriever, tenant_id, query="budget", project_id="apollo")
    assert set(got) == {made[0].content, made[2].content}
    got = await contents(retriever, tenant_id, query="budget", types=(MemoryType.PROCEDURAL,))
    assert got == [made[2].content]
    got = await contents(retriever, tenant_id, query="budget", since=t - 3 * DAY, until=t - DAY)
    assert got == [made[1].content]
    assert forgotten.content not in await contents(retriever, tenant_id, query="Hermes budget")


async def test_every_hit_is_explained(brain: Brain, retriever: Retriever, tenant_id: str) -> None:
    g = brain.graph.tenant(tenant_id)
    lena = await g.create_entity("Lena", EntityType.PERSON)
    core = await brain.memories.remember(
        tenant_id, NewMemory(content="Always answer in English", pinned=True)
    )
    await brain.memories.remember(
        tenant_id, NewMemory(content="Lena runs the SEO audits", entity_ids=[lena.id])
    )
    response = await retriever.search(
        tenant_id,
        SearchQuery(query="who runs SEO audits", entity_ids=(lena.id,), mode=SearchMode.MANAGER),
    )
    assert response.metadata.candidates_per_path["CORE"] == 1
    assert response.metadata.candidates_per_path["ENTITY"] == 1
    assert response.metadata.post_filter_count == 2 and response.metadata.latency_ms > 0
    for hit in response.hits:
        assert set(SIGNALS) <= set(hit.signals)
        assert hit.paths
    by_id = {h.memory.id: h for h in response.hits}
    assert "CORE" in by_id[core.id].paths and "ENTITY" not in by_id[core.id].paths
    lena_hit = next(h for h in response.hits if h.memory.id != core.id)
    assert set(lena_hit.paths) >= {"ENTITY", "SEMANTIC", "KEYWORD"}
    assert lena_hit.signals["entity_match"] == 1.0


async def test_near_duplicate_is_pushed_down(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="The invoice for Acme is due on Friday"),
            NewMemory(content="The invoice for Acme is due on Friday!"),
            NewMemory(content="Acme pays invoices by bank transfer"),
        ],
    )
    hits = (await retriever.search(tenant_id, SearchQuery(query="Acme invoice due"))).hits
    assert hits[1].memory.content == "Acme pays invoices by bank transfer"
    assert hits[2].signals["diversity_penalty"] == 0.5


async def test_access_counts_are_batched(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    m = await brain.memories.remember(
        tenant_id, NewMemory(content="The wifi password is on the fridge")
    )
    assert retriever.access is not None
    before = brain.graph.round_trips
    for _ in range(3):
        await retriever.search(tenant_id, SearchQuery(query="wifi password"))
    assert retriever.access.pending == 3
    flushes = retriever.access.flushes
    assert await retriever.access.flush() == 1  # memories updated
    assert retriever.access.flushes == flushes + 1  # one UNWIND write for three accesses
    stored = await brain.memories.get(tenant_id, m.id)
    assert stored.access_count == 3 and stored.last_accessed_at is not None
    assert brain.graph.round_trips > before


@pytest.mark.parametrize(
    "kw",
    [
        {"query": "  "},
        {"query": "x", "top_k": 0},
        {"query": "x", "top_k": 1000},
        {"query": "x", "weights": {"charisma": 0.5}},
        {"query": "x", "weights": {"similarity": 2.0}},
        {"query": "x", "since": 10.0, "until": 5.0},
    ],
)
async def test_bad_requests_are_typed_errors(
    retriever: Retriever, tenant_id: str, kw: dict[str, object]
) -> None:
    with pytest.raises(InvalidInput):
        await retriever.search(tenant_id, SearchQuery(**kw))  # type: ignore[arg-type]


async def test_time_window_and_past_tense(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t = now()
    early, late = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Team dinner at the Italian place",
                type=MemoryType.EPISODIC,
                created_at=t - 40 * DAY,
            ),
            NewMemory(
                content="Team dinner at the Italian place!",
                type=MemoryType.EPISODIC,
                created_at=t - 2 * DAY,
            ),
        ],
    )
    plain = (await retriever.search(tenant_id, SearchQuery(query="team dinner"))).hits
    assert plain[0].memory.id == late.id
    window = ((t - 45 * DAY, t - 35 * DAY),)
    hits = (
        await retriever.search(tenant_id, SearchQuery(query="team dinner", time_windows=window))
    ).hits
    assert hits[0].memory.id == early.id and hits[0].signals["time_window"] > 0
    past = (
        await retriever.search(tenant_id, SearchQuery(query="when did we have team dinner"))
    ).hits
    assert all(h.signals["recency_boost"] == 0.0 for h in past)


async def test_core_memory_is_cached_and_invalidated(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    a = await brain.memories.remember(
        tenant_id, NewMemory(content="We never work on Sundays", pinned=True)
    )
    first = await retriever.search(tenant_id, SearchQuery(query="weekend rules"))
    assert first.metadata.candidates_per_path["CORE"] == 1
    b = await brain.memories.remember(
        tenant_id, NewMemory(content="Invoices go out monthly", pinned=True)
    )
    retriever.core.invalidate(tenant_id)
    second = await retriever.search(tenant_id, SearchQuery(query="weekend rules"))
    core = {h.memory.id for h in second.hits if "CORE" in h.paths}
    assert core == {a.id, b.id}
    await brain.memories.forget(
        tenant_id, a.id
    )  # a cached id of a forgotten memory is never served
    third = await retriever.search(tenant_id, SearchQuery(query="weekend rules"))
    assert a.id not in {h.memory.id for h in third.hits}


async def test_access_counts_flush_in_the_background(brain: Brain, tenant_id: str) -> None:
    from retrieval.access import AccessRecorder

    m = await brain.memories.remember(tenant_id, NewMemory(content="The printer is on floor 2"))
    recorder = AccessRecorder(brain.graph, flush_seconds=0.05)
    recorder.note(tenant_id, [m.id, m.id])
    for _ in range(100):
        if recorder.flushes:
            break
        await asyncio.sleep(0.05)
    await recorder.close()
    assert (await brain.memories.get(tenant_id, m.id)).access_count == 2


async def test_a_failing_engine_fails_the_search_and_leaves_no_stray_errors(
    brain: Brain, tenant_id: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A vector index that was never opened fails every call (the keyword and the dense
    # searches both fail) while the graph parts of the search run on the real graph.
    peter = await brain.graph.tenant(tenant_id).create_entity("Peter", EntityType.PERSON)
    closed = EdgeVectorIndex(
        tmp_path / "never-opened", brain.embedder.dimension, brain.settings.vector
    )
    retriever = Retriever(
        brain.graph, closed, brain.embedder, brain.settings.retrieval, brain.settings.limits
    )
    query = SearchQuery(query="What does Peter write?", entity_ids=(peter.id,))
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        with pytest.raises(BackendError):
            await retriever.search(tenant_id, query)
        await asyncio.sleep(0.05)  # let the stopped parts finish
        gc.collect()  # an error nobody took is logged when its task is collected
    assert "never retrieved" not in caplog.text


async def test_search_hydrates_its_shortlist_and_assembly_every_pinned_memory(
    brain: Brain, retriever: Retriever, tenant_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rooms = ["kitchen", "lobby", "garage", "office", "studio", "cellar", "attic", "porch"]
    pinned = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content=f"House rule {i}: keep the {rooms[i % 8]} tidy", pinned=True)
            for i in range(15)
        ],
    )
    await brain.memories.remember_many(
        tenant_id,
        [NewMemory(content=f"Invoice {i} for the Anderson order was sent") for i in range(30)],
    )
    hydrated: list[list[str]] = []
    real = MemoryOps.get_memories

    async def spy(self: MemoryOps, ids: Sequence[str]) -> dict[str, Memory]:
        hydrated.append(list(ids))
        return await real(self, ids)

    monkeypatch.setattr(MemoryOps, "get_memories", spy)
    query = SearchQuery(query="the invoice for the Anderson order", top_k=2)
    response = await retriever.search(tenant_id, query)
    assert response.hits and len(hydrated) == 1
    assert len(hydrated[0]) <= 2 * 2 + 10  # the shortlist, not the 15 pinned memories besides
    hydrated.clear()
    _, core = await retriever.search_with_core(tenant_id, query)
    assert {m.id for m in core} == {m.id for m in pinned}  # the context's core layer


async def test_core_memory_changes_show_on_the_next_read(brain: Brain, tenant_id: str) -> None:
    async def core_ids() -> set[str]:
        response = await brain.reads.search(tenant_id, SearchQuery(query="house rules", top_k=10))
        assert response.metadata.candidates_per_path["CORE"] == len(
            {h.memory.id for h in response.hits if "CORE" in h.paths}
        )  # every cached core id is a live, current memory
        return {h.memory.id for h in response.hits if "CORE" in h.paths}

    a = await brain.memories.pin_core(
        tenant_id, NewMemory(content="House rule: we never work on Sundays")
    )
    assert await core_ids() == {a.id}  # the tenant's core ids are cached now
    b = await brain.memories.pin_core(
        tenant_id, NewMemory(content="House rule: invoices go out monthly")
    )
    assert await core_ids() == {a.id, b.id}
    c = await brain.memories.update_core(
        tenant_id, b.id, "House rule: invoices go out every two weeks"
    )
    assert await core_ids() == {a.id, c.id}
    await brain.memories.unpin_core(tenant_id, a.id)
    assert await core_ids() == {c.id}
    await brain.memories.forget(tenant_id, c.id)
    assert await core_ids() == set()
