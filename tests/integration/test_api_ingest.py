"""recordTurn, tasks, closeSession and ingestDocument through the API (the pipeline itself is
tested in tests/integration/ingest/)."""

from __future__ import annotations

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

TURN = """mutation($content: String!) { recordTurn(input: {sessionId: "s1", userId: "u1", content: $content}) {
  __typename ... on TurnResult { episode { id type content } extracted { type content }
    entities { name } tasks { id status priority content } supersededIds } } }"""


async def test_turns_tasks_sessions_documents(
    brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    first = (
        await client.data(
            TURN,
            content="The company is Wolf of Blog Street, also known as WOBS. Peter is one of our writers.",
        )
    )["recordTurn"]
    assert first["__typename"] == "TurnResult" and first["episode"]["type"] == "EPISODIC"
    assert {"Wolf of Blog Street", "Peter"} <= {e["name"] for e in first["entities"]}
    todo = (await client.data(TURN, content="TODO: send Peter the Anderson brief"))["recordTurn"]
    assert [t["status"] for t in todo["tasks"]] == ["CANDIDATE"]
    task_id = todo["tasks"][0]["id"]

    found = await client.data(
        '{ search(input: {query: "who writes for WOBS?"}) { ... on SearchResults { hits { memory { id content } } } } }'
    )
    assert first["episode"]["id"] in {h["memory"]["id"] for h in found["search"]["hits"]} or any(
        "Peter" in h["memory"]["content"] for h in found["search"]["hits"]
    )
    confirmed = await client.data(
        f'mutation {{ confirmTask(id: "{task_id}") {{ ... on Task {{ status }} }} }}'
    )
    assert confirmed["confirmTask"]["status"] == "CONFIRMED"
    again = await client.data(f'mutation {{ dismissTask(id: "{task_id}") {{ __typename }} }}')
    assert again["dismissTask"]["__typename"] in {"ConflictError", "Task"}
    listed = await client.data("{ tasks { ... on TaskList { tasks { id } } } }")
    assert task_id in {t["id"] for t in listed["tasks"]["tasks"]}

    closed = await client.data(
        'mutation { closeSession(sessionId: "s1") { ... on Session { id turnCount closedAt } } }'
    )
    assert closed["closeSession"]["turnCount"] == 2 and closed["closeSession"]["closedAt"]
    unknown = await client.data('mutation { closeSession(sessionId: "nope") { __typename } }')
    assert unknown["closeSession"]["__typename"] == "NotFoundError"

    doc = 'mutation($t: String!) { ingestDocument(input: {sourcePath: "handbook.md", text: $t}) { ... on DocumentResult { version unchanged chunks { id } superseded } } }'
    text = "# Handbook\n\nWe check content with two detectors before it ships.\n"
    one = (await client.data(doc, t=text))["ingestDocument"]
    two = (await client.data(doc, t=text))["ingestDocument"]
    assert one["chunks"] and not one["unchanged"] and two["unchanged"] and two["chunks"] == []
    three = (await client.data(doc, t=text + "\nAnd a human reads the first paragraph.\n"))[
        "ingestDocument"
    ]
    assert three["version"] == 2 and three["superseded"] == len(one["chunks"])
    empty = await client.data(TURN, content="   ")
    assert empty["recordTurn"]["__typename"] == "InvalidInputError"

    _, other_key = await create_key(brain.graph, other_tenant_id)
    other = Client(brain, other_key)
    stolen = await other.data(f'mutation {{ dismissTask(id: "{task_id}") {{ __typename }} }}')
    assert stolen["dismissTask"]["__typename"] == "NotFoundError"
    assert (await other.data("{ tasks { ... on TaskList { tasks { id } } } }"))["tasks"][
        "tasks"
    ] == []


async def test_assemble_context_through_the_api(brain: Brain, tenant_id: str) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    said = [
        (await client.data(TURN, content=text))["recordTurn"]["episode"]["id"]
        for text in [
            "The company is Wolf of Blog Street, also known as WOBS. Peter is one of our writers.",
            "Our deploy target is Heroku.",
            "Actually, our deploy target is AWS now.",
            "Actually, Peter is an editor now.",
        ]
    ]
    corrected = """query($id: ID!) { memory(id: $id) { ... on Memory { current correctedAt } } }"""
    writers = (await client.data(corrected, id=said[0]))["memory"]
    assert writers["current"] and writers["correctedAt"]  # the turn stands, marked corrected
    assert (await client.data(corrected, id=said[3]))["memory"]["correctedAt"] is None
    query = """query($q: String, $budget: Int) { assembleContext(input: {sessionId: "s1", userId: "u1", query: $q, tokenBudget: $budget}) {
      __typename ... on Context { totalTokens tokenBudget text
        tokenCounts { procedural projectContext memories documentChunks recentConversation }
        items { layer score memory { content current } } trackedEntities { entity { name } salience } } } }"""
    ctx = (await client.data(query, q="Where do we deploy, and who writes for WOBS?", budget=1500))[
        "assembleContext"
    ]
    assert ctx["__typename"] == "Context" and 0 < ctx["totalTokens"] <= 1500
    assert sum(ctx["tokenCounts"].values()) <= ctx["totalTokens"]
    assert all(
        item["memory"]["current"] for item in ctx["items"] if item["layer"] != "RECENT_CONVERSATION"
    )
    assert "Heroku" not in "\n".join(
        i["memory"]["content"] for i in ctx["items"] if i["layer"] == "MEMORIES"
    )
    assert "Peter" in {t["entity"]["name"] for t in ctx["trackedEntities"]}
    bad = await client.data(query, q="x", budget=1)
    assert bad["assembleContext"]["__typename"] == "InvalidInputError"
