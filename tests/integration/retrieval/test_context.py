"""assembleContext on the real engines: layers, budgets, superseded facts, passthrough."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.clock import now
from core.errors import InvalidInput
from core.ids import new_id
from core.ingest_types import TurnInput
from core.resolution_types import Clarification
from core.retrieval_types import ContextRequest, Layer
from core.text import content_hash
from core.types import DecayClass, Memory, MemoryType, NewMemory
from retrieval.assembly import ContextAssembler

pytestmark = pytest.mark.integration


def turn(tenant: str, text: str, at: float, session: str = "s1") -> Memory:
    return Memory(
        id=new_id(),
        tenant_id=tenant,
        type=MemoryType.WORKING,
        content=text,
        session_id=session,
        created_at=at,
        valid_from=at,
        content_hash=content_hash(text),
        decay_class=DecayClass.FAST,
    )


async def test_layers_hold_the_right_memories(
    brain: Brain, assembler: ContextAssembler, tenant_id: str
) -> None:
    t = now()
    old = await brain.memories.remember(
        tenant_id, NewMemory(content="The release is planned for May")
    )
    await brain.memories.supersede(tenant_id, old.id, "The release is planned for June")
    await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(
                content="Release checklist: freeze, tag, build, announce",
                type=MemoryType.PROCEDURAL,
            ),
            NewMemory(content="We are the platform team of Acme", pinned=True),
            NewMemory(content="Release notes v2: new billing page", type=MemoryType.DOCUMENT),
        ],
    )
    turns = tuple(
        turn(tenant_id, f"user: message {i} about the release", t - 100 + i) for i in range(5)
    )
    clar = Clarification(question="Which release?", mention="release", candidates=())
    ctx = await assembler.assemble(
        tenant_id,
        ContextRequest(
            session_id="s1",
            query="When is the release?",
            recent_turns=turns,
            clarification=clar,
            tracked=("tracked-sentinel",),
        ),
    )
    assert "June" in ctx.layers[Layer.MEMORIES] and "May" not in ctx.text
    assert "] Release checklist" in ctx.layers[Layer.PROCEDURAL]  # "[procedural, <date>]"
    assert "platform team" in ctx.layers[Layer.PROJECT_CONTEXT]
    assert "billing page" in ctx.layers[Layer.DOCUMENT_CHUNKS]
    assert ctx.layers[Layer.RECENT_CONVERSATION].count("message") == 5
    assert ctx.clarification is clar and ctx.tracked_entities == ["tracked-sentinel"]
    assert ctx.total_tokens == assembler.counter.count(ctx.text) <= ctx.token_budget
    assert sum(ctx.token_counts.values()) < ctx.total_tokens  # headers are counted too
    assert ctx.text.index("Procedures:") < ctx.text.index("Recent conversation:")


async def test_small_budget_keeps_three_turns_and_summarizes_the_rest(
    brain: Brain, assembler: ContextAssembler, tenant_id: str
) -> None:
    t = now()
    await brain.memories.remember(tenant_id, NewMemory(content="Lunch is at noon. Bring snacks."))
    turns = tuple(
        turn(tenant_id, f"Turn {i}. " + "we talked about many long things " * 20, t - 50 + i)
        for i in range(10)
    )
    ctx = await assembler.assemble(
        tenant_id,
        ContextRequest(session_id="s1", query="lunch", recent_turns=turns, token_budget=200),
    )
    assert ctx.total_tokens <= 200
    kept = [i for i in ctx.items if i.layer is Layer.RECENT_CONVERSATION]
    assert [i.memory.id for i in kept] == [t.id for t in turns[-3:]]
    big = await assembler.assemble(
        tenant_id,
        ContextRequest(session_id="s1", query="lunch", recent_turns=turns, token_budget=2500),
    )
    assert big.summarized_turns > 0 and "Earlier: Turn 0." in big.layers[Layer.RECENT_CONVERSATION]


async def test_bad_context_requests(assembler: ContextAssembler, tenant_id: str) -> None:
    with pytest.raises(InvalidInput):
        await assembler.assemble(tenant_id, ContextRequest(session_id=" "))
    with pytest.raises(InvalidInput):
        await assembler.assemble(tenant_id, ContextRequest(session_id="s", token_budget=10))


async def test_a_sentence_is_in_the_context_once(brain: Brain, tenant_id: str) -> None:
    # A turn's episode and a remembered memory say the same sentence; both match the query,
    # and the turn may be in the recent conversation as well. (A one-sentence event turn is
    # stored once, as its episode: the rules' episodic copy of it is not stored.)
    said = "Peter Zhang visited the Berlin office yesterday."
    result = await brain.ingest.turns.record_turn(
        tenant_id, TurnInput(session_id="s1", user_id="u1", content=said)
    )
    assert result.episode.content == said and result.extracted == ()
    await brain.memories.remember(
        tenant_id, NewMemory(content="peter zhang visited the  Berlin office yesterday")
    )
    for session in ("s2", "s1"):  # elsewhere, and where it is a recent turn
        ctx = await brain.reads.assemble_context(
            tenant_id, session, query="When did Peter Zhang visit the Berlin office?"
        )
        assert ctx.text.casefold().count("visited the berlin office") == 1, ctx.text
    assert said in ctx.layers[Layer.RECENT_CONVERSATION]
