"""The GraphQL slice through the real ASGI app (httpx ASGI transport) on the embedded engines."""

from __future__ import annotations

import pytest

from api.auth import create_key, revoke_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

MEMORY = "id type content current supersededById supersedes { id } supersededBy { id }"
ERRORS = "... on Error { __typename message code }"


@pytest.fixture
async def client(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id)
    return Client(brain, key)


REMEMBER = f"""mutation($content: String!) {{
  remember(input: {{content: $content, type: SEMANTIC, importance: 0.8}}) {{
    __typename ... on Memory {{ {MEMORY} importance }} {ERRORS} ... on InvalidInputError {{ field }}
  }} }}"""


async def test_remember_search_supersede_lineage(client: Client) -> None:
    body = await client.gql(REMEMBER, content="Peter is a writer at WOBS")
    mem = body["data"]["remember"]
    assert mem["__typename"] == "Memory" and mem["type"] == "SEMANTIC" and mem["importance"] == 0.8

    search = await client.gql(
        "query($q: String!) { search(input: {query: $q, topK: 3}) { ... on SearchResults {"
        " hits { score paths signals { similarity } memory { id content } }"
        " metadata { postFilterCount latencyMs candidatesPerPath { path candidates } } } } }",
        q="who writes for WOBS?",
    )
    hits = search["data"]["search"]["hits"]
    assert hits[0]["memory"]["id"] == mem["id"] and "SEMANTIC" in hits[0]["paths"]
    assert hits[0]["signals"]["similarity"] > 0.3

    sup = await client.gql(
        f'mutation($id: ID!) {{ supersede(id: $id, input: {{content: "Peter is an editor at WOBS",'
        f' reason: "promoted"}}) {{ __typename ... on Memory {{ {MEMORY} }} }} }}',
        id=mem["id"],
    )
    new = sup["data"]["supersede"]
    assert new["supersedes"]["id"] == mem["id"] and new["current"]

    lineage = await client.gql(
        "query($id: ID!) { lineage(memoryId: $id) { ... on Lineage {"
        " links { reason current memory { id content } } current { id } } } }",
        id=mem["id"],
    )
    links = lineage["data"]["lineage"]["links"]
    assert [link["memory"]["id"] for link in links] == [mem["id"], new["id"]]
    assert [link["current"] for link in links] == [False, True] and links[1]["reason"] == "promoted"
    assert lineage["data"]["lineage"]["current"]["id"] == new["id"]

    old = await client.gql(
        f"query($id: ID!) {{ memory(id: $id) {{ ... on Memory {{ {MEMORY} }} }} }}", id=mem["id"]
    )
    assert old["data"]["memory"]["supersededBy"]["id"] == new["id"]
    assert old["data"]["memory"]["current"] is False


async def test_typed_errors(client: Client) -> None:
    body = await client.gql(f'{{ memory(id: "not-an-id") {{ __typename {ERRORS} }} }}')
    assert body["data"]["memory"]["__typename"] == "InvalidInputError"
    body = await client.gql(
        f'{{ memory(id: "00000000-0000-4000-8000-000000000000") {{ __typename {ERRORS} }} }}'
    )
    assert body["data"]["memory"] == {
        "__typename": "NotFoundError",
        "message": "memory '00000000-0000-4000-8000-000000000000' not found",
        "code": "NOT_FOUND",
    }
    body = await client.gql(REMEMBER, content="x" * 40_000)
    assert body["data"]["remember"]["__typename"] == "InvalidInputError"
    assert body["data"]["remember"]["field"] == "content"
    body = await client.gql(
        'mutation { remember(input: {content: "x", type: BOGUS}) { __typename } }'
    )
    assert body["data"] is None and "BOGUS" in body["errors"][0]["message"]


async def test_other_tenants_ids_are_not_found(
    brain: Brain, client: Client, other_tenant_id: str
) -> None:
    mem = (await client.gql(REMEMBER, content="Secret: the launch is in May"))["data"]["remember"]
    _, other_key = await create_key(brain.graph, other_tenant_id)
    other = Client(brain, other_key)
    for query in [
        f'{{ memory(id: "{mem["id"]}") {{ __typename }} }}',
        f'{{ lineage(memoryId: "{mem["id"]}") {{ __typename }} }}',
        f'mutation {{ supersede(id: "{mem["id"]}", input: {{content: "no"}}) {{ __typename }} }}',
        f'mutation {{ forget(id: "{mem["id"]}") {{ __typename }} }}',
        f'mutation {{ erase(input: {{memoryIds: ["{mem["id"]}"]}}) {{ __typename }} }}',
    ]:
        data = (await other.gql(query))["data"]
        assert next(iter(data.values()))["__typename"] == "NotFoundError", query
    found = await other.gql(
        '{ search(input: {query: "launch"}) { ... on SearchResults { hits { memory { id } } } } }'
    )
    assert found["data"]["search"]["hits"] == []
    mine = await client.gql(
        f'{{ memory(id: "{mem["id"]}") {{ ... on Memory {{ content current }} }} }}'
    )
    assert mine["data"]["memory"] == {"content": "Secret: the launch is in May", "current": True}


async def test_wrong_and_revoked_keys_get_401_and_a_missing_key_a_forbidden_field(
    brain: Brain, tenant_id: str
) -> None:
    query = f'mutation {{ remember(input: {{content: "x"}}) {{ __typename {ERRORS} }} }}'
    # no key: the fields that need one say so (``health`` needs none)
    body = await Client(brain, None).gql(query)
    assert body["data"]["remember"]["__typename"] == "ForbiddenError"

    async def refused(key: str) -> None:
        resp = await Client(brain, key).post({"query": query})
        assert resp.status_code == 401, resp.text
        (error,) = resp.json()["errors"]
        assert error["extensions"]["code"] == "UNAUTHENTICATED"
        assert error["extensions"]["requestId"] == resp.headers["x-request-id"]

    for key in ["brn_wrong", "not-even-a-key"]:
        await refused(key)
    key_id, key = await create_key(brain.graph, tenant_id)
    assert (await Client(brain, key).gql(query))["data"]["remember"]["__typename"] == "Memory"
    await revoke_key(brain.graph, key_id)
    await refused(key)
    assert (await brain.graph.tenant(tenant_id).memory_counts())[0] == 1


async def test_health_and_graphiql(client: Client) -> None:
    await client.gql(REMEMBER, content="one")
    body = await client.gql("{ health { ok version memories indexLag engines { name ok } } }")
    health = body["data"]["health"]
    assert health["ok"] and health["memories"] == 1 and health["indexLag"] == 0
    assert {e["name"] for e in health["engines"]} == {"graph", "vector"}
    page = await client.http.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    live = await client.http.get("/healthz")
    assert live.json()["ok"] is True


async def test_entity_lineage_and_viz_graph(brain: Brain, client: Client, tenant_id: str) -> None:
    from core.types import EntityType, NewMemory

    g = brain.graph.tenant(tenant_id)
    wobs = await g.create_entity("WOBS", EntityType.ORG)
    peter = await g.create_entity("Peter", EntityType.PERSON)
    await g.relate(peter.id, wobs.id, "works_for")
    first = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="WOBS deploys to Heroku", entity_ids=[wobs.id], predicate="deploy_target"
        ),
    )
    await brain.memories.supersede(tenant_id, first.id, "WOBS deploys to AWS", "migrated")
    await brain.memories.remember(
        tenant_id, NewMemory(content="Peter writes for WOBS", entity_ids=[peter.id, wobs.id])
    )

    data = await client.data(
        f'{{ entityLineage(entityId: "{wobs.id}", predicate: "deploy_target") {{ ... on EntityLineage {{'
        " chains { links { current reason memory { content } } } } } }"
    )
    chains = data["entityLineage"]["chains"]
    assert len(chains) == 1
    assert [(link["memory"]["content"], link["current"]) for link in chains[0]["links"]] == [
        ("WOBS deploys to Heroku", False),
        ("WOBS deploys to AWS", True),
    ]
    everything = await client.data(
        f'{{ entityLineage(entityId: "{wobs.id}") {{ ... on EntityLineage {{ chains {{ links {{ memory {{ id }} }} }} }} }} }}'
    )
    assert len(everything["entityLineage"]["chains"]) == 2

    viz = await client.data(
        "{ vizGraph { ... on VizGraph { nodes { id kind label position { x y } } edges { source target relation } } } }"
    )
    nodes = {n["label"]: n for n in viz["vizGraph"]["nodes"]}
    assert {"WOBS", "Peter", "WOBS deploys to AWS", "Peter writes for WOBS"} <= set(nodes)
    assert "WOBS deploys to Heroku" not in nodes  # superseded facts are not drawn as current
    relations = {(e["source"], e["target"], e["relation"]) for e in viz["vizGraph"]["edges"]}
    assert (peter.id, wobs.id, "works_for") in relations
    assert all(isinstance(n["position"]["x"], float) for n in nodes.values())


async def test_decay_factor_is_the_ranking_decay(
    brain: Brain, client: Client, tenant_id: str
) -> None:
    from core.clock import now
    from core.types import MemoryType, NewMemory

    old = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="We had a call", type=MemoryType.EPISODIC, created_at=now() - 28 * 86_400
        ),
    )
    foundation = await brain.memories.remember(
        tenant_id,
        NewMemory(
            content="Peter is a writer", type=MemoryType.SEMANTIC, created_at=now() - 700 * 86_400
        ),
    )
    q = "query($id: ID!) { memory(id: $id) { ... on Memory { decayClass decayFactor } } }"
    episode = (await client.data(q, id=old.id))["memory"]
    assert episode["decayClass"] == "MEDIUM" and episode["decayFactor"] == pytest.approx(
        0.25, abs=0.01
    )
    assert (await client.data(q, id=foundation.id))["memory"]["decayFactor"] == 1.0
