"""How many graph statements the request paths send (each one is a network round trip).

recordTurn, search and assembleContext are latency-bound by their sequential graph round
trips; these tests pin the statements each sends in steady state (caches warm), so a change
that adds one fails here and has to update the count on purpose. Statements are counted per
request through the store's observer and a context variable: background work (access-count
flushes, the job queue, other tests' tasks) runs in other contexts and is not counted.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import pytest

from api.brain import Brain
from core.ingest_types import TurnInput
from core.retrieval_types import SearchQuery
from core.types import EntityType, NewMemory
from graph.store import GraphStore
from retrieval.core_cache import CoreCache

pytestmark = pytest.mark.integration

T = TypeVar("T")
_counting: contextvars.ContextVar[Counter[str] | None] = contextvars.ContextVar(
    "round_trips", default=None
)


@contextmanager
def observed(graph: GraphStore) -> Iterator[None]:
    """Count the statements run in the current context (and tasks started from it)."""
    inner = graph.observer

    def observe(name: str, seconds: float) -> None:
        counter = _counting.get()
        if counter is not None:
            counter[name] += 1
        if inner is not None:
            inner(name, seconds)

    graph.observer = observe
    try:
        yield
    finally:
        graph.observer = inner


async def statements(call: Callable[[], Awaitable[T]]) -> tuple[T, Counter[str]]:
    """Run ``call`` in its own task (a copy of this context) and return the statements it
    and the tasks it started sent, by name."""
    counter: Counter[str] = Counter()

    async def run() -> T:
        _counting.set(counter)
        return await call()

    return await asyncio.create_task(run()), counter


@pytest.fixture
async def warm(brain: Brain, tenant_id: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A tenant with a known person, two memories and a session of two turns, caches warm;
    the pinned-ids cache does not expire during the test (its refresh is a timed event)."""
    limit = brain.settings.retrieval.core_limit
    monkeypatch.setattr(brain.retriever, "core", CoreCache(3600.0, limit))
    brain.access.note(tenant_id, [])  # start the flush task outside the counted context
    anna = await brain.entities.create(tenant_id, "Anna Weber", EntityType.PERSON)
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="Anna Weber handles the client's invoices.", entity_ids=[anna.id]),
            NewMemory(content="Invoices go out on the first of the month."),
        ],
    )
    for text in ("Anna Weber sent the invoice to the client.", "The client paid on Monday."):
        await brain.ingest.turns.record_turn(
            tenant_id, TurnInput(session_id="s1", user_id="u1", content=text)
        )
    await brain.reads.search(
        tenant_id, SearchQuery(query="invoice from Anna Weber", session_id="s1")
    )
    # The last turn's indexed marks are written now, not carried by the counted turn (whether
    # the background batch beat the next write would depend on the machine's speed).
    await brain.ingest.writer.sync.marks.flush()
    return tenant_id


async def test_record_turn_round_trips(brain: Brain, warm: str) -> None:
    turn = TurnInput(session_id="s1", user_id="u1", content="Anna Weber reviewed the budget.")
    with observed(brain.graph):
        result, sent = await statements(lambda: brain.ingest.turns.record_turn(warm, turn))
    assert result.entities and result.episode.indexed
    assert sent == Counter(
        {
            "ingest_session_get": 1,  # the session's window and entity tracker
            # Candidates and tracked entities come from the entity cache: the fixture's turns
            # read them, and storing turns about them did not change them.
            "memory_create": 1,  # the transaction: memories, links, tenant
            "ingest_turn_session": 1,  # ... the window, the tracker and the jobs
        }
    ), sent
    # The indexed mark follows off the request path (counted above: it is not there).
    await brain.ingest.writer.sync.marks.flush()
    assert (await brain.memories.get(warm, result.episode.id)).indexed


async def test_a_turn_introducing_a_namesake_writes_once(
    brain: Brain, warm: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "My cousin Anna" when Anna Weber is known: a provisional Anna, created in the turn's
    one transaction with her link to Anna Weber and the decision, not in one of her own."""
    transactions: list[int] = []
    write = brain.graph._execute_write

    async def counted(work, *key):  # type: ignore[no-untyped-def]
        if _counting.get() is not None:
            transactions.append(1)
        return await write(work, *key)

    monkeypatch.setattr(brain.graph, "_execute_write", counted)
    turn = TurnInput(session_id="s2", user_id="u1", content="My cousin Anna called.")
    with observed(brain.graph):
        result, sent = await statements(lambda: brain.ingest.turns.record_turn(warm, turn))
    [anna] = [e for e in result.entities if e.name == "Anna"]
    assert anna.provisional
    assert len(transactions) == 1, sent
    assert sent == Counter(
        {
            "ingest_session_get": 1,
            "identity_create": 1,  # the transaction: Anna, possibly Anna Weber, ...
            "memory_create": 1,  # ... the turn about her, ...
            "ingest_turn_session": 1,  # ... why she is someone else, maybe, and the session
        }
    ), sent
    [question] = await brain.graph.tenant(warm).identity_questions(10)
    assert question.entity.id == anna.id
    [decision] = await brain.graph.tenant(warm).identity_decisions(anna.id)
    assert (decision.outcome, decision.memory_id) == ("provisional", result.episode.id)
    # She is kept as committed: the next text naming her does not read her from the graph.
    writes = brain.graph.entity_writes_of(warm)
    assert brain.resolver.entities.get(warm, writes, [anna.id]) == {anna.id: anna}


async def test_a_relation_stated_again_is_not_read_again(brain: Brain, warm: str) -> None:
    """The first turn saying where Anna works reads her relations and records the new one;
    the next turn saying it again finds it in the entity cache (it read her relations on
    every such turn before)."""
    acme = await brain.entities.create(warm, "Acme Media", EntityType.ORG)
    text = "Anna Weber works for Acme Media."
    first = TurnInput(session_id="s2", user_id="u1", content=text)
    again = TurnInput(session_id="s3", user_id="u1", content=text)
    with observed(brain.graph):
        _, sent_first = await statements(lambda: brain.ingest.turns.record_turn(warm, first))
        result, sent = await statements(lambda: brain.ingest.turns.record_turn(warm, again))
    assert sent_first["entity_relations"] == 1 and sent_first["entity_relate_once"] == 1
    assert "entity_relations" not in sent and "entity_relate_once" not in sent, sent
    [anna] = [e for e in result.entities if e.name == "Anna Weber"]
    relations = await brain.graph.tenant(warm).relations(anna.id)
    assert [(r.target_id, r.relation) for r in relations] == [(acme.id, "works_for")]


async def test_search_round_trips(brain: Brain, warm: str) -> None:
    query = SearchQuery(query="What did Anna Weber say about the client?", session_id="s1")
    with observed(brain.graph):
        response, sent = await statements(lambda: brain.reads.search(warm, query))
    assert response.hits
    assert sent == Counter(
        {
            "retrieval_session_context": 1,  # window, turns and tracker of the session
            "retrieval_confirmed_tasks": 1,  # the task bonus
            # The query's candidates and the tracked entities: from the entity cache.
            "retrieval_entity_expand": 1,  # entity set and the names cut from the topic
            "retrieval_entity_memories": 1,  # the entity path: memories and degree
            "memory_get": 1,  # hydrating the shortlist
        }
    ), sent


async def test_assemble_context_round_trips(brain: Brain, warm: str) -> None:
    with observed(brain.graph):
        context, sent = await statements(
            lambda: brain.reads.assemble_context(warm, "s1", query="What did Anna Weber send?")
        )
    assert context.layers
    assert sum(sent.values()) == 5, sent  # the search's statements; nothing per layer


async def test_light_entity_reads_leave_out_profiles_unless_asked(
    brain: Brain, tenant_id: str
) -> None:
    g = brain.graph.tenant(tenant_id)
    a, b = [await g.create_entity(n, EntityType.PERSON) for n in ("Ann One", "Ann Two")]
    await brain.resolver.profiles.refresh(tenant_id, [a.id, b.id])
    found = await g.resolution_entities([a.id, b.id], [b.id])
    assert found[a.id].profile_embedding is None
    assert found[b.id].profile_embedding == (await g.get_entity(b.id)).profile_embedding
    full = (await g.get_entities([a.id]))[a.id]
    assert found[a.id] == full.model_copy(update={"profile_embedding": None})
