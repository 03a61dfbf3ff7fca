"""A person said again is the same person (through ``record_turn``): a correction opened by
"Actually" without a comma, and a role stored as said ("CTO") stated again."""

from __future__ import annotations

import pytest

from api.brain import Brain
from core.ingest_types import TurnInput

pytestmark = pytest.mark.integration


async def test_actually_without_a_comma_corrects_the_same_peter(
    brain: Brain, tenant_id: str
) -> None:
    first = await brain.memories.record_turn(
        tenant_id, TurnInput(session_id="a1", user_id="u", content="Peter is our writer.")
    )
    fix = await brain.memories.record_turn(
        tenant_id,
        TurnInput(session_id="a2", user_id="u", content="Actually Peter is our editor now."),
    )
    assert [e.name for e in fix.entities] == ["Peter"]
    assert {e.id for e in fix.entities} == {e.id for e in first.entities}
    people = await brain.entities.page(tenant_id, first=20)
    assert sorted(e.name for e in people) == ["Peter"]


async def test_a_statement_said_again_links_the_person_it_named(
    brain: Brain, tenant_id: str
) -> None:
    said = "Peter Alvarez is the CTO at our client Brightline"
    for n, text in enumerate([said + "; he manages the platform team.", said + ".", said + "!"]):
        await brain.memories.record_turn(
            tenant_id, TurnInput(session_id=f"p{n}", user_id="u", content=text)
        )
    people = [
        e for e in await brain.entities.page(tenant_id, first=20) if e.name == "Peter Alvarez"
    ]
    assert len(people) == 1, people
