"""Neighbouring turns on the real engines: the graph picks each seed's nearest earlier and
later memory of its session, and a turn that only makes sense after the question before it
inherits that question's relevance."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.clock import now
from core.retrieval_types import SearchQuery
from core.types import MemoryType, NewMemory
from graph.retrieval_ops import NeighborWindow
from retrieval.retriever import Retriever

pytestmark = pytest.mark.integration


async def test_nearest_earlier_and_later_turn_of_the_same_session(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    t = now() - 3_600
    # A busy session: a turn a minute, two more at the seed's own time, and the same
    # session id and times in another session name and another tenant.
    turns = [
        NewMemory(content=f"turn {i}", session_id="chat", created_at=t + 60 * i) for i in range(21)
    ]
    same_time = [
        NewMemory(content=f"same {i}", session_id="chat", created_at=t + 600) for i in range(2)
    ]
    other = [
        NewMemory(content=f"other {i}", session_id="other", created_at=t + 570 + i * 60)
        for i in range(2)
    ]
    made = await brain.remember_many(tenant_id, [*turns, *same_time, *other])
    foreign = await brain.remember_many(
        other_tenant_id,
        [
            NewMemory(content=f"foreign {i}", session_id="chat", created_at=t + 590 + i * 20)
            for i in range(2)
        ],
    )
    ids = [m.id for m in made[:21]]
    seed, at = ids[10], t + 600
    graph = brain.graph.tenant(tenant_id)

    found = await graph.session_neighbors([NeighborWindow(seed, "chat", at, at - 900, at + 900)])
    assert found == {seed: (ids[9], ids[11])}

    # The window bounds what counts as a neighbour: nothing within 30 s earlier, one later.
    narrow = await graph.session_neighbors([NeighborWindow(seed, "chat", at, at - 30, at + 60)])
    assert narrow == {seed: (ids[11],)}

    # Several seeds in one round trip; a seed with nothing around it is absent.
    first, last = ids[0], ids[20]
    many = await graph.session_neighbors(
        [
            NeighborWindow(first, "chat", t, t - 900, t + 900),
            NeighborWindow(last, "chat", t + 1200, t + 300, t + 2100),
            NeighborWindow("lonely", "nowhere", at, at - 900, at + 900),
        ]
    )
    assert many == {first: (ids[1],), last: (ids[19],)}

    # The other tenant's session of the same name sees only its own turns.
    theirs = await brain.graph.tenant(other_tenant_id).session_neighbors(
        [NeighborWindow(foreign[0].id, "chat", t + 590, t - 300, t + 1500)]
    )
    assert theirs == {foreign[0].id: (foreign[1].id,)}


async def test_an_answer_turn_inherits_the_question_turns_relevance(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t = now() - 86_400
    fillers = [
        NewMemory(content=f"Notes on the quarterly budget review, item {i}", session_id=f"f{i}")
        for i in range(20)
    ]
    question, answer = await brain.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Melanie: What did you paint for the art show?",
                type=MemoryType.EPISODIC,
                session_id="art",
                created_at=t,
            ),
            NewMemory(
                content="Caroline: A sunrise over the lake.",
                type=MemoryType.EPISODIC,
                session_id="art",
                created_at=t + 60,
            ),
        ],
    )
    await brain.remember_many(tenant_id, fillers)

    hits = (await retriever.search(tenant_id, SearchQuery(query="art show painting"))).hits
    by_id = {h.memory.id: h for h in hits}
    assert question.id in by_id and answer.id in by_id
    assert by_id[answer.id].signals["neighbor"] > 0
    assert by_id[question.id].signals["neighbor"] > 0  # links go both ways
