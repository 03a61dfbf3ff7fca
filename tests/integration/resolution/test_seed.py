"""The seed scenario end to end: WOBS and its writer Peter, found again years later among
many other Peters, and "his last batch" still meaning him."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api.brain import Brain
from core.types import EntityType, NewMemory
from resolution.resolver import Resolver

pytestmark = pytest.mark.integration

JAN_2023 = datetime(2023, 1, 16, 10, tzinfo=UTC).timestamp()
LATER = datetime(2026, 3, 2, 9, tzinfo=UTC).timestamp()
SEED = (
    "The company is Wolf of Blog Street, also known as WOBS. We do link building. "
    "Peter is one of our writers."
)
OTHER_PETERS = [
    ("Peter Novak", "Peter Novak is the plumber who repairs the office boiler and leaking pipes."),
    ("Peter Hale", "Peter Hale is my dentist; he does the cleaning and fillings every spring."),
    ("Peter Okafor", "Peter Okafor coaches the kids' football team on Saturday mornings."),
    ("Peter Brandt", "Peter Brandt is the landlord of the apartment and collects the rent."),
    ("Peter Lind", "Peter Lind is the accountant who files our quarterly VAT returns."),
]


async def remember_turn(
    brain: Brain, resolver: Resolver, tenant: str, text: str, session: str, at: float
) -> list[str]:
    """What the write path does with a turn: resolve (creating), store, refresh profiles."""
    result = await resolver.resolve(tenant, text, session_id=session, at=at, create_missing=True)
    ids = result.entity_ids
    await brain.memories.remember(
        tenant, NewMemory(content=text, entity_ids=ids, created_at=at, valid_from=at)
    )
    await resolver.profiles.refresh(tenant, ids)
    return ids


async def test_seed_scenario(brain: Brain, resolver: Resolver, tenant_id: str) -> None:
    ids = await remember_turn(brain, resolver, tenant_id, SEED, "onboarding", JAN_2023)
    g = brain.graph.tenant(tenant_id)
    wobs = (await g.find_by_alias("WOBS"))[0]
    assert wobs.name == "Wolf of Blog Street" and wobs.type is EntityType.ORG
    assert wobs.id in ids
    peter = next(e for e in (await g.get_entities(ids)).values() if e.name == "Peter")
    assert peter.type is EntityType.PERSON
    assert "role:writer" in peter.context_tags
    assert peter.parent_id == wobs.id
    assert any(
        r.target_id == wobs.id and r.relation == "works_for" for r in await g.relations(peter.id)
    )
    assert peter.profile_embedding is not None and "writers" in (peter.profile_summary or "")

    # Years later the tenant knows many Peters, each with a different life.
    for name, fact in OTHER_PETERS:
        await remember_turn(brain, resolver, tenant_id, fact, f"s-{name}", JAN_2023 + 86400)
    assert len(await g.find_by_alias("Peter")) == 1  # the others are known by full name only

    query = await resolver.resolve(
        tenant_id, "Check if Peter's content is passing as human", session_id="later", at=LATER
    )
    assert query.clarification is None
    named = [r for r in query.resolved if r.mention.text == "Peter"][0]
    assert named.entity is not None and named.entity.id == peter.id
    assert named.method == "context" and len(named.candidates) == 1 + len(OTHER_PETERS)

    follow = await resolver.resolve(
        tenant_id, "What about his last batch?", session_id="later", at=LATER + 60
    )
    his = [r for r in follow.resolved if r.mention.text == "his"][0]
    assert his.entity is not None and his.entity.id == peter.id
    assert follow.tracked[0].entity.id == peter.id


async def test_seed_tracker_scene_and_fading(resolver: Resolver, tenant_id: str) -> None:
    """WOBS stays the scene; Peter fades once the topic moves to the Anderson order."""
    session = "five-turns"
    turns = [
        SEED,
        "Check if Peter's content is passing as human.",
        "What about his last batch?",
        "Now the Anderson order: the client wants twenty articles by Friday.",
        "When is it due?",
    ]
    results = [
        await resolver.resolve(
            tenant_id, t, session_id=session, at=JAN_2023 + i * 60, create_missing=True
        )
        for i, t in enumerate(turns)
    ]
    by_name = {t.entity.name: t for t in results[-1].tracked}
    assert by_name["Wolf of Blog Street"].scope == "scene"
    assert by_name["Anderson order"].salience > by_name["Peter"].salience
    assert by_name["Wolf of Blog Street"].salience > by_name["Peter"].salience
    peter_after_3 = {t.entity.name: t.salience for t in results[2].tracked}["Peter"]
    assert by_name["Peter"].salience < peter_after_3 / 2
    it = [r for r in results[-1].resolved if r.mention.text == "it"][0]
    assert it.entity is not None and it.entity.name == "Anderson order"
    his = [r for r in results[2].resolved if r.mention.text == "his"][0]
    assert his.entity is not None and his.entity.name == "Peter"
    # The state is persisted with the session: a new resolver instance sees the same focus.
    fresh = Resolver(resolver.graph, resolver.embedder, resolver.settings, resolver.parser)
    again = await fresh.tracked(tenant_id, session)
    assert [(t.entity.id, round(t.salience, 6)) for t in again] == [
        (t.entity.id, round(t.salience, 6)) for t in results[-1].tracked
    ]
