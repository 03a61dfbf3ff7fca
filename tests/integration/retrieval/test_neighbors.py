"""Neighbouring turns on the real engines: a turn that only makes sense after the question
before it inherits that question's relevance (the index's neighbour lookup itself is part of
the vector contract, ``tests/integration/test_vector_contract.py``)."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.clock import now
from core.retrieval_types import SearchQuery
from core.types import MemoryType, NewMemory
from retrieval.retriever import Retriever

pytestmark = pytest.mark.integration


async def test_an_answer_turn_inherits_the_question_turns_relevance(
    brain: Brain, retriever: Retriever, tenant_id: str
) -> None:
    t = now() - 86_400
    fillers = [
        NewMemory(content=f"Notes on the quarterly budget review, item {i}", session_id=f"f{i}")
        for i in range(20)
    ]
    question, answer = await brain.memories.remember_many(
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
    await brain.memories.remember_many(tenant_id, fillers)

    hits = (await retriever.search(tenant_id, SearchQuery(query="art show painting"))).hits
    by_id = {h.memory.id: h for h in hits}
    assert question.id in by_id and answer.id in by_id
    assert by_id[answer.id].signals["neighbor"] > 0
    assert by_id[question.id].signals["neighbor"] > 0  # links go both ways
