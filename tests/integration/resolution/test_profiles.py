"""Entity profiles through the public path on the real engines: turns recorded, the profile
job run as the service runs it, the stored summary read back. Each current statement once,
with its day; a corrected value gone; each memory read once however it is reached."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.ingest_types import TurnInput
from core.text import normalize_name
from core.types import Entity, EntityType, NewMemory
from resolution.summary import statements

pytestmark = pytest.mark.integration

JAN_6 = 1_673_000_000.0  # 2023-01-06 10:13 UTC
DAY = 86_400.0


async def say(brain: Brain, tenant: str, text: str, at: float) -> list[Entity]:
    """Record a turn, then run the profile job the turn queued (``Resolver.refresh_profiles``,
    what the service's queue runs) on the entities it named."""
    result = await brain.memories.record_turn(
        tenant, TurnInput(session_id="s1", content=text, at=at)
    )
    await brain.resolver.refresh_profiles(tenant, [e.id for e in result.entities])
    return list(result.entities)


async def test_a_fact_said_in_three_turns_is_in_the_profile_once_with_its_day(
    brain: Brain, tenant_id: str
) -> None:
    first = await say(
        brain,
        tenant_id,
        "Marisol Quintero is one of our editors; she reviews the travel guides.",
        JAN_6,
    )
    await say(brain, tenant_id, "marisol quintero is one of our EDITORS!", JAN_6 + DAY)
    await say(brain, tenant_id, "Marisol Quintero is one of our editors", JAN_6 + 2 * DAY)
    (marisol,) = [e for e in first if e.name == "Marisol Quintero"]
    summary = (await brain.entities.get(tenant_id, marisol.id)).profile_summary or ""
    said = normalize_name(" ".join(statements(summary)))
    assert said.count("is one of our editors") == 1, summary
    assert summary == (
        "[2023-01-06] Marisol Quintero is one of our editors; she reviews the travel guides."
    )


async def test_a_corrected_role_leaves_the_profile(brain: Brain, tenant_id: str) -> None:
    """The turn that said the old role stays as it was said (and current: it is what was
    said), but the profile states what is true now."""
    (peter,) = await say(brain, tenant_id, "Peter is our writer.", JAN_6)
    assert "writer" in ((await brain.entities.get(tenant_id, peter.id)).profile_summary or "")
    await say(brain, tenant_id, "Actually, Peter is our editor now.", JAN_6 + DAY)
    summary = (await brain.entities.get(tenant_id, peter.id)).profile_summary or ""
    assert summary == "[2023-01-07] Actually, Peter is our editor now.", summary


async def test_the_profile_reads_each_current_memory_once(brain: Brain, tenant_id: str) -> None:
    """A memory about an entity and about one merged into it is reached twice; a superseded
    or forgotten memory not at all; what a correction replaced comes with its time."""
    g = brain.graph.tenant(tenant_id)
    ana = await g.create_entity("Ana Lindqvist", EntityType.PERSON, at=JAN_6)
    anna = await g.create_entity("Anna Lindqvist", EntityType.PERSON, at=JAN_6)
    both = await brain.memories.remember(
        tenant_id, NewMemory(content="Ana Lindqvist runs payroll.", entity_ids=[ana.id, anna.id])
    )
    old = await brain.memories.remember(
        tenant_id, NewMemory(content="Ana Lindqvist works in Oslo.", entity_ids=[ana.id])
    )
    new = await brain.memories.supersede(tenant_id, old.id, "Ana Lindqvist works in Bergen.")
    gone = await brain.memories.remember(
        tenant_id, NewMemory(content="Ana Lindqvist likes sailing.", entity_ids=[ana.id])
    )
    await brain.memories.forget(tenant_id, gone.id)
    await brain.entities.merge(tenant_id, ana.id, [anna.id], "same person")

    sources = (await g.entity_memories([ana.id], 20))[ana.id]
    assert sorted(sources.memory_ids) == sorted([both.id, new.id])
    assert sorted(m.content for m in sources.material) == [
        "Ana Lindqvist runs payroll.",
        "Ana Lindqvist works in Bergen.",
    ]
    ((content, replaced_at),) = sources.replaced
    assert content == "Ana Lindqvist works in Oslo." and replaced_at == pytest.approx(
        (await brain.memories.get(tenant_id, old.id)).superseded_at
    )
