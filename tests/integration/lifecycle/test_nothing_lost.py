"""Nothing said is lost to the lifecycle, through the public API: turns recorded with their
real dates stay in contexts after every job has run, and after a simulated year of jobs on a
moved clock; user scope shows a user's own memories and the tenant's shared ones only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import now, set_now
from core.ingest_types import TurnInput
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

DAY = 86_400.0
TURN = """mutation($session: String!, $user: String!, $content: String!, $at: DateTime) {
  recordTurn(input: {sessionId: $session, userId: $user, content: $content, at: $at}) {
    __typename ... on TurnResult { episode { id } } ... on Error { message } } }"""
CONTEXT = """query($q: String!, $user: String!) {
  assembleContext(input: {sessionId: "ask", userId: $user, query: $q, tokenBudget: 2000}) {
    ... on Context { text items { memory { id source } } } ... on Error { message } } }"""
CONSOLIDATE = """mutation { consolidate { ... on ConsolidationReport {
  runs { job status error counts { name value } } } ... on Error { message } } }"""
SEARCH = """query($q: String!, $user: String) {
  search(input: {query: $q, topK: 10, userId: $user}) {
    ... on SearchResults { hits { memory { id content } } } ... on Error { message } } }"""

# The seeds' two WOBS turns, with their real dates.
IDENTITY = (
    "We are Wolf of Blog Street, WOBS for short, a link-building agency. Peter writes for us."
)
PROCESS = (
    "To check if Peter's content is passing as human, run it through two AI detectors and "
    "read the first paragraph aloud."
)
ASK = "Check if Peter's content is passing as human"


@pytest.fixture
async def client(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id)
    return Client(brain, key)


@pytest.fixture
def clock() -> Iterator[None]:
    yield
    set_now(None)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat()


async def _say(client: Client, session: str, content: str, at: float, user: str = "u1") -> str:
    data = await client.data(TURN, session=session, user=user, content=content, at=_iso(at))
    result = data["recordTurn"]
    assert result["__typename"] == "TurnResult", result
    return str(result["episode"]["id"])


async def _context_ids(client: Client, query: str, user: str = "u1") -> set[str]:
    """The ids of the context's memories, and of the turns its statements were extracted
    from (a taught process is served as its procedure, in place of the turn's words)."""
    context = (await client.data(CONTEXT, q=query, user=user))["assembleContext"]
    ids = {item["memory"]["id"] for item in context["items"]}
    sources = {(item["memory"]["source"] or "").rsplit(":", 1)[-1] for item in context["items"]}
    return ids | sources


async def _consolidate(client: Client) -> dict[str, dict[str, int]]:
    runs = (await client.data(CONSOLIDATE))["consolidate"]["runs"]
    assert all(r["status"] == "DONE" for r in runs), runs
    return {r["job"]: {c["name"]: c["value"] for c in r["counts"]} for r in runs}


async def test_taught_process_and_identity_survive_consolidation_and_a_year(
    client: Client, clock: None
) -> None:
    january = datetime(2023, 1, 10, 10, tzinfo=UTC).timestamp()
    march = datetime(2023, 3, 14, 15, tzinfo=UTC).timestamp()
    set_now(march + DAY)
    identity = await _say(client, "s-jan", IDENTITY, january)
    process = await _say(client, "s-mar", PROCESS, march)
    assert {identity, process} <= await _context_ids(client, ASK)

    counts = await _consolidate(client)  # what the scheduler does every five minutes

    assert counts["PROMOTE_WORKING"]["sessions"] >= 2  # both sessions' windows have closed
    assert {identity, process} <= await _context_ids(client, ASK)

    at = march + DAY
    for _ in range(12):  # a year of every job, a month at a time, nobody asking
        at += 30 * DAY
        set_now(at)
        await _consolidate(client)
    assert {identity, process} <= await _context_ids(client, ASK)


async def test_user_scope_shows_own_and_shared_memories_only(client: Client) -> None:
    private = await _say(client, "s-ana", "My salary review with Dana is on Friday.", now(), "ana")
    shared = await client.data(
        'mutation { remember(input: {content: "Salary reviews happen every March."}) '
        "{ ... on Memory { id } } }"
    )
    shared_id = shared["remember"]["id"]

    async def found(user: str | None) -> set[str]:
        hits = (await client.data(SEARCH, q="When is the salary review?", user=user))["search"]
        return {h["memory"]["id"] for h in hits["hits"]}

    assert {private, shared_id} <= await found("ana")
    ben = await found("ben")
    assert shared_id in ben and private not in ben
    assert {private, shared_id} <= await found(None)  # without a user: the whole tenant
    assert private not in await _context_ids(client, "When is the salary review?", user="ben")
    assert private in await _context_ids(client, "When is the salary review?", user="ana")


SPOKEN = """mutation($speaker: String, $content: String!) {
  recordTurn(input: {sessionId: "talk", userId: "u1", speaker: $speaker, content: $content}) {
    ... on TurnResult { episode { id entities { id name type } } } ... on Error { message } } }"""


async def test_a_speaker_is_learned_as_a_person_and_their_turns_are_about_them(
    client: Client,
) -> None:
    async def said(speaker: str | None, content: str) -> list[dict[str, str]]:
        data = await client.data(SPOKEN, speaker=speaker, content=content)
        return list(data["recordTurn"]["episode"]["entities"])

    first = await said("Caroline", "I went to a support group yesterday.")
    again = await said("Caroline", "It was really powerful.")
    other = await said("Melanie", "That sounds great!")
    bot = await said("assistant", "Glad to hear it.")

    assert [(e["name"], e["type"]) for e in first] == [("Caroline", "PERSON")]
    assert [e["id"] for e in again] == [first[0]["id"]]  # the same person, not a new one
    assert [e["name"] for e in other] == ["Melanie"] and other[0]["id"] != first[0]["id"]
    assert bot == []  # a role is not a person
    hits = (await client.data(SEARCH, q="What did Caroline go to?", user="u1"))["search"]
    top = [h["memory"]["content"] for h in hits["hits"][:2]]
    assert "I went to a support group yesterday." in top


async def test_a_turn_is_indexed_with_its_speaker_alike_on_every_path(
    brain: Brain, tenant_id: str
) -> None:
    said = await brain.ingest.turns.record_turn(
        tenant_id,
        TurnInput(session_id="pets", speaker="Caroline", content="I adopted a cat named Biscuit."),
    )
    episode = await brain.memories.get(tenant_id, said.episode.id)
    assert (
        episode.turn_speaker == "Caroline" and episode.content == "I adopted a cat named Biscuit."
    )
    written = (await brain.index.vectors(tenant_id, [episode.id]))[episode.id]

    await brain.writer.sync.show(
        tenant_id, new=[episode], mark="none"
    )  # what the reconciler does from the graph

    again = (await brain.index.vectors(tenant_id, [episode.id]))[episode.id]
    assert max(abs(a - b) for a, b in zip(written, again, strict=True)) < 1e-5
    plain = (await brain.embedder.embed_documents([episode.content]))[0]
    assert max(abs(a - b) for a, b in zip(written, plain, strict=True)) > 1e-3  # not content alone
