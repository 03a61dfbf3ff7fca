"""Supersede through the API at the edges of a chain: the conflict names the chain's live end
(after corrections and after a duplicate merge), a forgotten memory is not superseded (also
when forget and supersede race), and a turn's time may not lie far in the future."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import now
from core.errors import Conflict
from core.types import NewMemory
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

SUPERSEDE = """mutation($id: ID!, $content: String!) {
  supersede(id: $id, input: {content: $content}) {
    __typename ... on Memory { id current expiresAt }
    ... on ConflictError { currentId message } } }"""
LINEAGE = """query($id: ID!) { lineage(memoryId: $id) {
  ... on Lineage { links { current memory { id content } } } } }"""


@pytest.fixture
async def client(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id)
    return Client(brain, key)


async def _supersede(client: Client, memory_id: str, content: str) -> dict[str, object]:
    result: dict[str, object] = (await client.data(SUPERSEDE, id=memory_id, content=content))[
        "supersede"
    ]
    return result


async def test_conflict_names_the_live_end_of_the_chain(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    v1 = await brain.memories.remember(tenant_id, NewMemory(content="We deploy to Heroku"))
    v2 = await _supersede(client, v1.id, "We deploy to Render")
    v3 = await _supersede(client, str(v2["id"]), "We deploy to AWS")

    refused = await _supersede(client, v1.id, "We deploy to Fly")
    assert refused["__typename"] == "ConflictError"
    assert refused["currentId"] == v3["id"]  # not v2, the version that replaced v1
    middle = await _supersede(client, str(v2["id"]), "We deploy to Fly")
    assert middle["currentId"] == v3["id"]
    links = (await client.data(LINEAGE, id=v1.id))["lineage"]["links"]
    assert [link["memory"]["content"] for link in links] == [
        "We deploy to Heroku",
        "We deploy to Render",
        "We deploy to AWS",
    ]


async def test_conflict_after_a_merge_names_the_winners_live_version(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    a, b = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="The Anderson account renews every January.", importance=0.4),
            NewMemory(content="The Anderson account renews every January", importance=0.6),
        ],
    )
    merged = await client.data(
        "mutation { consolidate(tasks: [MERGE_DUPLICATES]) {"
        " ... on ConsolidationReport { runs { counts { name value } } } } }"
    )
    assert {"name": "merged", "value": 1} in merged["consolidate"]["runs"][0]["counts"]
    loser = a.id if (await brain.memories.get(tenant_id, a.id)).merged_into else b.id
    winner = b.id if loser == a.id else a.id
    renewed = await _supersede(client, winner, "The Anderson account renews every March")

    refused = await _supersede(client, loser, "The Anderson account renews every May")
    assert refused["__typename"] == "ConflictError"
    assert refused["currentId"] == renewed["id"]  # not the winner, superseded since


async def test_a_forgotten_memory_is_not_superseded(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    x = await brain.memories.remember(tenant_id, NewMemory(content="The gate code is 4411"))
    await client.data(f'mutation {{ forget(id: "{x.id}") {{ __typename }} }}')

    refused = await _supersede(client, x.id, "The gate code is 5522")
    assert refused["__typename"] == "ConflictError"
    assert refused["currentId"] is None and "forgotten" in str(refused["message"])
    links = (await client.data(LINEAGE, id=x.id))["lineage"]["links"]
    assert [link["memory"]["id"] for link in links] == [x.id]  # no new version was written
    listed = await brain.memories.page(tenant_id, first=50, include_forgotten=True)
    assert "The gate code is 5522" not in {m.content for m in listed}

    # A chain whose live end was forgotten: no version to name.
    y = await brain.memories.remember(tenant_id, NewMemory(content="The wifi password is orange"))
    y2 = await _supersede(client, y.id, "The wifi password is lemon")
    await brain.memories.forget(tenant_id, str(y2["id"]))
    ended = await _supersede(client, y.id, "The wifi password is lime")
    assert ended["__typename"] == "ConflictError" and ended["currentId"] is None


async def test_forget_and_supersede_at_once_leave_one_current_live_member_or_none(
    brain: Brain, tenant_id: str
) -> None:
    memories = await brain.memories.remember_many(
        tenant_id, [NewMemory(content=f"Locker {i} holds the spare keys") for i in range(8)]
    )

    async def race(i: int, memory_id: str) -> object:
        forget = brain.memories.forget(tenant_id, memory_id)
        supersede = brain.memories.supersede(
            tenant_id, memory_id, f"Locker {i} holds the spare badge"
        )
        pair = (forget, supersede) if i % 2 else (supersede, forget)
        outcome = await asyncio.gather(*pair, return_exceptions=True)
        return outcome[1] if i % 2 else outcome[0]

    outcomes = await asyncio.gather(*(race(i, m.id) for i, m in enumerate(memories)))
    clock = now()
    for memory, outcome in zip(memories, outcomes, strict=True):
        chain = await brain.memories.lineage(tenant_id, memory.id)
        current = [link.memory for link in chain if link.current]
        assert len(current) == 1  # never a fork, never a chain without an end
        if isinstance(outcome, Conflict):  # forget came first: the chain is forgotten
            assert len(chain) == 1 and not current[0].is_live(clock)
        else:  # supersede came first: the new version is current and live
            assert not isinstance(outcome, BaseException), outcome
            assert current[0].content.endswith("spare badge") and current[0].is_live(clock)


async def test_a_turn_far_in_the_future_is_refused(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    turn = """mutation($at: DateTime!) { recordTurn(input: {sessionId: "s1", userId: "u1",
      content: "We met the auditors today", at: $at}) {
      __typename ... on InvalidInputError { field } ... on TurnResult { episode { id } } } }"""
    far = await client.data(turn, at="9999-12-31T23:59:59+00:00")
    assert far["recordTurn"] == {"__typename": "InvalidInputError", "field": "at"}
    skew = brain.settings.ingest.turn_max_future_seconds
    soon = await client.data(turn, at=_iso(now() + skew * 3))
    assert soon["recordTurn"]["__typename"] == "InvalidInputError"
    assert not await brain.memories.page(
        tenant_id, first=50, include_forgotten=True
    )  # nothing was written
    within = await client.data(turn, at=_iso(now() + skew / 3))
    assert within["recordTurn"]["__typename"] == "TurnResult"


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()
