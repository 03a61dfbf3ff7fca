"""Issue 21 through the public API: people born, told apart and linked from what users say
(``recordTurn``), and identity questions curated (``identityQuestions``,
``confirmSameEntity``, ``confirmDistinctEntities``)."""

from __future__ import annotations

from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

TURN = """mutation($session: String!, $content: String!) {
  recordTurn(input: {sessionId: $session, userId: "u1", content: $content}) {
    __typename ... on TurnResult { episode { id }
      entities { id name type provisional parentId contextTags } clarification { question } } } }"""
QUESTIONS = """query($first: Int!) { identityQuestions(first: $first) {
  __typename ... on IdentityQuestionConnection { edges { node {
    entity { id name provisional } description
    candidates { entity { id } description score } } } } } }"""
SAME = """mutation($a: ID!, $b: ID!) { confirmSameEntity(entityId: $a, otherId: $b) {
  __typename ... on EntityMerge { id keepId dropIds } ... on Error { message } } }"""
DISTINCT = """mutation($a: ID!, $b: ID!) { confirmDistinctEntities(entityId: $a, otherId: $b) {
  __typename ... on Error { message } } }"""
UNMERGE = """mutation($id: ID!) { unmergeEntities(mergeId: $id) {
  __typename ... on EntityMerge { undoneAt } } }"""


async def _turn(client: Client, session: str, content: str) -> dict[str, Any]:
    result: dict[str, Any] = (await client.data(TURN, session=session, content=content))[
        "recordTurn"
    ]
    assert result["__typename"] == "TurnResult" and result["clarification"] is None
    return result


def _person(result: dict[str, Any], first: str = "Sarah") -> dict[str, Any]:
    [found] = [e for e in result["entities"] if e["name"].startswith(first)]
    return found


def _org(result: dict[str, Any], name: str) -> dict[str, Any]:
    [found] = [e for e in result["entities"] if e["name"] == name]
    assert found["type"] == "ORG"
    return found


async def test_four_sarahs_and_a_cue(brain: Brain, tenant_id: str, other_tenant_id: str) -> None:
    """The issue's turns, one per session: four different Sarahs, then a known one re-mentioned
    with a cue links to her (and not to a same-named one)."""
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    first = await _turn(
        client, "s1", "We run a small agency called Brightpath Media. Sarah is our designer."
    )
    designer, brightpath = _person(first), _org(first, "Brightpath Media")
    assert "role:designer" in designer["contextTags"] and designer["parentId"] == brightpath["id"]

    second = await _turn(
        client, "s2", "Sarah Okafor is the head of procurement at our client Dunmore Foods."
    )
    okafor, dunmore = _person(second), _org(second, "Dunmore Foods")
    assert "role:head of procurement" in okafor["contextTags"]
    assert okafor["parentId"] == dunmore["id"]

    cousin = _person(await _turn(client, "s3", "My cousin Sarah teaches piano in Cork."))
    assert "related_to_speaker:cousin" in cousin["contextTags"]

    fourth = await _turn(
        client, "s4", "Sarah from the law firm Brandt & Voss reviewed our contract template."
    )
    lawyer = _person(fourth)
    assert lawyer["parentId"] == _org(fourth, "Brandt & Voss")["id"]
    sarahs = {designer["id"], okafor["id"], cousin["id"], lawyer["id"]}
    assert len(sarahs) == 4  # no silent merge: each contradicts every Sarah known before
    assert not any(p["provisional"] for p in (designer, okafor, cousin, lawyer))

    again = await _turn(client, "s5", "Sarah from Brightpath sent the logo.")
    assert _person(again)["id"] == designer["id"]
    assert await brain.graph.tenant(tenant_id).entity_count() == 8  # 4 Sarahs, 3 orgs, Cork
    found = await client.data(DECISIONS, id=designer["id"])
    linked = [d for d in found["identityDecisions"]["decisions"] if d["outcome"] == "linked"]
    assert linked and linked[0]["memoryId"] == again["episode"]["id"]
    assert linked[0]["mention"] == "Sarah" and linked[0]["entityId"] == designer["id"]
    scores = {c["entityId"]: c["score"] for c in linked[0]["candidates"]}
    assert scores[designer["id"]] == 1.0 and scores[okafor["id"]] == 0.0
    assert set(scores) == sarahs  # every Sarah known then was weighed
    other = Client(brain, (await create_key(brain.graph, other_tenant_id))[1])
    unseen = (await other.data(DECISIONS, id=designer["id"]))["identityDecisions"]
    assert unseen["__typename"] == "NotFoundError"  # another tenant's entity


async def test_undecidable_mention_is_provisional_and_curated(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    tom = _person(await _turn(client, "a", "Tom is our accountant."), "Tom")
    # A Tom at Globex may be the accountant (whose organisation nobody stated) or not.
    second = await _turn(client, "b", "Tom from Globex called about the audit.")
    maybe = _person(second, "Tom")
    assert maybe["id"] != tom["id"] and maybe["provisional"] is True
    edges = (await client.data(QUESTIONS, first=10))["identityQuestions"]["edges"]
    [question] = [e["node"] for e in edges]
    assert question["entity"]["id"] == maybe["id"]
    assert question["description"] == "Tom, works for Globex"
    [candidate] = question["candidates"]
    assert candidate["entity"]["id"] == tom["id"] and candidate["description"] == "Tom, accountant"

    # Another tenant sees no question and cannot answer this one.
    _, other_key = await create_key(brain.graph, other_tenant_id)
    other = Client(brain, other_key)
    assert (await other.data(QUESTIONS, first=10))["identityQuestions"]["edges"] == []
    refused = await other.data(DISTINCT, a=maybe["id"], b=tom["id"])
    assert refused["confirmDistinctEntities"]["__typename"] == "NotFoundError"

    answered = await client.data(DISTINCT, a=maybe["id"], b=tom["id"])
    assert answered["confirmDistinctEntities"]["__typename"] == "DistinctEntities"
    assert (await client.data(QUESTIONS, first=10))["identityQuestions"]["edges"] == []
    assert not (await brain.entities.get(tenant_id, maybe["id"])).provisional
    refused = await client.data(SAME, a=maybe["id"], b=tom["id"])
    assert refused["confirmSameEntity"]["__typename"] == "ConflictError"

    # A third Tom, at yet another firm: the Globex Tom is ruled out, the accountant is not.
    third = _person(await _turn(client, "c", "Tom from Initech sent the invoice."), "Tom")
    assert third["provisional"] is True
    [question] = [
        e["node"] for e in (await client.data(QUESTIONS, first=10))["identityQuestions"]["edges"]
    ]
    assert [c["entity"]["id"] for c in question["candidates"]] == [tom["id"]]
    same = (await client.data(SAME, a=third["id"], b=tom["id"]))["confirmSameEntity"]
    assert same["keepId"] == tom["id"] and same["dropIds"] == [third["id"]]
    assert (await client.data(QUESTIONS, first=10))["identityQuestions"]["edges"] == []
    undone = await client.data(UNMERGE, id=same["id"])
    assert undone["unmergeEntities"]["undoneAt"] is not None

    bad = await client.data(SAME, a=tom["id"], b=tom["id"])
    assert bad["confirmSameEntity"]["__typename"] == "InvalidInputError"
    bad = await client.data(DISTINCT, a="not-an-id", b=tom["id"])
    assert bad["confirmDistinctEntities"]["__typename"] == "InvalidInputError"


CONTEXT = """query($q: String!) { assembleContext(input: {sessionId: "ask", userId: "u1",
  query: $q}) { __typename ... on Context { text items { memory { content entityIds } }
    clarification { question descriptions } } } }"""
SEARCH = """query($q: String!) { search(input: {query: $q, topK: 20}) {
  ... on SearchResults { hits { memory { content entityIds } } } } }"""


async def test_reads_keep_same_named_people_apart(brain: Brain, tenant_id: str) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    designer = _person(
        await _turn(
            client, "s1", "We run a small agency called Brightpath Media. Sarah is our designer."
        )
    )
    okafor = _person(
        await _turn(
            client, "s2", "Sarah Okafor is the head of procurement at our client Dunmore Foods."
        )
    )
    pastel = await _turn(client, "s3", "Sarah from Brightpath prefers pastel palettes for logos.")
    assert _person(pastel)["id"] == designer["id"]
    invoices = await _turn(client, "s4", "Sarah Okafor needs the signed logo invoices by Friday.")
    assert _person(invoices)["id"] == okafor["id"]

    # Resolved by the cue: the designer's facts, named, and nothing about Sarah Okafor on any
    # path (her memory shares "logo" with the query, so the semantic and keyword paths find it).
    ctx = (await client.data(CONTEXT, q="Ask Sarah from Brightpath for the new logo drafts"))[
        "assembleContext"
    ]
    assert ctx["clarification"] is None
    assert "Identity: Sarah, designer at Brightpath Media" in ctx["text"]
    assert "pastel" in ctx["text"] and "invoices" not in ctx["text"]
    assert not any(okafor["id"] in i["memory"]["entityIds"] for i in ctx["items"])
    hits = (await client.data(SEARCH, q="Sarah from Brightpath logo"))["search"]["hits"]
    assert any("pastel" in h["memory"]["content"] for h in hits)
    assert not any(okafor["id"] in h["memory"]["entityIds"] for h in hits)
    # An organisation merely named near the name is a cue too (a phrasing no pattern knows).
    near = (await client.data(CONTEXT, q="What did Sarah over at Brightpath Media want?"))[
        "assembleContext"
    ]
    assert near["clarification"] is None and "pastel" in near["text"]
    assert "invoices" not in near["text"]
    unscoped = (await client.data(SEARCH, q="logo invoices"))["search"]["hits"]
    assert any("invoices" in h["memory"]["content"] for h in unscoped)  # there to be left out

    # Unresolvable: the context says so, lists who it may be, and mixes no one's facts.
    vague = (await client.data(CONTEXT, q="Call Sarah tomorrow"))["assembleContext"]
    assert vague["clarification"]["question"] == "Which Sarah?"
    assert set(vague["clarification"]["descriptions"]) == {
        "Sarah, designer at Brightpath Media",
        "Sarah Okafor, head of procurement at Dunmore Foods",
    }
    assert '"Sarah" is ambiguous' in vague["text"]
    assert "pastel" not in vague["text"] and "invoices" not in vague["text"]


async def test_a_provisional_namesake_is_not_left_out_of_reads(
    brain: Brain, tenant_id: str
) -> None:
    """A provisional Tom is an open question, possibly the accountant: a read about "Tom"
    means the one settled Tom (no "Which Tom?") and keeps the provisional one's memories
    (leaving them out as a namesake's is what cut LoCoMo recall)."""
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    tom = _person(await _turn(client, "a", "Tom is our accountant."), "Tom")
    maybe = _person(await _turn(client, "b", "Tom from Globex called about the audit."), "Tom")
    assert maybe["provisional"] is True and maybe["id"] != tom["id"]

    ctx = (await client.data(CONTEXT, q="What did Tom call about?"))["assembleContext"]
    assert ctx["clarification"] is None
    assert "audit" in ctx["text"]
    hits = (await client.data(SEARCH, q="What did Tom call about?"))["search"]["hits"]
    assert any(maybe["id"] in h["memory"]["entityIds"] for h in hits)


CONSOLIDATE = """mutation { consolidate(tasks: [REPROFILE, PROPOSE_IDENTITIES]) {
  __typename ... on ConsolidationReport { runs { job status counts { name value } } } } }"""
DECISIONS = """query($id: ID!) { identityDecisions(entityId: $id) {
  __typename ... on IdentityDecisionList { decisions { id mention memoryId entityId outcome at
    candidates { entityId score reason } } } ... on Error { message } } }"""
PROPOSALS = """query { identityQuestions(first: 10) { ... on IdentityQuestionConnection {
  edges { node { entity { id } candidates { entity { id } score proposed } } } } } }"""


async def test_the_batch_job_proposes_the_candidate_profiles_converge_on(
    brain: Brain, tenant_id: str
) -> None:
    """A Tom at Globex may be the accountant or the chef (neither's employer was stated). He
    is mentioned again with his cue (linked to the same provisional entity, not a new one),
    and what he does makes his profile closer to the accountant's: the job scores the
    candidates by profile similarity and proposes at most the closest one."""
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    accountant = _person(
        await _turn(client, "a", "Tom is our accountant. He files our tax returns and audits."),
        "Tom",
    )
    chef = _person(await _turn(client, "b", "Tom is our chef. He cooks pasta and bakes."), "Tom")
    maybe = _person(await _turn(client, "c", "Tom from Globex called about the audit."), "Tom")
    again = _person(
        await _turn(client, "d", "Tom from Globex sent the tax return figures for the audit."),
        "Tom",
    )
    assert maybe["provisional"] and again["id"] == maybe["id"]  # his cue finds him again

    report = (await client.data(CONSOLIDATE))["consolidate"]
    [run] = [r for r in report["runs"] if r["job"] == "PROPOSE_IDENTITIES"]
    assert run["status"] == "DONE"
    assert {c["name"]: c["value"] for c in run["counts"]}["questions"] == 1

    [question] = (await client.data(PROPOSALS))["identityQuestions"]["edges"]
    scores = {c["entity"]["id"]: c for c in question["node"]["candidates"]}
    assert set(scores) == {accountant["id"], chef["id"]}
    assert scores[accountant["id"]]["score"] > scores[chef["id"]]["score"]
    assert not scores[chef["id"]]["proposed"]
    settings = brain.settings.lifecycle
    best, other = scores[accountant["id"]]["score"], scores[chef["id"]]["score"]
    expected = best >= settings.identity_propose_similarity and (
        best - other >= settings.identity_propose_margin
    )
    assert scores[accountant["id"]]["proposed"] is expected, (best, other)


async def test_unfamiliar_surnames_are_people_and_bare_first_names_are_found(
    brain: Brain, tenant_id: str
) -> None:
    """A person introduced with a surname the small model does not know is a person, not the
    project, place or product it guessed ("project manager", "office manager"); later, the
    bare first name before a cue it does not tag is still found and linked by the cue."""
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    clara = _person(
        await _turn(client, "s1", "Clara Quidt is the project manager at Redcliff Labs."), "Clara"
    )
    assert clara["type"] == "PERSON" and "role:project manager" in clara["contextTags"]
    ravi = _person(
        await _turn(client, "s2", "Ravi Quiphy is the office manager at Oakridge Foods."), "Ravi"
    )
    assert ravi["type"] == "PERSON"
    other = _person(
        await _turn(client, "s3", "Ravi Mermere is the engineer at Northwind Partners."), "Ravi"
    )
    assert other["type"] == "PERSON" and other["id"] != ravi["id"]
    later = await _turn(client, "s4", "Ravi over at Northwind Partners sent the budget.")
    assert _person(later, "Ravi")["id"] == other["id"]
    later = await _turn(
        client, "s5", "Pablo said hi. Ravi (office manager, Oakridge Foods) agreed."
    )
    assert _person(later, "Ravi")["id"] == ravi["id"]
